"""``arena.cli.fitted_table``: a table fits by shorter headers, then fewer columns, never a cut
cell; whole with no width."""

from __future__ import annotations

import pytest

from arena.cli.fitted_table import Column, fit, table_width

COLUMNS = (
    Column("bot", left=True),
    Column("matches", "n", drop=1),
    Column("95% interval", "95%", drop=2),
    Column("score"),
)
ROWS = [("heuristic_cautious", "120", "[24.68, 45.67]", "19.12"), ("random", "8", "[5.01, 7.29]",
        "-0.91")]  # fmt: skip


def test_whole_without_a_width_or_where_it_fits() -> None:
    for width in (None, 200):
        table = fit(COLUMNS, ROWS, width)
        assert table.lines[0].split() == ["bot", "matches", "95%", "interval", "score"]
        assert table.dropped == [] and table.note() is None


def test_shorter_headers_then_fewer_columns_never_a_cut_cell() -> None:
    short = fit(COLUMNS, ROWS, 47)
    assert short.lines[0].split() == ["bot", "n", "95%", "score"] and short.dropped == []
    narrow = fit(COLUMNS, ROWS, 36)
    assert narrow.lines[0].split() == ["bot", "n", "score"]
    assert narrow.dropped == ["95% interval"]
    assert narrow.note() == ("(not shown at this width: 95% interval; --wide shows every column)")
    assert all(len(line) <= 36 for line in narrow.lines)
    # Too narrow even for what is always shown: the cells run past the edge whole.
    tiny = fit(COLUMNS, ROWS, 10)
    assert tiny.dropped == ["95% interval", "matches"]
    assert "heuristic_cautious" in tiny.lines[1] and "19.12" in tiny.lines[1]
    assert not any("…" in line for line in tiny.lines)


def test_the_width_comes_from_columns_or_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert table_width() == 80 and table_width(wide=True) is None
    monkeypatch.delenv("COLUMNS")
    assert table_width() is None  # pytest's stdout is not a terminal: the table is whole


def test_a_table_without_rows_is_its_header() -> None:
    assert fit(COLUMNS, [], 80).lines == ["bot  matches  95% interval  score"]
    assert fit(COLUMNS, [], 10).lines == ["bot  score"]
