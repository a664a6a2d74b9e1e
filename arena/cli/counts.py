"""A count and its noun in the right number: ``1 match``, ``2 matches``, ``0 pairs``."""

from __future__ import annotations

_PLURALS = {"match": "matches", "rated match": "rated matches"}


def count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``matches``, else an ``s`` added)."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {_PLURALS.get(noun, noun + 's')}"
