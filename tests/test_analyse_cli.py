"""``arena analyse``: matches recorded in a real SQLite database, analysed from their records."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest
from arena_child import Done, run_arena
from typer.testing import CliRunner

from arena.analysis import SOLVER_VERSION
from arena.cli import app
from arena.referee import DecisionRecord, MatchResult, Termination
from arena.referee.analysed import analyse_result
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import Store

runner = CliRunner()


def played(match_id: str, seed: int, players: tuple[str, str], hands: int = 3) -> MatchResult:
    """A match of random legal actions through the engine, as the referee would record it."""
    rules = RuleSet(max_hands=hands)
    rng = random.Random(seed)
    m = Match(seed, rules)
    records = []
    while not m.is_over:
        seat, decision = m.to_act, m.decision
        assert seat is not None and decision is not None
        action = m.random_action(rng)
        m.apply(action)
        records.append(DecisionRecord(seat, decision, action, 100))
    outcome = m.outcome
    assert outcome is not None
    now = datetime.now(UTC)
    return MatchResult(
        match_id=match_id,
        seed=seed,
        rules=rules,
        engine_version=ENGINE_VERSION,
        players=players,
        winner=outcome.winner,
        scores=outcome.scores,
        hands_played=outcome.hands_played,
        termination=Termination(outcome.termination.value),
        faults=(0, 0),
        detail="",
        decisions=tuple(records),
        started_at=now,
        finished_at=now,
    )


def record(url: str) -> list[MatchResult]:
    """Two matches of alpha@1 against beta@1 recorded in the database at ``url``."""
    with Store.open(url) as store:
        a = store.register_bot_version("alpha", "1", "ha", "/a").id
        b = store.register_bot_version("beta", "1", "hb", "/b").id
        results = [played(f"m{i}", 40 + i, ("alpha@1", "beta@1")) for i in range(2)]
        for r in results:
            store.record_match(r, seat_versions=(a, b))
    return results


@pytest.fixture
def recorded(sqlite_url: str) -> list[MatchResult]:
    return record(sqlite_url)


def arena(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_match_as_json_is_its_analysis(sqlite_url: str, recorded: list[MatchResult]) -> None:
    data = json.loads(arena("analyse", "m0", "--db", sqlite_url, "--json"))
    expected = analyse_result(recorded[0])
    assert data["match_id"] == "m0" and data["players"] == ["alpha@1", "beta@1"]
    hands = data["analysis"]["hands"]
    assert len(hands) == 3
    assert [h["loss"] for h in hands] == [[h.loss(0), h.loss(1)] for h in expected.hands]
    losses = [x["card_play_loss"] for x in data["card_play_loss"]]
    assert losses[0]["hands"] == 3
    assert losses[0]["mean"] == pytest.approx(sum(expected.hand_losses(0)) / 3)
    plays = [p for h in hands for p in h["plays"]]
    assert len(plays) == 3 * 26
    assert all(p["loss"] == p["par"] - p["value"] >= 0 for p in plays)


def test_a_match_as_a_table(sqlite_url: str, recorded: list[MatchResult]) -> None:
    text = arena("analyse", "m1", "--db", sqlite_url)
    assert text.startswith(
        f"match m1: alpha@1 (seat 0) against beta@1 (seat 1); solver {SOLVER_VERSION}"
    )
    assert "\n   1  " in text and "\n   3  " in text
    assert "alpha@1" in text.split("card-play loss\n", 1)[1]


def test_a_bot_over_its_matches(sqlite_url: str, recorded: list[MatchResult]) -> None:
    data = json.loads(arena("analyse", "--bot", "beta", "--db", sqlite_url, "--json"))
    assert data["matches"] == 2
    [beta] = data["players"]
    assert beta["player"] == "beta@1" and beta["card_play_loss"]["hands"] == 6
    expected = [x for r in recorded for x in analyse_result(r).hand_losses(1)]
    assert beta["card_play_loss"]["mean"] == pytest.approx(sum(expected) / 6)
    tricks = [x for r in recorded for x in analyse_result(r).hand_trick_losses(1)]
    if tricks:
        assert beta["trick_loss"]["hands"] == len(tricks)
        assert beta["trick_loss"]["mean"] == pytest.approx(sum(tricks) / len(tricks))
    else:
        assert beta["trick_loss"] is None
    assert beta["worst"] == sorted(beta["worst"], key=lambda w: -w["loss"])
    text = arena("analyse", "--bot", "beta", "--db", sqlite_url)
    assert "bot beta: 2 matches analysed" in text and "beta@1" in text
    assert "tricks/hand" in text


BAD = [
    (["nope"], "no match with id 'nope'"),
    (["--bot", "gamma"], "gamma"),
    (["--tournament", "7"], "7"),
    (["m0", "--bot", "beta"], "name one of MATCH_ID"),
    ([], "name one of MATCH_ID"),
]


@pytest.fixture(scope="module")
def bad_answers(tmp_path_factory: pytest.TempPathFactory) -> list[Done]:
    """Every bad command line's answer on a database of two matches, from one child process."""
    url = f"sqlite:///{tmp_path_factory.mktemp('analyse') / 'arena.db'}"
    record(url)
    return run_arena([["analyse", *args, "--db", url] for args, _ in BAD])


@pytest.mark.parametrize("case", range(len(BAD)), ids=[m for _, m in BAD])
def test_errors_are_one_line(bad_answers: list[Done], case: int) -> None:
    message, done = BAD[case][1], bad_answers[case]
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: ") and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
