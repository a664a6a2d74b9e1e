"""The rule set: every [choice] of spades-rules.md as a field, with the spec's default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from arena.rules.errors import InvalidRuleSetError


@dataclass(frozen=True, slots=True)
class RuleSet:
    target_score: int = 500
    """R-1.2: the score that ends the match."""
    max_hands: int = 200
    """R-6.3: the hand limit, after which the match is adjudicated."""
    draw_decision_public: bool = False
    """R-2.2: whether the opponent learns if the first or the second card of a turn was kept."""
    double_nil_allowed: bool = True
    """R-3.3: whether players are asked for Double Nil before their first draw."""
    nil_tricks_count_as_bags: bool = False
    """R-5.3/R-5.4: whether tricks won by a (Double) Nil bidder count as bags."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            expected = int if f.type in ("int", int) else bool
            if type(value) is not expected:
                raise InvalidRuleSetError(
                    f"rule set field {f.name} must be {expected.__name__}, got {value!r}"
                )
        if self.target_score <= 0:
            raise InvalidRuleSetError(
                f"target_score must be positive (R-1.2), got {self.target_score}"
            )
        if self.max_hands <= 0:
            raise InvalidRuleSetError(f"max_hands must be positive (R-6.3), got {self.max_hands}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InvalidRuleSetError(f"unknown rule set fields: {', '.join(sorted(unknown))}")
        return cls(**data)

    def describe(self) -> str:
        """A short, stable text naming the variant: ``default`` or the fields that differ."""
        default = RuleSet()
        diffs = [
            f"{f.name}={getattr(self, f.name)}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        ]
        return ",".join(diffs) if diffs else "default"
