"""Errors of the rules engine. Each names the rule it enforces, so a referee can report it."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of the engine's errors; ``rule`` is the id in spades-rules.md (``"R-4.3"``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message


class IllegalActionError(RulesError):
    """An action that the rules do not allow in this state (a card not in hand, a bid of 14…)."""


class WrongDecisionError(RulesError):
    """An action of the wrong kind for the decision being asked (a bid during the draw…)."""


class MatchOverError(RulesError):
    """An action after the match has ended (R-6)."""


class InvalidRuleSetError(ValueError):
    """A rule set whose values cannot be played (a target of 0, a hand limit of -1…)."""
