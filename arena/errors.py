"""The arena's own errors: each carries a message a user can act on."""

from __future__ import annotations


class ArenaError(Exception):
    """Base of errors the CLI prints as one line (``arena: error: …``) with a non-zero exit."""
