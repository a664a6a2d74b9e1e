"""``--rules key=value,…``: any rule set from the command line, for every command that plays.

One parser, so that ``arena match``, ``arena tournament run`` and any later command that plays
matches read a rule set the same way and refuse a bad one with the engine's own error
(``InvalidRuleSetError``, printed by the CLI as one line with exit 2).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import fields
from typing import Annotated, Any

import typer

from arena.rules.errors import InvalidRuleSetError
from arena.rules.ruleset import RuleSet

__all__ = ["RULES_HELP", "RulesOption", "parse_rules", "rules_from_options"]

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_FIELDS = {f.name: f for f in fields(RuleSet)}

RULES_HELP = (
    "The rule set, as comma-separated key=value pairs over the defaults, e.g. "
    "draw_decision_public=true,target_score=300. Keys: "
    + ", ".join(_FIELDS)
    + " (docs/spades-rules.md)."
)

RulesOption = Annotated[
    str | None,
    typer.Option("--rules", help=RULES_HELP, metavar="KEY=VALUE,…", show_default=False),
]


def _field_type(name: str) -> type:
    kind = _FIELDS[name].type
    return int if kind in ("int", int) else bool


def _value(name: str, text: str) -> int | bool:
    """The typed value of one field from its text; a clear error naming the field if it is not."""
    word = text.strip().lower()
    if _field_type(name) is bool:
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise InvalidRuleSetError(f"--rules: {name} must be true or false, got {text!r}")
    try:
        return int(word, 10)
    except ValueError:
        raise InvalidRuleSetError(f"--rules: {name} must be a whole number, got {text!r}") from None


def _unknown(name: str) -> InvalidRuleSetError:
    close = difflib.get_close_matches(name, list(_FIELDS), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return InvalidRuleSetError(
        f"--rules: unknown rule set field {name!r}{hint} (fields: {', '.join(_FIELDS)})"
    )


def parse_rules(text: str | None, base: RuleSet | None = None) -> RuleSet:
    """The rule set ``text`` describes over ``base`` (the defaults when None).

    ``text`` is ``key=value`` pairs separated by commas; ``default`` or an empty text is ``base``
    itself. A key may appear once. Raises InvalidRuleSetError, with the engine's own message for
    a value the rules cannot play (``target_score must be positive (R-1.2), got 0``).
    """
    start = base if base is not None else RuleSet()
    values: dict[str, Any] = {}
    stripped = (text or "").strip()
    if stripped in ("", "default"):
        return start
    for item in stripped.split(","):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidRuleSetError(
                f"--rules: expected key=value, got {item.strip()!r} (e.g. target_score=300)"
            )
        if key not in _FIELDS:
            raise _unknown(key)
        if key in values:
            raise InvalidRuleSetError(f"--rules: {key} is given twice")
        values[key] = _value(key, raw)
    data = start.to_dict()
    data.update(values)
    return RuleSet.from_dict(data)


def rules_from_options(text: str | None, shorthands: Mapping[str, Any] | None = None) -> RuleSet:
    """``--rules`` together with a command's single-field options (``--max-hands`` …).

    ``shorthands`` maps field names to those options' values, None when not given. A field set
    both ways is refused rather than one silently winning.
    """
    given = {k: v for k, v in (shorthands or {}).items() if v is not None}
    named = {item.partition("=")[0].strip() for item in (text or "").split(",")}
    for key in given:
        if key in named:
            raise InvalidRuleSetError(
                f"{key} is given both by --{key.replace('_', '-')} and by --rules; give it once"
            )
    return parse_rules(text, base=RuleSet.from_dict({**RuleSet().to_dict(), **given}))
