"""``arena bench …``: benchmarks that print figures (one JSON object with ``--json``)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Benchmarks: print measured figures.", no_args_is_help=True)


@app.command("engine")
def engine(
    seconds: float = typer.Option(
        5.0, "--seconds", help="Time to measure (each side on average: the run takes about 4x)."
    ),
    seed: int = typer.Option(0, "--seed", help="First match seed and the players' RNG seed."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
    compare_openspiel: bool = typer.Option(
        False, "--compare-openspiel", help="Also time OpenSpiel's spades in the same run."
    ),
) -> None:
    """Random legal self-play through the engine's API: decisions and hands per second."""
    import json

    from arena.bench.engine import describe, measure

    result = measure(seconds=seconds, seed=seed, compare_openspiel=compare_openspiel)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("analysis")
def analysis(
    deals: int = typer.Option(1000, "--deals", help="Random deals whose first lead is solved."),
    matches: int = typer.Option(5, "--matches", help="13-hand matches analysed, every play."),
    seed: int = typer.Option(0, "--seed", help="First deal seed and the RNG's seed."),
    python_deals: int = typer.Option(
        20, "--python-deals", help="Deals also solved by the Python search, for the ratio."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """The double-dummy solver: median and worst time of a 13-trick position, and of a match."""
    import json

    from arena.bench.analysis import describe, measure

    if deals < 1 or matches < 0 or python_deals < 0:
        raise typer.BadParameter("--deals must be at least 1, --matches and --python-deals 0+")
    result = measure(deals=deals, matches=matches, seed=seed, python_deals=python_deals)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("analysis-worker")
def analysis_worker(
    db: str = typer.Argument(..., help="A SQLite file with recorded, unanalysed matches."),
    rounds: int = typer.Option(2, "--rounds", help="ABBA rounds (each: one turn off, one on)."),
    games: int = typer.Option(10, "--games", "-n", help="Deal seeds of each turn's tournament."),
    k: int = typer.Option(2, "--concurrency", "-k", help="Matches at once."),
    max_load: float | None = typer.Option(
        None,
        "--max-load",
        help="The worker waits at this 1-minute load (default: the CPUs; inf: never waits).",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Matches/s of a tournament with the background analysis worker on, over off."""
    import json

    from arena.bench.analysis_worker import describe, measure

    result = measure(db, rounds=rounds, games=games, k=k, max_load=max_load)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("card-play-loss")
def card_play_loss(
    db: str | None = typer.Option(None, "--db", help="The database of the recorded matches."),
    against: str = typer.Option("heuristic", "--against", help="The reference bot's name."),
    tournament: list[int] = typer.Option(  # noqa: B008
        [], "--tournament", help="Only these tournaments (repeatable)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Card-play loss of each bot against a reference, and matches needed by it and by wins."""
    import json

    from arena.bench.card_play_loss import describe, measure

    result = measure(db, against, tournament or None)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("envs")
def envs(
    seconds: float = typer.Option(
        5.0, "--seconds", help="Time to measure (each side on average: the run takes about 4x)."
    ),
    seed: int = typer.Option(0, "--seed", help="First match seed and the players' RNG seed."),
    max_hands: int = typer.Option(200, "--max-hands", help="Hand limit of a match (R-6.3)."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """PettingZoo steps/s and OpenSpiel random-simulation steps/s beside the engine's
    decisions/s, in one run (needs the research extra)."""
    import json

    from arena.bench.envs import describe, measure
    from arena.rules import RuleSet

    result = measure(seconds=seconds, seed=seed, rules=RuleSet(max_hands=max_hands))
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("store")
def store(
    matches: int = typer.Option(20, "--matches", help="Matches of each kind to record."),
    seed: int = typer.Option(1, "--seed", help="First match seed."),
    db: str | None = typer.Option(
        None, "--db", help="Also record into this (scratch) database; PostgreSQL sizes too."
    ),
    write_rate: int | None = typer.Option(
        None,
        "--write-rate",
        help="Instead: record this many matches into --db (default: a scratch SQLite file) as a "
        "tournament's coordinator does, and print records/s.",
    ),
    group: int = typer.Option(
        32,
        "--group",
        help="With --write-rate: records a group-commit transaction takes (measured beside "
        "one transaction a record).",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Bytes a recorded match takes: the decision record and the row, SQLite and PostgreSQL."""
    import json

    from arena.bench.store_footprint import describe, measure

    if write_rate is not None:
        import tempfile

        from arena.bench.store_rate import describe_write_rates, measure_write_rates

        if write_rate < 1:
            raise typer.BadParameter("--write-rate must be at least 1")
        if group < 2:
            raise typer.BadParameter("--group must be at least 2")
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
            url = db or f"sqlite:///{tmp}/rate.db"
            rate = measure_write_rates(write_rate, url, seed=seed, group=group)
        typer.echo(json.dumps(rate) if json_output else describe_write_rates(rate))
        return

    result = measure(matches=matches, seed=seed, db=db)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("bots")
def bots(
    bot_a: str = typer.Argument(..., help="A Python SDK bot directory: sample_bots/heuristic."),
    bot_b: str = typer.Argument(..., help="Its opponent's directory (e.g. sample_bots/random)."),
    pairs: int = typer.Option(100, "--pairs", help="Duplicate pairs: each seed played twice."),
    first_seed: int = typer.Option(0, "--first-seed", help="The first deal seed."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Bot A against bot B in-process over duplicate pairs: wins, losses, scores."""
    import json

    from arena.bench.sample_bots import describe, measure

    result = measure(bot_a, bot_b, pairs=pairs, first_seed=first_seed)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("expert")
def expert(
    budgets: str = typer.Option(
        "25,100,250", "--budgets", help="Time budgets in ms, comma-separated."
    ),
    pairs: int = typer.Option(20, "--pairs", help="Duplicate pairs per budget."),
    opponent: str = typer.Option(
        "sample_bots/heuristic", "--opponent", help="A Python bot directory."
    ),
    first_seed: int = typer.Option(0, "--first-seed", help="The first deal seed."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """The expert sample bot's win rate and simulations as a function of its time budget."""
    import json

    from arena.bench.expert import describe, measure

    try:
        values = [int(b) for b in budgets.split(",") if b.strip()]
    except ValueError:
        raise typer.BadParameter(f"budgets must be integers in ms, got {budgets!r}") from None
    if not values or min(values) <= 0:
        raise typer.BadParameter(f"budgets must be positive integers in ms, got {budgets!r}")
    result = measure(values, pairs=pairs, opponent=opponent, first_seed=first_seed)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("protocol")
def protocol(
    matches: int = typer.Option(20, "--matches", help="Random matches whose decisions to time."),
    seed: int = typer.Option(0, "--seed", help="First match seed."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Cost of building (and serializing) one decision request from an observation."""
    import json

    from arena.bench.protocol import describe, measure

    result = measure(matches=matches, seed=seed)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("transport")
def transport(
    concurrency: int = typer.Option(1, "--concurrency", "-k", help="Concurrent callers."),
    seconds: float = typer.Option(5.0, "--seconds", help="Time to measure."),
    session: bool = typer.Option(
        False, "--session", help="Messages on PlaySession streams instead of unary calls."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Raw gRPC calls per second to two bot processes (the referee's baseline)."""
    import json

    from arena.bench.transport import describe, measure

    result = measure(concurrency=concurrency, seconds=seconds, session=session)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("referee")
def referee(
    concurrency: int = typer.Option(1, "--concurrency", "-k", help="Matches at once."),
    seconds: float | None = typer.Option(
        None, "--seconds", help="Time to measure (default 5 s unless --matches)."
    ),
    matches: int | None = typer.Option(None, "--matches", help="Play this many matches."),
    compare: bool = typer.Option(
        False, "--compare", help="Also measure the raw transport in the same run; print the ratio."
    ),
    unary: bool = typer.Option(
        False, "--unary", help="Play over the unary RPCs even though the bots serve PlaySession."
    ),
    slices: int = typer.Option(
        4, "--slices", min=1, help="With --compare: turns of each side (each --seconds / N)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
    sandbox: str | None = typer.Option(
        None,
        "--sandbox",
        help="on or off: the bots in the sandbox or as plain processes (default: auto); "
        "compare: both in one run, in turns, with the ratio and the start-up times.",
        show_default=False,
    ),
) -> None:
    """Bot decisions per second through the referee, K matches at once between two fast bots."""
    import json

    from arena.bench.referee import describe, measure

    if seconds is not None and matches is not None:
        raise typer.BadParameter("give --seconds or --matches, not both")
    if sandbox == "compare":
        from arena.bench import sandbox as bench_sandbox
        from arena.cli.options import check_sandbox

        check_sandbox("on")
        if matches is not None or compare:
            raise typer.BadParameter("--sandbox compare measures by time (--seconds) alone")
        found = bench_sandbox.measure(concurrency=concurrency, seconds=seconds or 8.0)
        typer.echo(json.dumps(found) if json_output else bench_sandbox.describe(found))
        return
    if sandbox is not None:
        import os

        from arena.cli.options import check_sandbox

        os.environ["ARENA_SANDBOX"] = check_sandbox(sandbox)  # the bots this process starts
    if seconds is None and matches is None:
        seconds = 5.0
    result = measure(
        concurrency=concurrency,
        seconds=seconds,
        matches=matches,
        compare=compare,
        slices=slices,
        sessions=not unary,
    )
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("tournament")
def tournament(
    games: int = typer.Option(1, "--games", "-n", help="Deal seeds per pair (both seatings)."),
    seed: int = typer.Option(1, "--seed", help="Tournament seed (--ordering: the first)."),
    concurrency: list[int] = typer.Option(  # noqa: B008 - typer's declaration style
        [1, 2, 4], "--concurrency", "-k", help="Matches at once; repeat for several runs."
    ),
    ordering: bool = typer.Option(
        False,
        "--ordering",
        help="Instead: matches the leaderboard needs to order heuristic > cautious > random, "
        "duplicate against independent deals.",
    ),
    rounds: int = typer.Option(8, "--rounds", help="--ordering: deal seeds per pair."),
    tournaments: int = typer.Option(6, "--tournaments", help="--ordering: seeds to repeat on."),
    ray: str | None = typer.Option(
        None,
        "--ray",
        help="Instead: matches/s with the matches on Ray, beside a local run: on the cluster at "
        "this address, or `local` for throwaway clusters of --ray-nodes nodes on this machine.",
    ),
    ray_nodes: list[int] = typer.Option(  # noqa: B008 - typer's declaration style
        [1, 2], "--ray-nodes", help="--ray local: nodes of each cluster; repeat for several."
    ),
    ray_node_cpus: int = typer.Option(2, "--ray-node-cpus", help="--ray local: CPUs per node."),
    ray_worker_cpus: float = typer.Option(
        2.0, "--ray-worker-cpus", help="--ray: CPUs of a node per worker."
    ),
    simulate_nodes: list[int] = typer.Option(  # noqa: B008 - typer's declaration style
        [],
        "--simulate-nodes",
        help="--ray local: instead, N simulated nodes that return a recorded real match at the "
        "rate N real nodes would (no bots); repeat for several N.",
    ),
    node_rate: float = typer.Option(
        0.41, "--node-rate", help="--simulate-nodes: matches/s of one real 2-CPU node."
    ),
    sim_seconds: float = typer.Option(
        30.0, "--sim-seconds", help="--simulate-nodes: each run sized to last this long."
    ),
    deals: str = typer.Option(
        "pairs", "--deals", help="Deal mode of the round robin: pairs, duplicate or independent."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """A round robin of four sample bots at K = 1, 2, 4: matches/s and the arena's CPU/match."""
    import json

    from arena.bench import tournament as bench_tournament
    from arena.tournament import DEFAULT_DEALS, parse_deal_mode

    deal_mode = parse_deal_mode(deals)
    if deal_mode is not DEFAULT_DEALS and (ray is not None or ordering):
        raise typer.BadParameter("--deals is for the plain benchmark (not --ray or --ordering)")

    if simulate_nodes:
        if ray != "local":
            raise typer.BadParameter("--simulate-nodes runs on a loopback cluster: --ray local")
        if min(simulate_nodes) < 1 or node_rate <= 0 or sim_seconds <= 0:
            raise typer.BadParameter(
                "--simulate-nodes needs 1 or more, --node-rate and --sim-seconds above 0"
            )
        result = bench_tournament.measure_simulated(
            nodes=simulate_nodes, node_rate=node_rate, seconds=sim_seconds, seed=seed
        )
        typer.echo(
            json.dumps(result) if json_output else bench_tournament.describe_simulated(result)
        )
        return
    if ray is not None:
        k = concurrency[0] if len(concurrency) == 1 else 2
        result = bench_tournament.measure_ray(
            concurrency=k,
            games=games,
            seed=seed,
            address=None if ray == "local" else ray,
            local_nodes=ray_nodes,
            cpus_per_node=ray_node_cpus,
            worker_cpus=ray_worker_cpus,
        )
        typer.echo(json.dumps(result) if json_output else bench_tournament.describe_ray(result))
        return
    if ordering:
        # One round robin after another, each at K = 2 (or the one K given with -k).
        k = concurrency[0] if len(concurrency) == 1 else 2
        result = bench_tournament.measure_ordering(
            rounds=rounds, tournaments=tournaments, first_seed=seed, concurrency=k
        )
        text = bench_tournament.describe_ordering
    else:
        result = bench_tournament.measure(
            concurrency=concurrency, games=games, seed=seed, deals=deal_mode
        )
        text = bench_tournament.describe
    typer.echo(json.dumps(result) if json_output else text(result))


@app.command("web")
def web(
    bots: int = typer.Option(1000, "--bots", help="Bots in the generated database."),
    matches: int = typer.Option(100_000, "--matches", help="Matches in the generated database."),
    requests: int = typer.Option(100, "--requests", help="Timed requests per page."),
    viewers: int = typer.Option(100, "--viewers", help="Live viewers of the tournament."),
    rounds: int = typer.Option(
        10, "--rounds", help="Live: paired rounds (the tournament with and without viewers)."
    ),
    games: int = typer.Option(12, "--games", help="Live: deal seeds of each tournament."),
    skip_pages: bool = typer.Option(False, "--skip-pages", help="Only the live part."),
    skip_live: bool = typer.Option(False, "--skip-live", help="Only the pages."),
    db: str | None = typer.Option(
        None, "--db", help="Keep the generated SQLite file here (reused if it exists)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """The web arena: page and API server time on a generated database, and live viewers'
    cost to a running tournament."""
    import json

    from arena.bench.web import describe, measure_live, measure_pages

    result = {}
    if not skip_pages:
        result["pages"] = measure_pages(bots=bots, matches=matches, requests=requests, db=db)
    if not skip_live:
        result["live"] = measure_live(viewers=viewers, rounds=rounds, games=games)
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("play")
def play(
    clients: int = typer.Option(200, "--clients", help="Simulated people playing at once."),
    rules: str = typer.Option("one-hand", "--rules", help="The rule set of /play they choose."),
    arrivals: float = typer.Option(10.0, "--arrivals", help="People arriving a second."),
    think_ms: float = typer.Option(
        0.0, "--think-ms", help="A person's mean time to answer (0 to twice it; 0: at once)."
    ),
    bot_window: float = typer.Option(
        10.0,
        "--bot-window",
        help="Seconds of bot matches alone before and after the people (their rate against "
        "the rate beside the people; 0: no bot matches).",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """People at /play: simulated clients over HTTP against `random`, the time from an answer
    to the next request, and bot matches played beside them against bot matches alone."""
    import json

    from arena.bench.humanplay import describe, measure_play

    result = measure_play(
        clients=clients, rules=rules, arrivals_per_s=arrivals, think_ms=think_ms,
        bot_window_s=bot_window,
    )  # fmt: skip
    typer.echo(json.dumps(result) if json_output else describe(result))


@app.command("ladder")
def ladder(
    bots: int = typer.Option(8, "--bots", help="Synthetic bots of known strength."),
    spacing: float = typer.Option(2.5, "--spacing", help="True skill between neighbours (mu)."),
    runs: int = typer.Option(20, "--runs", help="Seeded runs of each policy."),
    max_pairs: int = typer.Option(400, "--max-pairs", help="Pairs per run."),
    seed: int = typer.Option(1, "--seed", help="First seed."),
    entrants: int | None = typer.Option(
        None,
        "--entrants",
        help="Instead: the time to choose the next pair on a ladder of this many entrants, "
        "beside the all-pairs scan of before.",
    ),
    choices: int = typer.Option(50, "--choices", help="--entrants: choices timed."),
    old_entrants: int = typer.Option(
        200, "--old-entrants", help="--entrants: the all-pairs scan's field (it is quadratic)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """The ladder's matchmaking against uniform random pairing, on synthetic bots: duplicate
    pairs until the leaderboard's order is the true order for good; a newcomer's placement.
    With --entrants: how long choosing the next pair takes."""
    import json
    import random
    import statistics

    from arena.ladder import simulation

    if entrants is not None:
        from arena.bench import ladder_choice

        if entrants < 2 or old_entrants < 2 or choices < 1:
            raise typer.BadParameter("--entrants and --old-entrants need 2 or more, --choices 1")
        r = ladder_choice.measure(
            entrants=entrants, choices=choices, old_entrants=old_entrants, seed=seed
        )
        typer.echo(json.dumps(r) if json_output else ladder_choice.describe(r))
        return

    c = simulation.compare(bots=bots, spacing=spacing, runs=runs, max_pairs=max_pairs, seed=seed)
    placements = [
        simulation.placement(
            simulation.true_skills(bots, spacing, random.Random(seed + r)),
            settle_pairs=15 * bots,
            sigma_target=2.0,
            max_pairs=max_pairs,
            seed=seed + r,
        )
        for r in range(runs)
    ]
    placed = [p for p in placements if p is not None]
    result = {
        "bots": bots,
        "spacing": spacing,
        "runs": runs,
        "max_pairs": max_pairs,
        "matchmaking_pairs_to_order_median": c.matchmaking_median,
        "uniform_pairs_to_order_median": c.uniform_median,
        "matchmaking_never_ordered": sum(v is None for v in c.matchmaking),
        "uniform_never_ordered": sum(v is None for v in c.uniform),
        "newcomer_pairs_to_sigma_2_median": statistics.median(placed) if placed else None,
        "newcomer_pairs_to_sigma_2_max": max(placed) if placed else None,
        "newcomer_never_placed": len(placements) - len(placed),
    }
    if json_output:
        typer.echo(json.dumps(result))
        return
    typer.echo(
        f"{bots} synthetic bots, {spacing:g} mu apart, {runs} seeded runs of {max_pairs} pairs\n"
        f"pairs until the leaderboard order is the true order for good (median; a run that "
        f"never gets there counts as {max_pairs + 1}):\n"
        f"  matchmaking  {c.matchmaking_median:g}  (never: {result['matchmaking_never_ordered']})\n"
        f"  uniform      {c.uniform_median:g}  (never: {result['uniform_never_ordered']})\n"
        f"a newcomer's pairs until its sigma < 2.0: median "
        f"{result['newcomer_pairs_to_sigma_2_median']}, "
        f"max {result['newcomer_pairs_to_sigma_2_max']}"
    )


@app.command("versus")
def versus(
    other: str = typer.Argument(..., help="Another checkout of the arena, with its own .venv."),
    rounds: int = typer.Option(2, "--rounds", help="Turns of each checkout per probe."),
    concurrency: list[int] = typer.Option(  # noqa: B008 - typer's declaration style
        [1, 4], "--concurrency", "-k", help="Matches at once; repeat for several."
    ),
    games: int = typer.Option(3, "--games", "-n", help="Deal seeds of the tournament probe."),
    seconds: float = typer.Option(6.0, "--seconds", help="Time of each referee/engine probe."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """This checkout against another (say, the commit before a change), in alternating turns."""
    import json
    from pathlib import Path

    from arena.bench.versus import describe, measure

    result = measure(
        Path(other), rounds=rounds, concurrency=tuple(concurrency), games=games, seconds=seconds
    )
    typer.echo(json.dumps(result) if json_output else describe(result))
