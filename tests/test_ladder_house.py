"""House bots: the sample bots a ladder plays as opponents, so that a lone first submission is
played at once; ``ladder status`` says why nothing is scheduled whenever that is so. Real bot
processes, a real SQLite file."""

from __future__ import annotations

import random
import shutil
import threading
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.ladder import (
    LADDER_KEY,
    Ladder,
    LadderEntrant,
    LadderSettings,
    Matchmaker,
    describe_status,
)
from arena.ladder.house import parse_house
from arena.rules.ruleset import RuleSet
from arena.service.convert import ladder_status_from_pb, ladder_status_to_pb
from arena.store import Store
from arena.tournament.entrants import register_directory, sample_bot_dirs

ROOT = Path(__file__).resolve().parents[1]
FAST = RuleSet(max_hands=2)


def test_house_bots_are_none_sample_or_named_sample_bots() -> None:
    samples = tuple(sample_bot_dirs())
    assert {"expert", "expert_pimc", "heuristic"} <= set(samples)
    assert parse_house("none") == () and parse_house(None) == ()
    assert parse_house("sample") == samples
    assert parse_house("heuristic, random,heuristic") == ("heuristic", "random")
    with pytest.raises(ArenaError, match=r"'mybot' is not a sample bot \(sample bots: .*expert"):
        parse_house("heuristic,mybot")


def test_two_house_bots_are_never_paired() -> None:
    house = [LadderEntrant(i, f"h{i}", 25.0, 8.0, house=True) for i in (1, 2, 3)]
    mine = LadderEntrant(9, "mine", 25.0, 8.3)
    maker = Matchmaker()
    assert maker.choose(house, {}, next_pair=0, rng=random.Random(1)) is None
    ranked = maker.rank([*house, mine], {}, next_pair=0)
    assert len(ranked) == 3 and all(mine in (c.a, c.b) for c in ranked)


def my_bot(tmp_path: Path) -> Path:
    """The random sample bot under a name of its own: a submission, not a house bot."""
    target = tmp_path / "mybot"
    shutil.copytree(ROOT / "sample_bots" / "random", target,
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    manifest = target / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', 'name = "mybot"'))
    return target


@pytest.mark.slow
def test_a_lone_submission_is_played_against_the_house(sqlite_url: str, tmp_path: Path) -> None:
    with Store.open(sqlite_url) as store:
        # Alone, without house bots: nothing, and the status says why and what to do.
        mine = register_directory(store, my_bot(tmp_path))
        Ladder(store, LadderSettings(max_pairs=1, rules=FAST)).run(threading.Event())
        status = store.ladder_status()
        assert status is not None and status["pairs_scheduled"] == 0
        assert status["idle_reason"] == (
            "1 bot taking part, a pair needs two: submit a bot, or give the ladder house bots "
            "(--ladder-house sample)"
        )
        assert "nothing scheduled: 1 bot taking part" in "\n".join(describe_status(status))

        ladder = Ladder(store, LadderSettings(max_pairs=1, rules=FAST, house=("heuristic",)))
        ladder.run(threading.Event())
        (pair,) = [t for t in store.list_tournaments() if isinstance(t.config.get(LADDER_KEY),
                                                                       dict)]  # fmt: skip
        assert {b["name"] for b in pair.config["bots"]} == {"mybot", "heuristic"}
        assert len(store.list_matches(tournament_id=pair.id)) == 2
        status = store.ladder_status()
        assert status is not None
        house = {e["bot"]: e["house"] for e in status["entrants"]}
        assert house == {"mybot": False, "heuristic": True}
        assert status["idle_reason"] == "stopped after 1 new pair (--max-pairs)"
        lines = describe_status(status)
        assert any(line.startswith("  heuristic") and line.endswith("(house)") for line in lines)
        assert not any(line.startswith("  mybot") and "(house)" in line for line in lines)
        # Through the service's message, the same status.
        served = ladder_status_from_pb(ladder_status_to_pb(status, str))
        assert served == {k: v for k, v in status.items() if k != "concurrency"}
        # Its owner's bot paused: only the house is left, which does not play itself.
        store.pause_ladder_version(mine.version_id, "test", "2026-12-02T00:00:00+00:00")
        Ladder(store, LadderSettings(max_pairs=1, rules=FAST, house=("heuristic", "random"))).run(
            threading.Event()
        )
        status = store.ladder_status()
        assert status is not None and status["pairs_scheduled"] == 1
        assert status["idle_reason"].startswith(
            "only house bots take part, and house bots do not play each other"
        )
        assert status["idle_reason"].endswith("; 1 paused (below)")
