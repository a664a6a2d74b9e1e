"""``--rules key=value,…``: the parser, and the commands that play under it (real bots, a real
database, the real command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.rules_option import RULES_HELP, parse_rules, rules_from_options
from arena.referee import result_from_dict, verify
from arena.rules import Decision, RuleSet
from arena.rules.errors import InvalidRuleSetError

ROOT = Path(__file__).resolve().parent.parent
RANDOM = str(ROOT / "sample_bots" / "random")
CAUTIOUS = str(ROOT / "sample_bots" / "cautious")

runner = CliRunner()


def arena(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


# -- the parser ------------------------------------------------------------------------------


def test_every_rule_set_field_can_be_set() -> None:
    text = (
        "target_score=300, max_hands=7,draw_decision_public=true,double_nil_allowed=no,"
        "nil_tricks_count_as_bags=1"
    )
    assert parse_rules(text) == RuleSet(
        target_score=300,
        max_hands=7,
        draw_decision_public=True,
        double_nil_allowed=False,
        nil_tricks_count_as_bags=True,
    )
    assert {f.name for f in fields(RuleSet)} <= set(RULES_HELP.replace(",", " ").split())


def test_no_text_is_the_default_rules() -> None:
    assert parse_rules(None) == parse_rules("") == parse_rules("default") == RuleSet()


def test_what_describe_prints_parses_back() -> None:
    rules = RuleSet(target_score=250, draw_decision_public=True, double_nil_allowed=False)
    assert parse_rules(rules.describe()) == rules


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("target_score=0", r"^target_score must be positive \(R-1\.2\), got 0$"),
        ("max_hands=-1", r"^max_hands must be positive \(R-6\.3\), got -1$"),
        ("target=300", r"unknown rule set field 'target'; did you mean target_score\?"),
        ("draw_decision_public=maybe", r"draw_decision_public must be true or false, got 'maybe'"),
        ("max_hands=ten", r"max_hands must be a whole number, got 'ten'"),
        ("max_hands=1.5", r"max_hands must be a whole number"),
        ("max_hands=5,max_hands=6", r"max_hands is given twice"),
        ("target_score", r"expected key=value, got 'target_score'"),
        ("max_hands=5,,target_score=3", r"expected key=value, got ''"),
        ("=5", r"expected key=value"),
    ],
)
def test_bad_rules_are_refused_with_the_engines_error(text: str, message: str) -> None:
    with pytest.raises(InvalidRuleSetError, match=message):
        parse_rules(text)


def test_the_older_single_field_options_combine_but_never_conflict() -> None:
    assert rules_from_options("draw_decision_public=true", {"max_hands": 9}) == RuleSet(
        max_hands=9, draw_decision_public=True
    )
    assert rules_from_options(None, {"max_hands": None, "target_score": None}) == RuleSet()
    with pytest.raises(InvalidRuleSetError, match="max_hands is given both by --max-hands"):
        rules_from_options("max_hands=4", {"max_hands": 3})
    with pytest.raises(InvalidRuleSetError, match=r"max_hands must be positive \(R-6\.3\)"):
        rules_from_options(None, {"max_hands": 0})


# -- the commands ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "rules", "error"),
    [
        (["match", RANDOM, RANDOM, "--no-record"], "target_score=0",
         "target_score must be positive (R-1.2), got 0"),
        (["tournament", "run", RANDOM, CAUTIOUS], "double_nil=false",
         "--rules: unknown rule set field 'double_nil'; did you mean double_nil_allowed?"),
    ],
)  # fmt: skip
def test_a_bad_rule_set_is_one_line_and_exit_2_before_any_play(
    tmp_path: Path, command: list[str], rules: str, error: str
) -> None:
    db = tmp_path / "a.db"
    proc = subprocess.run(
        [sys.executable, "-m", "arena", *command, "--rules", rules, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("arena: error: ") and error in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert not db.exists()  # refused before anything was opened or played


def test_match_plays_and_reports_under_the_rules_given(sqlite_url: str) -> None:
    rules = "draw_decision_public=true,double_nil_allowed=false,target_score=120,max_hands=4"
    expected = parse_rules(rules)
    out = arena("match", RANDOM, CAUTIOUS, "--seed", "3", "--rules", rules, "--db", sqlite_url)
    assert f"rules {expected.describe()}" in out.splitlines()[0]
    data = json.loads(
        arena("match", RANDOM, CAUTIOUS, "--seed", "3", "--rules", rules, "--db", sqlite_url,
              "--json")
    )  # fmt: skip
    assert data["rules"] == expected.to_dict()
    result = result_from_dict(data)
    assert result.rules == expected and result.hands_played <= 4
    assert not any(d.decision is Decision.DOUBLE_NIL for d in result.decisions)
    assert verify(result).scores == result.scores  # replayed under the same rule set
    replayed = arena("replay", data["match_id"], "--db", sqlite_url)
    assert f"rules {expected.describe()}" in replayed


def test_tournament_run_keeps_and_reports_its_rules(sqlite_url: str) -> None:
    rules = "nil_tricks_count_as_bags=true,max_hands=2,target_score=200"
    expected = parse_rules(rules)
    data = json.loads(
        arena("tournament", "run", RANDOM, CAUTIOUS, "-n", "1", "--seed", "1", "--rules", rules,
              "--db", sqlite_url, "--json")
    )  # fmt: skip
    assert data["tournament"]["rules"] == expected.to_dict()
    tid = str(data["tournament"]["id"])
    text = " ".join(arena("tournament", "show", tid, "--db", sqlite_url).split())  # unwrapped
    assert f"rules {expected.describe()}" in text
    shown = json.loads(arena("tournament", "show", tid, "--db", sqlite_url, "--json"))
    assert shown["tournament"]["rules"] == expected.to_dict()
