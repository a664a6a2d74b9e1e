"""House bots: the sample bots a ladder plays as reference opponents.

A fresh ladder with one submitted bot has no one to pair it with, and waits for ever. House bots
fix that: the sample bots (the expert too) are registered from this checkout's
``sample_bots/`` and take part, marked as house, so a first submission is paired at once. They
are opponents, not contestants: two house bots are never paired (``Matchmaker``), so a ladder
of house bots alone plays nothing and says so. House bots have no owner.
"""

from __future__ import annotations

from arena.errors import ArenaError
from arena.store import Store
from arena.tournament.entrants import register_directory, sample_bot_dirs, sample_bot_unavailable

NONE = "none"
SAMPLE = "sample"


def parse_house(spec: str | None) -> tuple[str, ...]:
    """``none``, ``sample`` (every sample bot) or ``a,b`` (those sample bots) as the names of
    the house bots; an unknown name is an error naming the sample bots there are."""
    spec = (spec or NONE).strip()
    samples = sample_bot_dirs()
    if spec == NONE:
        return ()
    if spec == SAMPLE:
        return tuple(samples)
    names = tuple(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    unknown = [n for n in names if n not in samples]
    if unknown or not names:
        known = ", ".join(samples) or "none here (no sample_bots/ beside the arena)"
        raise ArenaError(
            f"house bots must be none, sample or sample bot names; {', '.join(unknown) or spec!r}"
            f" is not a sample bot (sample bots: {known})"
        )
    return names


def register_house(store: Store, names: tuple[str, ...]) -> tuple[dict[str, int], list[str]]:
    """Register the house bots that can run here (idempotent: the same files are the same
    version): their names with their version ids, and a note for each one left out."""
    samples = sample_bot_dirs()
    house: dict[str, int] = {}
    notes: list[str] = []
    for name in names:
        path = samples.get(name)
        if path is None:
            notes.append(f"house bot {name} left out: not a sample bot here")
            continue
        why = sample_bot_unavailable(path)
        if why is not None:
            notes.append(f"house bot {name} left out: {why}")
            continue
        house[name] = register_directory(store, path).version_id
    return house, notes
