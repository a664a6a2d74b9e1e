"""The arena.v1 protocol: buf STANDARD (and COMMENTS) lint over proto/, and conversions between
the store's values and the messages that lose nothing."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.referee.record import DecisionRecord, FaultKind, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.rules.decisions import Decision
from arena.service.convert import (
    decision_from_pb,
    decision_to_pb,
    match_result_from_pb,
    match_to_pb,
)
from arena.store import MatchSummary

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"


def _buf() -> str | None:
    local = PROTO / "node_modules" / ".bin" / "buf"
    if local.exists():
        return str(local)
    return shutil.which("buf")


def test_buf_lint_is_clean() -> None:
    buf = _buf()
    if buf is None:
        pytest.skip("buf is not installed: run `make setup` (npm ci in proto/) to lint the protos")
    config = (PROTO / "buf.yaml").read_text()
    assert "STANDARD" in config and "COMMENTS" in config
    result = subprocess.run([buf, "lint", "proto"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_buf_lint_catches_a_violation(tmp_path: Path) -> None:
    """The lint really runs with our rules: a badly named field and enum fail it."""
    buf = _buf()
    if buf is None:
        pytest.skip("buf is not installed: run `make setup` (npm ci in proto/) to lint the protos")
    (tmp_path / "buf.yaml").write_text((PROTO / "buf.yaml").read_text())
    pkg = tmp_path / "bad" / "v1"
    pkg.mkdir(parents=True)
    (pkg / "bad.proto").write_text(
        'syntax = "proto3";\n// Bad.\npackage bad.v1;\n'
        "// M.\nmessage M {\n  // F.\n  int32 badName = 1;\n}\n"
        "// E.\nenum E {\n  // Zero.\n  ZERO = 0;\n}\n"
    )
    result = subprocess.run([buf, "lint"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode != 0
    assert 'Field name "badName" should be lower_snake_case' in result.stdout
    assert 'Enum zero value name "ZERO" should be suffixed with "_UNSPECIFIED"' in result.stdout


def test_service_shape() -> None:
    service = pb.DESCRIPTOR.services_by_name["ArenaService"]
    assert service.full_name == "arena.v1.ArenaService"
    methods = {m.name: m for m in service.methods}
    assert set(methods) == {
        "SubmitBot", "ListBots", "GetBot", "StartTournament", "GetTournament",
        "WatchTournament", "CancelTournament", "ListMatches", "GetMatch", "GetLeaderboard",
        "GetMatchLog", "ListTournaments", "GetLadderStatus", "ResumeTournament",
    }  # fmt: skip
    for name, m in methods.items():
        assert m.input_type.name == f"{name}Request"
        assert m.output_type.name == f"{name}Response"
    assert methods["WatchTournament"].server_streaming
    assert not any(m.client_streaming for m in methods.values())


def _played_match() -> MatchResult:
    """A real match played by the engine with random actions, as the referee records it."""
    import random

    rules = RuleSet(target_score=150)
    match = Match(seed=7, rules=rules)
    rng = random.Random(3)
    records = []
    while not match.is_over:
        seat, decision = match.to_act, match.decision
        action = match.random_action(rng)
        fault = FaultKind.TIMEOUT if len(records) == 5 else None
        records.append(DecisionRecord(seat, decision, action, 100 + len(records), fault))
        match.apply(action)
    outcome = match.outcome
    assert outcome is not None
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return MatchResult(
        match_id="m1",
        seed=7,
        rules=rules,
        engine_version=ENGINE_VERSION,
        players=("alpha@1.0", "beta@2"),
        winner=outcome.winner,
        scores=tuple(outcome.scores),  # type: ignore[arg-type]
        hands_played=len(match.hand_results),
        termination=Termination(outcome.termination.value),
        faults=(1, 0),
        detail="",
        decisions=tuple(records),
        started_at=now,
        finished_at=now,
    )


def test_match_record_round_trips_through_messages() -> None:
    result = _played_match()
    kinds = {d.decision for d in result.decisions}
    assert {Decision.DRAW, Decision.BID, Decision.PLAY} <= kinds
    summary = MatchSummary(
        sequence=1, match_id=result.match_id, seed=result.seed,
        engine_version=result.engine_version, seat_versions=(1, 2), players=result.players,
        winner=result.winner, scores=result.scores, hands_played=result.hands_played,
        termination=result.termination, faults=result.faults, detail=result.detail, rated=True,
        decision_count=len(result.decisions), mean_decision_us=(1, 1), max_decision_us=(1, 1),
        started_at=result.started_at, finished_at=result.finished_at,
        recorded_at=result.finished_at, tournament_id=3, tournament_game_id=4, pair_id="9",
    )  # fmt: skip
    response = pb.GetMatchResponse(
        match=match_to_pb(summary, result.rules),
        decisions=[decision_to_pb(d) for d in result.decisions],
    )
    wire = pb.GetMatchResponse.FromString(response.SerializeToString())
    assert match_result_from_pb(wire) == result
    assert wire.match.seats[0].bot == "alpha" and wire.match.seats[1].version == "2"
    assert wire.match.tournament_id == 3 and wire.match.pair_id == "9"


@pytest.mark.parametrize(
    "record",
    [
        DecisionRecord(0, Decision.DOUBLE_NIL, True, 5),
        DecisionRecord(1, Decision.DOUBLE_NIL, False, 5),
        DecisionRecord(0, Decision.EXCHANGE, (), 7),
        DecisionRecord(1, Decision.EXCHANGE, (0, 13, 51), 7, FaultKind.ILLEGAL_ACTION),
        DecisionRecord(0, Decision.BID, 0, 1),
        DecisionRecord(0, Decision.DRAW, False, 2**40, FaultKind.CRASH),
    ],
)
def test_every_decision_kind_round_trips(record: DecisionRecord) -> None:
    assert decision_from_pb(decision_to_pb(record)) == record


def test_standings_carry_the_intervals() -> None:
    """GetLeaderboard and tournament standings: mu ± 1.96 sigma, the head-to-head score with
    its interval and the number of pairs (additive fields; unset when no pair is complete)."""
    from arena.ratings import Rater, RatingConfig
    from arena.service.convert import leaderboard_row_to_pb, standings_from_pb, standings_to_pb
    from arena.tournament import GameRecord, compute_standings

    games = [
        GameRecord(index=i, pair_id=i // 2, seats=(0, 1) if i % 2 == 0 else (1, 0),
                   winner=0 if i % 4 == 0 else 1, scores=(500, 300), termination="target_reached",
                   faults=(0, 0))
        for i in range(8)
    ]  # fmt: skip
    standings = compute_standings([("a", "1"), ("b", "1")], games, Rater(RatingConfig()), 8)
    h = standings.head_to_head[0]
    assert h.pairs == 4 and h.score_a is not None
    assert h.score_a_low is not None and h.score_a_high is not None
    assert h.score_a_low < h.score_a < h.score_a_high
    msg = standings_to_pb(standings)
    assert msg.head_to_head[0].pairs == 4
    assert msg.head_to_head[0].score_a == h.score_a
    assert standings_from_pb(msg, 8, 8).head_to_head == standings.head_to_head
    row = standings.leaderboard[0]
    entry = leaderboard_row_to_pb(row)
    assert (entry.mu_low, entry.mu_high) == (row.mu_low, row.mu_high)
    assert entry.mu_low == pytest.approx(row.mu - 1.959964 * row.sigma)

    empty = compute_standings([("a", "1"), ("b", "1")], games[:1], Rater(RatingConfig()), 8)
    msg = standings_to_pb(empty)
    assert msg.head_to_head[0].pairs == 0
    assert not msg.head_to_head[0].HasField("score_a")
    assert standings_from_pb(msg, 1, 8).head_to_head[0].score_a is None


def test_ladder_status_keeps_owners_rules_and_gives_flags_to_admins_only() -> None:
    from arena.service.convert import ladder_status_from_pb, ladder_status_to_pb

    flag = {
        "bot": "shill", "opponent": "star", "forfeits_against": 4, "matches_against": 4,
        "forfeits_others": 0, "matches_others": 20, "p_value": 1 / 10626, "why": "…",
    }  # fmt: skip
    status = {
        "updated_at": "t", "pairs_scheduled": 3, "matches_last_24h": 6, "daily_budget": None,
        "playing": [], "entrants": [], "per_owner": 2,
        "paused": [{"bot": "x@1", "version_id": 5, "at": "t", "reason": "x could not start: "
                    "exit code 1; its last output: my secret"}],
        "anonymous_opponents": True,
        "waiting": [{"bot": "alice3", "version_id": 7, "why": "its owner has 2 bots …"}],
        "flags": [flag],
    }  # fmt: skip
    for admin in (False, True):
        wire = pb.GetLadderStatusResponse.FromString(
            ladder_status_to_pb(status, lambda bot, reason: reason, flags=admin).SerializeToString()
        )
        back = ladder_status_from_pb(wire)
        assert back["per_owner"] == 2 and back["anonymous_opponents"] is True
        assert back["waiting"] == status["waiting"]
        assert back["flags"] == ([flag] if admin else [])

    # A pause's reason goes through the visibility policy's pause_reason(bot, reason), which
    # gives a start's output to the bot's owner only (tests/test_visibility.py).
    wire = ladder_status_to_pb(status, lambda bot, reason: f"{bot}: {reason.split(';')[0]}")
    assert wire.paused[0].reason == "x@1: x could not start: exit code 1"
