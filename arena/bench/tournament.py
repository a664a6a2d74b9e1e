"""``arena bench tournament``: a real round robin of the sample bots at K = 1, 2 and 4.

Each run is a fresh tournament on a scratch SQLite file, played by the tournament runner as
``arena tournament run`` plays it: bot processes started once, K matches at a time over gRPC,
every result recorded as it ends. Timing starts once the bots are up (the reporter's ``start``)
and ends when the last result is recorded. The arena process's own CPU time (all its threads,
``getrusage(RUSAGE_SELF)``) is reported per match and per decision, so what the arena itself
costs as the work grows is visible beside the bots' CPU (``RUSAGE_CHILDREN``, counted once the
bot processes have exited, start-up included).
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ratings import Rater, conservative_score
from arena.store import Store
from arena.tournament import (
    DEFAULT_DEALS,
    DealMode,
    TournamentSettings,
    create_tournament,
    run_tournament,
    tournament_records,
)
from arena.tournament.entrants import sample_bot_dirs, sample_bot_unavailable
from arena.tournament.standings import GameRecord, rate_in_order

BENCH_BOTS = ("random", "heuristic", "cautious", "node_random")
RAY_BENCH_BOTS = ("random", "heuristic", "cautious")
"""On Ray, bots run from their own unpacked archive: node_random, which loads the proto file of
the source checkout from outside its directory, cannot run there."""


class _Timer:
    """A reporter that notes the clock and CPU usage when play starts and when it stops."""

    def __init__(self) -> None:
        self.t0 = self.t1 = 0.0
        self.self0 = self.self1 = self.children0 = self.children1 = 0.0

    @staticmethod
    def _cpu(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    def start(self, tournament_id: int, bots: Sequence[str], done: int, total: int) -> None:
        self.t0 = time.perf_counter()
        self.self0 = self._cpu(resource.RUSAGE_SELF)

    def bot_failed(self, bot: str, reason: str) -> None:
        raise ArenaError(f"benchmark bot {bot} could not start: {reason}")

    def match_done(self, game: GameRecord) -> None:
        self.t1 = time.perf_counter()
        self.self1 = self._cpu(resource.RUSAGE_SELF)

    def stop(self) -> None:
        self.children1 = self._cpu(resource.RUSAGE_CHILDREN)


def bench_bots(names: Sequence[str] = BENCH_BOTS) -> tuple[list[Path], list[str]]:
    """The four sample bots of the benchmark, and a note for any that cannot run here."""
    samples = sample_bot_dirs()
    dirs, notes = [], []
    for name in names:
        path = samples.get(name)
        why = "not found" if path is None else sample_bot_unavailable(path)
        if why is None and path is not None:
            dirs.append(path)
        else:
            notes.append(f"{name} left out: {why}")
    if len(dirs) < 2:
        raise ArenaError("the benchmark needs the sample bots of a source checkout")
    return dirs, notes


def run_once(
    bots: list[Path],
    concurrency: int,
    games: int,
    seed: int,
    move_timeout_ms: int,
    executor: Any = None,
    deals: DealMode = DEFAULT_DEALS,
) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp,
        Store.open(str(Path(tmp) / "bench.db")) as store,
    ):
        tid = create_tournament(
            store,
            TournamentSettings(
                bots=[str(b) for b in bots],
                games=games,
                concurrency=concurrency,
                seed=seed,
                move_timeout_ms=move_timeout_ms,
                deals=deals,
            ),
        )
        timer = _Timer()
        timer.children0 = _Timer._cpu(resource.RUSAGE_CHILDREN)
        standings = run_tournament(store, tid, reporter=timer, executor=executor)
        matches = store.list_matches(tournament_id=tid)
    decisions = sum(m.decision_count for m in matches)
    faults = sum(sum(m.faults) for m in matches)
    seconds = timer.t1 - timer.t0
    arena_cpu = timer.self1 - timer.self0
    bots_cpu = timer.children1 - timer.children0
    n = standings.played
    return {
        "concurrency": concurrency,
        "matches": n,
        "decisions": decisions,
        "faults": faults,
        "seconds": round(seconds, 3),
        "matches_per_s": round(n / seconds, 3),
        "decisions_per_s": round(decisions / seconds, 1),
        "arena_cpu_s": round(arena_cpu, 3),
        "arena_cpu_ms_per_match": round(1000 * arena_cpu / n, 2),
        "arena_cpu_us_per_decision": round(1e6 * arena_cpu / decisions, 1),
        "arena_cpu_share": round(arena_cpu / seconds, 3),
        # On Ray the bots are not this process's children: their CPU is not seen here.
        "bots_cpu_s": round(bots_cpu, 3) if executor is None else None,
    }


def measure(
    concurrency: Sequence[int] = (1, 2, 4),
    games: int = 1,
    seed: int = 1,
    move_timeout_ms: int = 2000,
    deals: DealMode = DEFAULT_DEALS,
) -> dict[str, Any]:
    bots, notes = bench_bots()
    runs = [run_once(bots, k, games, seed, move_timeout_ms, deals=deals) for k in concurrency]
    return {
        "bots": [b.name for b in bots],
        "notes": notes,
        "games_per_pair": games,
        "deals": deals.value,
        "seed": seed,
        "move_timeout_ms": move_timeout_ms,
        "runs": runs,
    }


def measure_ray(
    concurrency: int = 2,
    games: int = 1,
    seed: int = 1,
    move_timeout_ms: int = 2000,
    address: str | None = None,
    local_nodes: Sequence[int] = (1, 2),
    cpus_per_node: int = 2,
    worker_cpus: float = 2.0,
) -> dict[str, Any]:
    """The same round robin with its matches on Ray: on the cluster at ``address``, or on a
    throwaway cluster of 1, 2… nodes on this machine (started and stopped here), each after a
    local run at the same K for the ratio. K is matches at once per worker."""
    from arena.distributed import ray_executor_factory
    from arena.distributed.cluster import local_cluster, stop_local_cluster
    from arena.distributed.executor import wait_for_nodes

    bots, notes = bench_bots(RAY_BENCH_BOTS)
    runs = [{"where": "local", **run_once(bots, concurrency, games, seed, move_timeout_ms)}]
    targets: list[tuple[str, int | None]] = (
        [(address, None)] if address else [("local cluster", n) for n in local_nodes]
    )
    for target, nodes in targets:
        cluster = None
        try:
            if nodes is not None:
                cluster = local_cluster(nodes, cpus_per_node=cpus_per_node)
                target = cluster.address
            factory, made = ray_executor_factory(target, worker_cpus=worker_cpus)
            if nodes is not None:
                wait_for_nodes(nodes)
            run = run_once(bots, concurrency, games, seed, move_timeout_ms, executor=factory)
            counts = made[0].node_counts()
            runs.append(
                {
                    "where": f"ray, {len(counts)} node{'s' if len(counts) != 1 else ''}",
                    "nodes": len(counts),
                    "workers": sum(c["workers"] for c in counts),
                    "per_node": counts,
                    **run,
                }
            )
        finally:
            if cluster is not None:
                stop_local_cluster(cluster)
    return {
        "bots": [b.name for b in bots],
        "notes": notes,
        "games_per_pair": games,
        "seed": seed,
        "move_timeout_ms": move_timeout_ms,
        "concurrency_per_worker": concurrency,
        "worker_cpus": worker_cpus,
        "runs": runs,
    }


def describe_ray(result: dict[str, Any]) -> str:
    lines = [
        f"round robin of {', '.join(result['bots'])}: {result['games_per_pair']} deal seeds per "
        f"pair, both seatings, seed {result['seed']}; K={result['concurrency_per_worker']} "
        "matches at once per worker (local: in all)",
        *result["notes"],
        f"{'where':<16} {'workers':>7} {'matches':>7} {'s':>7} {'matches/s':>9} "
        f"{'coordinator CPU/match':>21} {'coordinator CPU share':>21}",
    ]
    for r in result["runs"]:
        lines.append(
            f"{r['where']:<16} {r.get('workers', '-'):>7} {r['matches']:>7} {r['seconds']:>7.2f} "
            f"{r['matches_per_s']:>9.2f} {r['arena_cpu_ms_per_match']:>18.1f} ms "
            f"{100 * r['arena_cpu_share']:>20.0f}%"
        )
    return "\n".join(lines)


def describe(result: dict[str, Any]) -> str:
    lines = [
        f"round robin of {', '.join(result['bots'])}: {result['games_per_pair']} deal seeds per "
        f"pair, both seatings, {result['deals']} deals, seed {result['seed']}",
        *result["notes"],
        f"{'K':>2} {'matches':>7} {'decisions':>9} {'s':>7} {'matches/s':>9} "
        f"{'decisions/s':>11} {'arena CPU/match':>15} {'arena CPU/decision':>18} "
        f"{'arena CPU share':>15} {'bots CPU':>8}",
    ]
    for r in result["runs"]:
        lines.append(
            f"{r['concurrency']:>2} {r['matches']:>7} {r['decisions']:>9} {r['seconds']:>7.2f} "
            f"{r['matches_per_s']:>9.2f} {r['decisions_per_s']:>11,.0f} "
            f"{r['arena_cpu_ms_per_match']:>12.1f} ms {r['arena_cpu_us_per_decision']:>15.1f} us "
            f"{100 * r['arena_cpu_share']:>14.0f}% {r['bots_cpu_s']:>7.1f}s"
        )
    return "\n".join(lines)


# -- how many matches the leaderboard needs ---------------------------------------------------

ORDER_BOTS = ("heuristic", "cautious", "random")
"""Sample bots of known, different strength, strongest first: the order to find."""


def _order_at(records: list[GameRecord], names: list[str], rater: Rater) -> list[str]:
    ratings = rate_in_order(len(names), records, rater)
    ranked = sorted(range(len(names)), key=lambda i: (-conservative_score(*ratings[i]), names[i]))
    return [names[i] for i in ranked]


def matches_needed(
    records: list[GameRecord], names: list[str], expected: list[str], rater: Rater, step: int = 2
) -> tuple[int | None, list[bool]]:
    """The first prefix (in schedule order, every ``step`` matches) from which the leaderboard
    shows ``expected`` and keeps showing it to the end; None if it is wrong at the end. Also
    whether it was right at each checkpoint."""
    checkpoints = range(step, len(records) + 1, step)
    right = [_order_at(records[:m], names, rater) == expected for m in checkpoints]
    needed = None
    for m, ok in zip(reversed(checkpoints), reversed(right), strict=True):
        if not ok:
            break
        needed = m
    return needed, right


def measure_ordering(
    rounds: int = 8,
    tournaments: int = 6,
    first_seed: int = 100,
    concurrency: int = 2,
    move_timeout_ms: int = 2000,
) -> dict[str, Any]:
    """Real round robins of heuristic, cautious and random, with duplicate and with independent
    deals on the same tournament seeds; after every duplicate pair (2 matches) in schedule order,
    is the leaderboard's order right?"""
    samples = sample_bot_dirs()
    missing = [n for n in ORDER_BOTS if n not in samples]
    if missing:
        raise ArenaError(f"the benchmark needs the sample bots {', '.join(missing)}")
    # A tie is broken by name (cautious, heuristic, random): it never looks like the answer.
    bots = [samples[n] for n in reversed(ORDER_BOTS)]
    expected = list(ORDER_BOTS)
    out: dict[str, Any] = {
        "bots": expected,
        "rounds": rounds,
        "matches_per_tournament": rounds * 6,
        "tournament_seeds": list(range(first_seed, first_seed + tournaments)),
        "concurrency": concurrency,
        "modes": {},
    }
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp,
        Store.open(str(Path(tmp) / "bench.db")) as store,
    ):
        rater = Rater(store.rating_config)
        for mode in (DealMode.DUPLICATE, DealMode.INDEPENDENT):
            needed_all: list[int | None] = []
            right_all: list[list[bool]] = []
            final_orders: list[list[str]] = []
            for seed in out["tournament_seeds"]:
                tid = create_tournament(
                    store,
                    TournamentSettings(
                        bots=[str(b) for b in bots],
                        games=rounds,
                        concurrency=concurrency,
                        seed=seed,
                        move_timeout_ms=move_timeout_ms,
                        deals=mode,
                    ),
                )
                run_tournament(store, tid)
                _, config, records, _ = tournament_records(store, tid)
                needed, right = matches_needed(records, config.names, expected, rater)
                needed_all.append(needed)
                right_all.append(right)
                final_orders.append(_order_at(records, config.names, rater))
            settled = sorted(n for n in needed_all if n is not None)
            out["modes"][mode.value] = {
                "matches_needed": needed_all,
                "median_matches_needed": statistics.median(
                    [n if n is not None else float("inf") for n in needed_all]
                ),
                "mean_matches_needed_settled": (
                    round(statistics.mean(settled), 1) if settled else None
                ),
                "wrong_at_end": sum(1 for n in needed_all if n is None),
                "final_orders": final_orders,
                "share_right_by_matches": {
                    str(2 * (i + 1)): round(sum(r[i] for r in right_all) / len(right_all), 3)
                    for i in range(len(right_all[0]))
                },
            }
    return out


def describe_ordering(result: dict[str, Any]) -> str:
    lines = [
        f"leaderboard order {' > '.join(result['bots'])}: {len(result['tournament_seeds'])} "
        f"round robins of {result['matches_per_tournament']} matches per deal mode "
        f"(seeds {result['tournament_seeds'][0]}..{result['tournament_seeds'][-1]}, "
        f"K={result['concurrency']})",
    ]
    for mode, r in result["modes"].items():
        needed = ", ".join("-" if n is None else str(n) for n in r["matches_needed"])
        lines.append(
            f"{mode:>11}: matches needed per tournament [{needed}]; median "
            f"{r['median_matches_needed']}, mean of settled {r['mean_matches_needed_settled']}, "
            f"wrong at the end {r['wrong_at_end']}"
        )
        shares = r["share_right_by_matches"]
        lines.append(
            " " * 13
            + "share right after m matches: "
            + "  ".join(f"{m}:{100 * v:.0f}%" for m, v in shares.items())
        )
    return "\n".join(lines)


# -- a simulated cluster: the coordinator alone, as the nodes grow ----------------------------

NODE_MATCHES_PER_S = 0.41
"""Matches a second of one real 2-CPU node, for matches of ~1,200 decisions at the default
clock (docs/distributed.md, measured with ``arena bench tournament --ray local``)."""


def _recorded_match(bots: list[Path], move_timeout_ms: int) -> Any:
    """One real match of the sample bots, played here and read back from the store."""
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp,
        Store.open(str(Path(tmp) / "rec.db")) as store,
    ):
        tid = create_tournament(
            store,
            TournamentSettings(bots=[str(b) for b in bots[:2]], games=1, concurrency=2, seed=7,
                               move_timeout_ms=move_timeout_ms),
        )  # fmt: skip
        run_tournament(store, tid)
        first = store.list_matches(tournament_id=tid)[0]
        return store.get_match(first.match_id).result


def measure_simulated(
    nodes: Sequence[int] = (10, 100, 1000),
    node_rate: float = NODE_MATCHES_PER_S,
    per_node: int = 2,
    seconds: float = 30.0,
    actors: int = 4,
    seed: int = 1,
    move_timeout_ms: int = 2000,
    max_matches: int = 1200,
) -> dict[str, Any]:
    """For each N: a tournament on a real one-node Ray cluster on loopback whose ``actors``
    simulated workers stand for N nodes of ``per_node`` matches at once, each match lasting
    ``per_node / node_rate`` s, so results arrive at N * node_rate a second when the coordinator
    keeps up. The run is sized to last about ``seconds`` at that rate."""
    import ray

    from arena.distributed.cluster import connect, local_cluster, stop_local_cluster
    from arena.distributed.executor import RayExecutor
    from arena.distributed.simulated import SimulatedWorker

    bots, notes = bench_bots(RAY_BENCH_BOTS)
    recorded = _recorded_match(bots, move_timeout_ms)
    runs = []
    cluster = local_cluster(1, cpus_per_node=2)
    try:
        connect(cluster.address)
        for n in nodes:
            target = n * node_rate
            pairs = len(bots) * (len(bots) - 1) // 2
            games = max(2, min(round(target * seconds), max_matches) // (2 * pairs))
            in_flight = n * per_node
            k = max(1, -(-in_flight // actors))

            def factory(concurrency: int, stop: Any, k: int = k) -> RayExecutor:
                return RayExecutor(
                    k, stop, simulate=(SimulatedWorker, (recorded, per_node / node_rate), actors)
                )

            run = run_once(bots, k, games, seed, move_timeout_ms, executor=factory)
            # Had the coordinator kept up, the run would take its waves of ``in_flight`` matches
            # of per_node / node_rate s each (the first results arrive only after one).
            ideal = -(-run["matches"] // (k * actors)) * per_node / node_rate
            share = ideal / run["seconds"]
            runs.append({
                "simulated_nodes": n, "target_matches_per_s": round(target, 2),
                "in_flight": k * actors, **run, "ideal_seconds": round(ideal, 2),
                "share_of_ideal": round(share, 3), "keeps_up": share >= 0.9,
            })  # fmt: skip
    finally:
        ray.shutdown()
        stop_local_cluster(cluster)
    saturated = saturated_at(runs)
    return {
        "bots": [b.name for b in bots],
        "notes": notes,
        "recorded_match": {
            "decisions": len(recorded.decisions),
            "hands": recorded.hands_played,
        },
        "node_matches_per_s": node_rate,
        "per_node": per_node,
        "store": "SQLite scratch file, one transaction per result (the coordinator's recording)",
        "runs": runs,
        "first_saturated_at": saturated,
    }


def saturated_at(runs: Sequence[dict[str, Any]]) -> int | None:
    """The fewest simulated nodes at which the coordinator was saturated, or None.

    A run that took longer than its ideal (``keeps_up`` false) is not enough: a short run also
    pays the tournament's start and its last results, so the smallest size falls a little short
    of its ideal even when the coordinator is idle most of the time. A run is saturated when it
    fell short and either a larger one recorded no faster (within 1/0.9: the coordinator's
    rate stopped growing with the nodes), or, with no larger run to tell, it recorded under
    half of what its nodes sent."""
    ordered = sorted(runs, key=lambda x: x["simulated_nodes"])
    for i, x in enumerate(ordered):
        if x["keeps_up"]:
            continue
        later = ordered[i + 1 :]
        if later:
            if max(y["matches_per_s"] for y in later) <= x["matches_per_s"] / 0.9:
                return int(x["simulated_nodes"])
        elif x["matches_per_s"] < 0.5 * x["target_matches_per_s"]:
            return int(x["simulated_nodes"])
    return None


def describe_simulated(r: dict[str, Any]) -> str:
    lines = [
        f"simulated nodes on a one-node loopback Ray cluster: each node {r['per_node']} matches "
        f"at once, {r['node_matches_per_s']} matches/s; every result a recorded real match of "
        f"{r['recorded_match']['decisions']} decisions ({r['recorded_match']['hands']} hands); "
        f"store: {r['store']}",
        f"{'nodes':>6} {'target/s':>9} {'matches':>7} {'s':>7} {'matches/s':>9} "
        f"{'coordinator CPU/match':>21} {'coordinator CPU share':>21} {'ideal s':>7} "
        f"{'keeps up':>8}",
    ]
    for x in r["runs"]:
        lines.append(
            f"{x['simulated_nodes']:>6} {x['target_matches_per_s']:>9.1f} {x['matches']:>7} "
            f"{x['seconds']:>7.1f} {x['matches_per_s']:>9.2f} "
            f"{x['arena_cpu_ms_per_match']:>18.1f} ms {100 * x['arena_cpu_share']:>20.0f}% "
            f"{x['ideal_seconds']:>7.1f} {'yes' if x['keeps_up'] else 'no':>8}"
        )
    sat = r["first_saturated_at"]
    short = [x["simulated_nodes"] for x in r["runs"] if not x["keeps_up"]]
    if sat is not None:
        top = max(x["matches_per_s"] for x in r["runs"])
        lines.append(
            f"saturated at {sat} simulated nodes: the coordinator records at most {top:.2f} "
            f"matches/s, what about {top / r['node_matches_per_s']:.0f} nodes send"
        )
    elif short:
        lines.append(
            "not saturated: short of the ideal time at "
            + ", ".join(str(n) for n in short)
            + " simulated nodes, but a larger size recorded faster (or the shortfall is the "
            "run's start and end, not the coordinator's rate)"
        )
    else:
        lines.append("the coordinator keeps up at every size")
    return "\n".join(lines)
