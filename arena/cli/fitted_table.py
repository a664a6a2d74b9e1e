"""Plain tables that fit the terminal without cutting a cell.

A name or a number cut to "heurist…" or "35.…" is worse than no table, so a narrow terminal
gets shorter headers first, then fewer columns (the least needed first, named in a note, and
``--wide`` brings them all back), and never a cut cell: what still does not fit runs past the
edge whole. Off a terminal (a pipe, a file) the table is whole unless ``COLUMNS`` says
otherwise.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass

GAP = "  "


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    short: str | None = None
    """The header where the terminal is narrow (default: ``header``)."""
    left: bool = False
    """Names and labels are aligned left, numbers right."""
    drop: int = 0
    """0: always shown; otherwise dropped at a narrow width, the highest first."""


def table_width(wide: bool = False) -> int | None:
    """The width to fit: None (no limit) with ``--wide`` or off a terminal without ``COLUMNS``;
    else ``COLUMNS``, else the terminal's width."""
    if wide:
        return None
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


@dataclass(frozen=True, slots=True)
class Fitted:
    lines: list[str]
    dropped: list[str]
    """Headers of the columns left out at this width."""

    def note(self) -> str | None:
        """``(not shown at this width: sigma, D; --wide shows every column)``, or None."""
        if not self.dropped:
            return None
        return f"(not shown at this width: {', '.join(self.dropped)}; --wide shows every column)"


def _render(columns: Sequence[Column], rows: Sequence[Sequence[str]], short: bool) -> list[str]:
    heads = [(c.short or c.header) if short else c.header for c in columns]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(heads)]

    def line(values: Sequence[str]) -> str:
        cells = (
            v.ljust(w) if c.left else v.rjust(w)
            for v, w, c in zip(values, widths, columns, strict=True)
        )
        return GAP.join(cells).rstrip()

    return [line(heads), *(line(r) for r in rows)]


def fit(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int | None) -> Fitted:
    """The table's lines at ``width`` (None: everything, full headers)."""
    lines = _render(columns, rows, short=False)
    if width is None or max(map(len, lines)) <= width:
        return Fitted(lines, [])
    keep = list(range(len(columns)))
    dropped: list[str] = []
    by_need = sorted((i for i, c in enumerate(columns) if c.drop), key=lambda i: -columns[i].drop)
    while True:
        shown = [columns[i] for i in keep]
        lines = _render(shown, [[r[i] for i in keep] for r in rows], short=True)
        if max(map(len, lines)) <= width or not by_need:
            return Fitted(lines, dropped)
        gone = by_need.pop(0)
        keep.remove(gone)
        dropped.append(columns[gone].header)
