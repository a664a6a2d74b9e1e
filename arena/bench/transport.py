"""``arena bench transport``: raw gRPC calls per second to bot processes on this machine.

Unary calls (one RPC per decision) by default; with ``--session``, the same requests as messages
on ``PlaySession`` streams, made as the referee makes them.

The baseline the referee is measured against (``arena bench referee``). The servers are the
benchmarks' bot (``arena.bench.first_legal``), started through the runtime like any bot: its own
process, the SDK's server, a Unix socket. The messages are those of real matches (``PLAN_SEEDS``,
each a different deal), serialized in advance and sent in order, each to its RPC and to the
seat's bot, as a referee would send them, with the same deadline: the StartMatch notices, the
decisions, each hand's EndHand notices, the EndMatch notices, and over sessions a new stream to
each bot per match, closed after its EndMatch. Each answer is parsed and nothing else is done;
the decisions are what is counted. So the only thing this leaves out is the referee's own work,
and the ratio of the two figures is what the referee costs on top of gRPC.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from arena.bench.first_legal import FirstLegal, manifest_dir
from arena.bot_protocol.messages import RPCS, SERVICE_NAME, build_request
from arena.referee.clock import ClockConfig, SeatClock
from arena.rules import Decision, Match
from arena.sdk.service import view_of

NOTICES = ("StartMatch", "EndHand", "EndMatch")
PLAN_SEEDS = tuple(range(1, 7))
"""The deals of the matches the transport benchmark replays, one after the other."""


@dataclass(frozen=True, slots=True)
class Call:
    """One request of a recorded match, ready to send: a decision, or a notice (``decision``
    is then its name, one of ``NOTICES``)."""

    seat: int
    decision: Decision | str
    data: bytes

    @property
    def counted(self) -> bool:
        """Whether it is a decision (what both benchmarks count), not a notice."""
        return isinstance(self.decision, Decision)


def match_calls(seed: int = 1, match_id: str = "bench-0123456789abcdef0123456789ab") -> list[Call]:
    """The requests of a match between two ``FirstLegal`` bots, in the referee's order."""
    from arena.bot_protocol.messages import end_hand_request, end_match_request, start_match_request
    from arena.referee.record import Termination
    from arena.rules.outcome import Termination as RulesTermination

    bot = FirstLegal()
    answer = {
        Decision.DOUBLE_NIL: bot.decide_double_nil,
        Decision.DRAW: bot.draw,
        Decision.EXCHANGE: bot.exchange,
        Decision.BID: bot.bid,
        Decision.PLAY: bot.play,
    }
    config = ClockConfig()
    clock = SeatClock(config)
    m = Match(seed)
    names = ("first_legal_0", "first_legal_1")
    calls = [
        Call(
            s,
            "StartMatch",
            start_match_request(match_id, s, m.rules, names[1 - s], config).SerializeToString(),
        )
        for s in (0, 1)
    ]
    while not m.is_over:
        seat, decision = m.to_act, m.decision
        assert seat is not None and decision is not None
        legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else ()
        request = build_request(decision, match_id, m.observation(seat), legal, clock)
        calls.append(Call(seat, decision, request.SerializeToString()))
        action: Any = answer[decision](view_of(decision, request))
        m.apply(tuple(sorted(action)) if decision is Decision.EXCHANGE else action)
        if decision is Decision.PLAY and m.decision is not Decision.PLAY:
            result = m.hand_results[-1]
            calls += [
                Call(s, "EndHand", end_hand_request(match_id, s, result).SerializeToString())
                for s in (0, 1)
            ]
    outcome = m.outcome
    assert outcome is not None
    calls += [
        Call(
            s,
            "EndMatch",
            end_match_request(
                match_id,
                s,
                outcome.winner,
                m.scores,
                len(m.hand_results),
                Termination.TARGET_REACHED
                if outcome.termination is RulesTermination.TARGET_REACHED
                else Termination.HAND_LIMIT,
                "",
            ).SerializeToString(),
        )
        for s in (0, 1)
    ]
    return calls


def match_plan(seeds: Sequence[int] = PLAN_SEEDS) -> list[list[Call]]:
    """The requests of the matches of ``seeds``, one list per match."""
    return [match_calls(seed, f"bench-{seed:027d}") for seed in seeds]


@contextmanager
def bench_bots(count: int = 2) -> Iterator[list[Any]]:
    """``count`` running benchmark bots, started through the runtime and stopped after."""
    from arena.runtime import load_manifest, start_bot

    with TemporaryDirectory(prefix="arena-bench-") as tmp:
        bots: list[Any] = []
        try:
            for i in range(count):
                bots.append(start_bot(load_manifest(manifest_dir(Path(tmp), f"first_legal_{i}"))))
            yield bots
        finally:
            for bot in bots:
                bot.stop()


def process_cpu_s(pids: Sequence[int]) -> float:
    """CPU time (user + system) used so far by the processes ``pids`` and the processes below
    them (a sandboxed bot's ``pid`` is its ``bwrap``, the bot a child of it), from /proc."""
    import os

    from arena.runtime.supervisor import descendants, process_table

    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    table = process_table()
    for pid in [p for root in pids for p in (root, *descendants(root, table))]:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


@contextmanager
def cpu_meter(bots: Sequence[Any], into: dict[str, Any], count: Any) -> Iterator[None]:
    """Record the CPU time per call of this process and of the bots' processes into ``into``.

    Wall-clock rates move with whatever else runs on the machine; CPU time per call says where
    the time goes (the arena's side or the bots') and is steadier."""
    pids = [bot.pid for bot in bots if getattr(bot, "pid", None)]
    own0, bots0 = time.process_time(), process_cpu_s(pids)
    yield
    own, served = time.process_time() - own0, process_cpu_s(pids) - bots0
    n = max(1, count())
    into["arena_cpu_us_per_call"] = round(own / n * 1e6, 1)
    into["bots_cpu_us_per_call"] = round(served / n * 1e6, 1) if pids else None


def _run_callers(
    concurrency: int, seconds: float, work: Any
) -> tuple[float, list[int], list[list[int]]]:
    """Run ``work(i, deadline, counts, latencies)`` in ``concurrency`` threads at once."""
    counts = [0] * concurrency
    latencies: list[list[int]] = [[] for _ in range(concurrency)]
    start = threading.Barrier(concurrency + 1)
    deadline = [0.0]

    def run(i: int) -> None:
        start.wait()
        work(i, deadline[0], counts, latencies[i])

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(concurrency)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    deadline[0] = t0 + seconds
    start.wait()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, counts, latencies


def measure_calls(
    bots: Sequence[Any],
    plan: Sequence[Sequence[Call]],
    *,
    concurrency: int,
    seconds: float,
    warm_up: bool = True,
) -> dict[str, Any]:
    """Decisions per second of ``concurrency`` callers cycling through the matches of
    ``plan``, each request a unary call (the notices too, not counted)."""
    timeout = ClockConfig().move_time_ms / 1000
    stubs = [
        {
            **{
                d: (bot.channel.unary_unary(rpc.path, _registered_method=True), rpc.response_type)
                for d, rpc in RPCS.items()
            },
            **{
                name: (
                    bot.channel.unary_unary(f"/{SERVICE_NAME}/{name}", _registered_method=True),
                    None,
                )
                for name in NOTICES
            },
        }
        for bot in bots
    ]
    steps = [[(stubs[c.seat][c.decision], c.data, c.counted) for c in match] for match in plan]

    def work(i: int, deadline: float, counts: list[int], latencies: list[int]) -> None:
        n = 0
        # Each caller starts with its own match of the plan, as concurrent matches would.
        at = i % len(steps)
        clock = time.perf_counter
        ns = time.perf_counter_ns
        while clock() < deadline:
            for (stub, response_type), data, counted in steps[at]:
                if not counted:
                    stub(data, timeout=timeout)
                    continue
                if clock() >= deadline:
                    break
                t0 = ns()
                response_type.FromString(stub(data, timeout=timeout))
                latencies.append(ns() - t0)
                n += 1
            at = at + 1 if at + 1 < len(steps) else 0
        counts[i] = n

    if warm_up:
        _run_callers(concurrency, min(0.5, seconds), work)
    cpu: dict[str, Any] = {}
    box: list[Any] = []
    with cpu_meter(bots, cpu, lambda: sum(box[0][1])):
        box.append(_run_callers(concurrency, seconds, work))
    return _calls_result(box[0], plan, concurrency, len(bots), cpu)


def measure_session_calls(
    bots: Sequence[Any],
    plan: Sequence[Sequence[Call]],
    *,
    concurrency: int,
    seconds: float,
    warm_up: bool = True,
) -> dict[str, Any]:
    """As ``measure_calls``, over ``PlaySession`` streams made as the referee makes them
    (``arena.referee.session``: ``concurrency`` callers as tasks on the referee loop, as its
    matches are): each match of ``plan`` on a new stream to each bot, closed after its
    EndMatch; each answer is read and checked to be the one asked."""
    import asyncio

    from arena._gen.spades.v1 import bot_pb2 as pb
    from arena.referee.session import SessionBroken, open_session, run

    timeout = ClockConfig().move_time_ms / 1000
    response = pb.PlaySessionResponse

    async def work(i: int, deadline: float, counts: list[int], latencies: list[int]) -> None:
        n = 0
        # Each caller starts with its own match of the plan, as concurrent matches would.
        at = i % len(plan)
        clock = time.perf_counter
        ns = time.perf_counter_ns
        while clock() < deadline:
            sessions = [open_session(bot.channel, bot.target) for bot in bots]
            try:
                for call in plan[at]:
                    if call.counted and clock() >= deadline:
                        break
                    t0 = ns()
                    answer = await sessions[call.seat].ask(
                        call.decision, call.data, timeout, response
                    )
                    if answer.response is None:
                        raise SessionBroken(None, f"the benchmark bot did not answer: {answer}")
                    if call.counted:
                        latencies.append(ns() - t0)
                        n += 1
            finally:
                await asyncio.gather(*(session.close() for session in sessions))
            at = at + 1 if at + 1 < len(plan) else 0
        counts[i] = n

    async def callers(span: float) -> tuple[float, list[int], list[list[int]]]:
        counts = [0] * concurrency
        latencies: list[list[int]] = [[] for _ in range(concurrency)]
        t0 = time.perf_counter()
        await asyncio.gather(
            *(work(i, t0 + span, counts, latencies[i]) for i in range(concurrency))
        )
        return time.perf_counter() - t0, counts, latencies

    if warm_up:
        run(callers(min(0.5, seconds)))
    cpu: dict[str, Any] = {}
    box: list[Any] = []
    with cpu_meter(bots, cpu, lambda: sum(box[0][1])):
        box.append(run(callers(seconds)))
    return _calls_result(box[0], plan, concurrency, len(bots), cpu)


def _calls_result(
    measured: tuple[float, list[int], list[list[int]]],
    plan: Sequence[Sequence[Call]],
    concurrency: int,
    servers: int,
    cpu: dict[str, Any],
) -> dict[str, Any]:
    elapsed, counts, latencies = measured
    flat = sorted(x for lat in latencies for x in lat)
    total = sum(counts)
    return {
        "calls_per_s": round(total / elapsed, 1),
        "concurrency": concurrency,
        "seconds": round(elapsed, 3),
        "calls": total,
        "servers": servers,
        "mean_request_bytes": round(
            statistics.fmean(len(c.data) for match in plan for c in match if c.counted), 1
        ),
        "latency_us": {
            "mean": round(statistics.fmean(flat) / 1000, 1) if flat else None,
            "p50": round(flat[len(flat) // 2] / 1000, 1) if flat else None,
            "p99": round(flat[int(len(flat) * 0.99)] / 1000, 1) if flat else None,
        },
        **cpu,
    }


def measure(concurrency: int = 1, seconds: float = 5.0, session: bool = False) -> dict[str, Any]:
    """Start two benchmark bots, measure unary calls (or session messages), stop them."""
    plan = match_plan()
    measure_kind = measure_session_calls if session else measure_calls
    with bench_bots(2) as bots:
        result = measure_kind(bots, plan, concurrency=concurrency, seconds=seconds)
    return {"benchmark": "transport", "kind": "session" if session else "unary", **result}


def describe(result: dict[str, Any]) -> str:
    lat = result["latency_us"]
    return (
        f"transport ({result.get('kind', 'unary')}): {result['calls_per_s']:.0f} decision "
        f"calls/s (the matches' notices sent too, not counted) with "
        f"{result['concurrency']} concurrent "
        f"caller(s) over {result['servers']} bot processes ({result['calls']} calls in "
        f"{result['seconds']:.1f} s; latency mean {lat['mean']} us, p50 {lat['p50']} us, "
        f"p99 {lat['p99']} us; requests {result['mean_request_bytes']:.0f} bytes on average)"
        f"\n  CPU per call: {result['arena_cpu_us_per_call']} us in this process, "
        f"{result['bots_cpu_us_per_call']} us in the bots"
    )
