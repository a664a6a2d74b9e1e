"""The referee's sessions on grpcio's public API (``arena.referee.session``: ``grpc.aio`` on
the process's referee loop), real bot processes: the request frame, every deadline kept by the
session's one timer, a late answer never read while the seat goes on over a new stream, the end
of a session bounded against a bot that holds its stream open, and matches in play side by side,
all on the one loop. (A late answer under ``substitute``: ``tests/test_referee_session.py``.)"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol.messages import build_request
from arena.referee import ClockConfig, Termination, play_match, session, verify
from arena.referee.clock import SeatClock
from arena.referee.session import FIELDS, frame
from arena.rules import Match, RuleSet
from arena.rules.decisions import Decision
from arena.runtime import RunningBot, load_manifest, start_bot

BOTS = Path(__file__).resolve().parent / "bots"


def hostile(mode: str, **env: str) -> RunningBot:
    manifest = load_manifest(BOTS / "hostile")
    return start_bot(
        dataclasses.replace(
            manifest, env={**manifest.env, "HOSTILE_MODE": mode, "HOSTILE_SESSION": "1", **env}
        )
    )


@pytest.mark.parametrize("seq", [1, 127, 128, 16383, 16384, 3_000_000])
@pytest.mark.parametrize("size", [0, 5, 300, 20_000])
def test_a_frame_is_the_message_protobuf_makes(seq: int, size: int) -> None:
    for kind in (Decision.PLAY, "EndHand"):
        field = FIELDS[kind][0]
        request = (
            pb.PlayRequest(match_id="m" * size)
            if kind is Decision.PLAY
            else (pb.EndHandRequest(match_id="m" * size))
        )
        expected = pb.PlaySessionRequest(seq=seq, **{field: request}).SerializeToString()
        assert frame(kind, seq, request.SerializeToString()) == expected


def _request() -> tuple[Decision, bytes]:
    m = Match(1)
    decision = m.decision
    assert decision is not None and m.to_act is not None
    data = build_request(
        decision, "t" * 32, m.observation(m.to_act), (), SeatClock(ClockConfig())
    ).SerializeToString()
    return decision, data


def test_every_deadline_is_kept_and_a_late_answer_is_never_read() -> None:
    """A short deadline after a long one times out at its own time (the session's timer, set
    for the long one, is set again for it); the next request goes out on a new stream and gets
    its own answer, not the late one."""
    decision, data = _request()

    async def asks(bot: RunningBot) -> list[tuple[bool, float, object]]:
        stream = session.open_session(bot.channel, bot.target)
        got = []
        try:
            for timeout in (30.0, 0.2, 30.0, 30.0):
                t0 = time.monotonic()
                answer = await stream.ask(decision, data, timeout, pb.PlaySessionResponse)
                got.append((answer.timed_out, time.monotonic() - t0, answer.response))
        finally:
            await stream.close()
        return got

    # The bot sleeps for the request's move time (1 s) on every 2nd request.
    with hostile("slow", HOSTILE_SLOW_EVERY="2", HOSTILE_FRACTION="1.0") as bot:
        got = session.run(asks(bot))
    (
        (first_late, _, first),
        (second_late, second_s, _),
        (third_late, third_s, third),
        (
            fourth_late,
            _,
            fourth,
        ),
    ) = got
    assert not first_late and first is not None
    assert second_late and 0.2 <= second_s < 0.9  # its own deadline, not the 30 s one before it
    assert not third_late and third is not None and third_s < 0.9  # not behind the late one
    assert fourth_late is False and fourth is not None  # the 4th: slow (1 s), within 30 s


def test_the_end_of_a_session_is_bounded_when_the_bot_holds_its_stream() -> None:
    """A bot that keeps its side open after EndMatch is cancelled after ``CLOSE_WAIT_S``; the
    match is clean (EndMatch is a courtesy) and the next one plays as well."""
    with hostile("session_linger") as lingering, hostile("good") as good:
        t0 = time.monotonic()
        result = play_match(
            (lingering, good), seed=4, rules=RuleSet(max_hands=1), clock=ClockConfig()
        )
        first_s = time.monotonic() - t0
        again = play_match((good, lingering), seed=5, rules=RuleSet(max_hands=1))
    assert result.termination is Termination.HAND_LIMIT and result.faults == (0, 0)
    assert again.termination is Termination.HAND_LIMIT and again.faults == (0, 0)
    assert first_s < session.CLOSE_WAIT_S + 8, first_s  # not the bot's 30 s
    assert verify(result) and verify(again)


def test_matches_side_by_side_each_in_its_own_thread() -> None:
    """Four matches at once from four threads on the same two bots: all played on the one
    referee loop (each hand's end is told there), every answer to its own stream; all clean,
    all verified."""
    with hostile("good") as a, hostile("good") as b:
        results: list[object] = [None] * 4
        gate = threading.Barrier(4)
        told_in: set[str] = set()

        def one(i: int) -> None:
            gate.wait()
            results[i] = play_match(
                (a, b) if i % 2 else (b, a),
                seed=20 + i,
                rules=RuleSet(max_hands=2),
                on_hand=lambda _: told_in.add(threading.current_thread().name),
            )

        threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert told_in == {"arena-referee-loop"}
    for result in results:
        assert result is not None
        assert result.termination is Termination.HAND_LIMIT and result.faults == (0, 0)  # type: ignore[attr-defined]
        assert verify(result)  # type: ignore[arg-type]


def test_a_session_keeps_one_timer_for_all_its_deadlines() -> None:
    """A whole match (hundreds of requests, each with its deadline) sets each session's timer
    about once per move limit, not once per request: requests in order with the same limit keep
    the timer already set."""
    made: list[float] = []

    with hostile("good") as a, hostile("good") as b:
        loop = session.referee_loop()
        call_at = loop.call_at

        def counting(when: float, callback: object, *args: object, **kw: object) -> object:
            if getattr(callback, "__name__", "") == "_on_timer":
                made.append(when)
            return call_at(when, callback, *args, **kw)  # type: ignore[arg-type]

        loop.call_at = counting  # type: ignore[method-assign]
        try:
            t0 = time.monotonic()
            result = play_match((a, b), seed=8, rules=RuleSet(max_hands=2))
            seconds = time.monotonic() - t0
        finally:
            del loop.call_at
    assert result.termination is Termination.HAND_LIMIT and len(result.decisions) > 50
    # Two sessions, a first timer each, and one more each per move limit (1 s) that passed.
    assert len(made) <= 2 * (2 + seconds / ClockConfig().move_time_ms * 1000), (made, seconds)


@pytest.mark.parametrize("with_target", [True, False], ids=["session", "unary"])
def test_both_seats_are_told_of_a_hands_end_at_once(tmp_path: Path, with_target: bool) -> None:
    """Each bot's EndHand waits (up to 4 s) until the other bot has its own EndHand too: sent
    one seat after the other, seat 0's would wait for a request that comes only after its
    answer, fail, and forfeit the match. Both are on the wire before either answer is read, so
    every hand ends clean: over sessions (a connection with a target) and over unary calls
    (one without)."""
    from arena.bench.first_legal import FirstLegal
    from arena.runtime.channel import open_channel
    from arena.sdk.server import start
    from arena.sdk.view import HandEnd

    meeting = threading.Barrier(2, timeout=4.0)
    met: list[int] = []

    class Meeting(FirstLegal):
        def end_hand(self, end: HandEnd) -> None:
            met.append(meeting.wait())  # raises (an error status: a fault) if alone

    @dataclasses.dataclass
    class Connection:
        name: str
        channel: object

    @dataclasses.dataclass
    class Addressed(Connection):
        target: str

    servers = [start(Meeting(), f"unix:{tmp_path}/bot{i}.sock", handlers="threads") for i in (0, 1)]
    bots = [
        Addressed(f"meeting_{i}", open_channel(s.address), s.address)
        if with_target
        else Connection(f"meeting_{i}", open_channel(s.address))
        for i, s in enumerate(servers)
    ]
    try:
        result = play_match(
            (bots[0], bots[1]),  # type: ignore[arg-type]
            seed=3,
            rules=RuleSet(max_hands=2),
            clock=ClockConfig(move_time_ms=8000),
        )
    finally:
        for bot in bots:
            bot.channel.close()  # type: ignore[attr-defined]
        for server in servers:
            server.stop()
    assert result.faults == (0, 0), result.detail
    assert result.termination is Termination.HAND_LIMIT and result.hands_played == 2
    assert sorted(met) == [0, 0, 1, 1]  # two hands, both seats each time
    assert verify(result)
