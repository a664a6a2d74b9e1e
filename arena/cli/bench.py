"""``arena bench …``: benchmarks that print figures (one JSON object with ``--json``)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Benchmarks: print measured figures.", no_args_is_help=True)
