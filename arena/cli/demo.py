"""``arena demo``: a round robin of the sample bots on the default database, then its leaderboard.

What ``make demo`` runs on a fresh machine: every sample bot that can run here (``random``,
``heuristic``, the weakened ``heuristic`` variant, ``node_random`` when Node.js and its
packages are installed, ``cpp_lowest`` when it is built) plays every other on the same deal
seeds, both seatings of each.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from arena.cli.local import play_tournament
from arena.cli.options import DbOption, WideOption, tournament_logs
from arena.cli.tournament_format import report
from arena.errors import ArenaError
from arena.rules.ruleset import RuleSet
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament
from arena.tournament.entrants import default_sample_bots

DEMO_GAMES = 3
"""Deal seeds per pair: 36 matches with four bots, enough for the leaderboard to put heuristic
over cautious over the random bots (docs/benchmarks.md, Tournaments)."""
DEMO_MAX_HANDS = 50
"""The hand limit of the demo's matches (R-6.3, a [choice]; the default is 200). Two random
bidders are always set and never reach 500, so their matches run to the limit: at 200 hands
they were two thirds of the demo's work, at 50 the demo's tournament takes about 30 s on two
cores. Every other pairing ends at the target well before 50 hands, or is adjudicated with a
clear leader."""
DEMO_SEED = 2024
DEMO_LEFT_OUT = {
    "expert": "it searches for 100 ms a decision; play it with `arena tournament run`",
    "expert_pimc": "it searches for 100 ms a decision; play it with `arena tournament run`",
    "openspiel_ismcts": "it searches (OpenSpiel's ISMCTS) and needs the research extra; play it "
    "with `arena compare`",
}
"""Sample bots too slow for a demo of about a minute, with the reason told."""


def demo(
    games: Annotated[int, typer.Option("--games", "-n", help="Deal seeds per pair.")] = DEMO_GAMES,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-k", help="Matches played at once.")
    ] = 2,
    seed: Annotated[int, typer.Option("--seed", help="Tournament seed.")] = DEMO_SEED,
    max_hands: Annotated[
        int, typer.Option("--max-hands", help="Hand limit of a match (R-6.3).")
    ] = DEMO_MAX_HANDS,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object at the end.")
    ] = False,
    db: DbOption = None,
    wide: WideOption = False,
) -> None:
    """Play a round robin of the sample bots and print the leaderboard."""
    dirs, skipped = default_sample_bots()
    for d in [d for d in dirs if d.name in DEMO_LEFT_OUT]:
        dirs.remove(d)
        skipped.append(f"sample bot {d.name} left out: {DEMO_LEFT_OUT[d.name]}")
    for note in skipped:
        print(note, file=sys.stderr)
    if len(dirs) < 2:
        raise ArenaError(
            "the demo needs the sample bots of a source checkout (sample_bots/); run it from "
            "there after `make setup`"
        )
    with Store.open(db) as store:
        if not as_json:
            names = ", ".join(d.name for d in dirs)
            print(
                f"demo: round robin of {names} on {store.url}: {games} deal seeds per pair, "
                f"both seatings, {concurrency} at once, matches capped at {max_hands} hands",
                file=sys.stderr,
            )
        tid = create_tournament(
            store,
            TournamentSettings(
                bots=[str(d) for d in dirs],
                games=games,
                concurrency=concurrency,
                seed=seed,
                rules=RuleSet(max_hands=max_hands),
            ),
        )
        logs = tournament_logs(db, tid, None, None)
        played = play_tournament(store, tid, None, as_json, log_dir=logs)
        report(*played.parts, as_json, played.nodes, wide=wide)
        if not as_json:
            print(ratings_note(store, tid), file=sys.stderr)


def ratings_note(store: object, tournament_id: int) -> str:
    """What the global ratings hold after this demo: a second demo adds to the first."""
    tournaments = store.list_tournaments()  # type: ignore[attr-defined]
    if len(tournaments) <= 1:
        return (
            f"demo: tournament {tournament_id}'s leaderboard is above; `arena ratings` shows the "
            "global ratings, which every later match adds to"
        )
    ids = ", ".join(str(t.id) for t in tournaments)
    return (
        f"demo: the leaderboard above is tournament {tournament_id}'s alone; the global ratings "
        f"(`arena ratings`) now hold all {len(tournaments)} tournaments of this database "
        f"({ids}) and every other match recorded in it"
    )
