"""A person's seat at a real referee against a real bot process, answered as a page would.

The table's match is played over real gRPC (the seat is served in-process, the opponent is the
`random` sample bot as a child process) and recorded in a real SQLite store; the answers come
through ``HumanSeat.answer`` exactly as the web's POST hands them on.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from arena.humanplay import AnswerRefused, TableError, Tables
from arena.humanplay.table import Table
from arena.referee import verify
from arena.referee.record import Termination
from arena.store import Store

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"


@pytest.fixture
def tables(tmp_path: Path) -> Any:
    store = Store.open(str(tmp_path / "arena.db"))
    t = Tables(store, {"random": SAMPLES / "random"}, sandbox="off")
    yield t
    t.close()
    store.close()


def _next_request(table: Table, after: int, timeout: float = 30.0) -> dict[str, Any] | None:
    """The next open request after state version ``after``; None once the match is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = table.state()
        if state["recorded"] or state["error"]:
            return None
        req = state["request"]
        if req is not None and req["seq"] > after:
            return req
        table.seat.wait_change(state["version"], 1.0)
    raise AssertionError("no request within the timeout")


def _answer_for(req: dict[str, Any]) -> Any:
    kind = req["kind"]
    if kind == "draw":
        return "keep"
    if kind == "double_nil":
        return "decline"
    if kind == "exchange":
        return []
    if kind == "bid":
        return 3
    return req["legal_cards"][0]


def _illegal_card(req: dict[str, Any]) -> str | None:
    return next((c for c in req["hand"] if c not in req["legal_cards"]), None)


def test_a_person_plays_a_whole_match_and_it_is_recorded(tables: Tables) -> None:
    table = tables.open("ada", "random", "one-hand", 30, 1)
    seq, refused_illegal = 0, False
    while (req := _next_request(table, seq)) is not None:
        seq = req["seq"]
        if req["kind"] == "play" and not refused_illegal and (bad := _illegal_card(req)):
            with pytest.raises(AnswerRefused, match=r"may not be played: .*\(R-4\.[35]\)"):
                table.seat.answer(seq, bad)
            refused_illegal = True
        if req["kind"] == "bid":
            with pytest.raises(AnswerRefused, match=r"R-3\.1"):
                table.seat.answer(seq, 14)
        table.seat.answer(seq, _answer_for(req))
        with pytest.raises(AnswerRefused, match="already answered"):
            table.seat.answer(seq, _answer_for(req))
    assert table.error is None
    assert refused_illegal
    result = table.result
    assert result is not None and result.termination is Termination.HAND_LIMIT
    assert result.faults == (0, 0)
    stored = tables.store.get_match(table.match_id)
    assert stored.summary.players[1].startswith("guest:ada")
    assert not stored.summary.rated
    verify(stored.result)  # replayable through the engine
    state = table.state()
    assert state["end"]["termination"] == "hand_limit" and len(state["hands"]) == 1


def test_a_stale_answer_is_refused_and_a_timeout_is_a_bots_fault(tables: Tables) -> None:
    table = tables.open("bo", "random", "one-hand", 5, 0, bank_s=1)
    req = _next_request(table, 0)
    assert req is not None
    assert req["clock"] == {"move_ms": 5000, "bank_ms": 1000}  # as a bot is told
    with pytest.raises(AnswerRefused, match="stale"):
        table.seat.answer(req["seq"] + 1, "keep")
    table.seat.answer(req["seq"], _answer_for(req))
    # No more answers: the referee's clock runs out as it would for a bot.
    deadline = time.monotonic() + 30
    while not table.state()["recorded"]:
        assert time.monotonic() < deadline and table.error is None
        time.sleep(0.1)
    result = table.result
    assert result is not None
    assert result.termination is Termination.FORFEIT_TIMEOUT and result.winner == 1
    with pytest.raises(AnswerRefused, match="already answered"):
        table.seat.answer(req["seq"], "keep")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("x", "nobody", "one-hand", 60, 0), "unknown opponent"),
        (("x", "random", "forever", 60, 0), "unknown rule set"),
        (("x", "random", "one-hand", 1, 0), "5 to 600 seconds"),
        (("a@b", "random", "one-hand", 60, 0), "no '@'"),
        (("x", "random", "one-hand", 60, 2), "seat is 0 or 1"),
    ],
)
def test_a_choice_not_offered_is_refused(tables: Tables, args: Any, message: str) -> None:
    with pytest.raises(TableError, match=message):
        tables.open(*args)


def test_double_nil_and_its_exchange_are_checked_before_the_referee(tables: Tables) -> None:
    table = tables.open("cy", "random", "one-hand", 30, 0)
    seq, exchanged = 0, False
    while (req := _next_request(table, seq)) is not None:
        seq = req["seq"]
        if req["kind"] == "double_nil":
            with pytest.raises(AnswerRefused, match=r"R-3\.3"):
                table.seat.answer(seq, "maybe")
            table.seat.answer(seq, "declare")
            continue
        if req["kind"] == "exchange":
            hand = req["hand"]
            assert req["max_cards"] == 3
            with pytest.raises(AnswerRefused, match=r"at most 3 cards \(R-3\.4\)"):
                table.seat.answer(seq, hand[:4])
            outside = next(c for c in ("As", "Kh", "2c", "3d", "4s") if c not in hand)
            with pytest.raises(AnswerRefused, match=r"of your own hand, each once \(R-3\.4\)"):
                table.seat.answer(seq, [outside])
            with pytest.raises(AnswerRefused, match=r"each once"):
                table.seat.answer(seq, [hand[0], hand[0]])
            table.seat.answer(seq, hand[:2])
            exchanged = True
            continue
        if req["kind"] == "draw":  # one card kept and one discarded a turn
            assert len(req["own_discards"]) == len(req["hand"])
        table.seat.answer(seq, _answer_for(req))
    assert exchanged and table.result is not None and table.result.faults == (0, 0)
    stored = tables.store.get_match(table.match_id)
    rebuilt = verify(stored.result)
    assert rebuilt.hand_results[0].double_nil[0]


@pytest.mark.slow
def test_the_play_benchmark_runs_people_over_http() -> None:
    from arena.bench.humanplay import describe, measure_play

    result = measure_play(clients=5, think_ms=5, bot_window_s=2)
    assert result["ends"] == {"hand_limit": 5}
    assert result["answers"] >= 5 * 26  # 13 draws and 13 plays a person at least
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["max_ms"]
    bots = result["bot_matches"]
    assert bots["before_per_s"] > 0 and bots["after_per_s"] > 0 and bots["ratio"] > 0
    assert result["opponent_processes"] == 1  # five tables, one shared `random` process
    text = describe(result)
    assert "5 people at once" in text and "bot matches beside them" in text


def test_a_finished_table_is_forgotten_after_its_keep_time(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "arena.db"))
    tables = Tables(store, {"random": SAMPLES / "random"}, sandbox="off", keep_s=0.0)
    try:
        table = tables.open("di", "random", "one-hand", 5, 0)
        assert table.thread is not None
        table.thread.join(timeout=30)  # nobody answers: the person's clock runs out
        assert table.result is not None and table.finished_at is not None
        assert tables.get(table.table_id) is table
        tables.open("di", "random", "one-hand", 5, 0)  # opening prunes what ended
        assert tables.get(table.table_id) is None
    finally:
        tables.close()
        store.close()


def test_beat_the_bot_plays_the_same_deal_with_the_reference_in_the_persons_seat(
    tmp_path: Path,
) -> None:
    store = Store.open(str(tmp_path / "arena.db"))
    tables = Tables(
        store, {"random": SAMPLES / "random"}, sandbox="off", reference=SAMPLES / "heuristic"
    )
    try:
        table = tables.open("ed", "random", "one-hand", 30, 1, compare=True)
        assert _next_request(table, 0) is not None  # the person's match waits on the person
        deadline = time.monotonic() + 60
        while not table.reference_hands and time.monotonic() < deadline:
            time.sleep(0.05)
        assert table.reference_hands  # the reference has played the person's deal...
        time.sleep(0.5)
        # ...and its record, which shows that deal whole, is kept back while the person plays.
        assert store.list_matches() == [] and table.state()["reference"]["match_id"] is None
        seq = 0
        while (req := _next_request(table, seq)) is not None:
            seq = req["seq"]
            table.seat.answer(seq, _answer_for(req))
        assert table.thread is not None
        table.thread.join(timeout=60)
        ref = table.state()["reference"]
        assert ref["error"] is None and ref["bot"] == "heuristic"
        assert ref["match_id"] is not None and len(ref["hands"]) == 1
        stored = store.get_match(ref["match_id"])
        person = store.get_match(table.match_id)
        assert (
            stored.result.seed == person.result.seed and stored.result.rules == person.result.rules
        )
        assert stored.summary.players[1].startswith("heuristic")  # the person's seat
        assert stored.summary.players[0].split("@")[0] == person.summary.players[0].split("@")[0]
        assert not stored.summary.rated
        rebuilt = verify(stored.result)
        assert ref["hands"][0]["points"] == rebuilt.hand_results[0].points[1]
        with pytest.raises(TableError, match="no reference bot"):
            Tables(store, {"random": SAMPLES / "random"}).open(
                "ed", "random", "one-hand", 30, 1, compare=True
            )
    finally:
        tables.close()
        store.close()


def test_closing_the_tables_waits_a_bounded_time(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "arena.db"))
    tables = Tables(store, {"random": SAMPLES / "random"}, sandbox="off")
    try:
        table = tables.open("fa", "random", "one-hand", 5, 0)
        assert _next_request(table, 0) is not None  # the match waits on its person
        t0 = time.monotonic()
        tables.close(wait_s=0.5)
        assert time.monotonic() - t0 < 3
        assert table.state()["request"] is not None and table.result is None
        # The person's clock still runs: the referee ends the match as it would for a bot.
        assert table.thread is not None
        table.thread.join(timeout=30)
        assert table.result is not None
        assert table.result.termination is Termination.FORFEIT_TIMEOUT
    finally:
        store.close()


def test_tables_share_their_opponents_processes_by_lane(tmp_path: Path) -> None:
    """One `random` process serves many matches at once (lane 0); a twin's opponent is on lane
    1 and a reference bot that is the opponent itself on lane 2: no process plays both
    seatings of a deal (arena.tournament.lanes). A dead process is replaced at the next lease."""
    from arena.humanplay.pool import BotPool, twin_lanes

    random_dir = SAMPLES / "random"
    assert twin_lanes(SAMPLES / "expert", random_dir) == (0, 1)
    assert twin_lanes(random_dir, random_dir) == (2, 1)
    pool = BotPool(sandbox="off", matches_per_process=2)
    try:
        a, b = pool.lease(random_dir, 0), pool.lease(random_dir, 0)
        assert a._proc is b._proc and pool.processes() == 1
        c = pool.lease(random_dir, 0)  # the first is full (2 matches): a second process
        twin = pool.lease(random_dir, 1)
        assert len({id(x._proc) for x in (a, c, twin)}) == 3 and pool.started == 3
        a.release()
        assert pool.lease(random_dir, 0)._proc is b._proc  # room again on the first
        c._proc.bot.stop()  # dies: not leased again, replaced by a new one
        c.release()
        d = pool.lease(random_dir, 0)
        e = pool.lease(random_dir, 0)
        assert d._proc.bot.alive() and e._proc.bot.alive() and pool.started == 4
    finally:
        pool.close()
    with pytest.raises(RuntimeError, match="the bot pool is closed"):
        pool.lease(random_dir, 0)


def test_an_answer_says_the_version_it_made_and_the_next_request_comes_after_it(
    tables: Tables,
) -> None:
    """The referee asks in this process and may ask the next request before ``answer``
    returns: the version it returns is its own (just after the answer), so a page that waits
    for a change after it never waits past that next request."""
    table = tables.open("ve", "random", "one-hand", 60, 0)
    req = _next_request(table, 0)
    assert req is not None
    before = table.state()["version"]
    made = table.seat.answer(req["seq"], _answer_for(req))
    assert made == before + 1
    nxt = _next_request(table, req["seq"])
    assert nxt is not None and nxt["seq"] == req["seq"] + 1
    assert table.state()["version"] > made
    table.seat.stop()  # not left waiting on its 60 s clock at the fixture's close


def test_a_seat_stopped_with_a_request_open_is_answered_as_closed_not_left_to_its_clock(
    tables: Tables,
) -> None:
    """Stopping a seat answers its open request as a closed seat (an error status, the fault a
    bot's would be) at once; the referee does not wait for the 60 s clock, and the seat is
    asked nothing more (every later request is refused the same way until the match ends)."""
    table = tables.open("st", "random", "one-hand", 60, 0)
    assert _next_request(table, 0) is not None
    t0 = time.monotonic()
    table.seat.stop()
    assert table.thread is not None
    table.thread.join(timeout=30)
    assert time.monotonic() - t0 < 20
    result = table.result
    assert result is not None and result.winner == 1
    assert result.faults[0] >= 1 and "the seat was closed" in result.detail
