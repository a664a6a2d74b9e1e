"""``arena bench bots``: one Python bot against another over duplicate pairs, in-process.

Every seed is played twice with the seats swapped, through the engine and the real protocol
conversion (``arena.sdk.local``), without processes or sockets: a quick, repeatable measure of
strength. Random bots are made repeatable by ARENA_BOT_SEED (0 unless set).
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from arena.sdk.local import load_bot, play_duplicate


def measure(bot_a: str, bot_b: str, pairs: int, first_seed: int = 0) -> dict[str, Any]:
    os.environ.setdefault("ARENA_BOT_SEED", "0")
    a, b = load_bot(bot_a), load_bot(bot_b)
    result = play_duplicate(a, b, pairs, first_seed)
    out: dict[str, Any] = {
        "bot_a": a.name,
        "bot_b": b.name,
        "dir_a": str(Path(bot_a)),
        "dir_b": str(Path(bot_b)),
        **asdict(result),
    }
    out["matches"] = result.matches
    out["win_rate"] = round(result.win_rate, 4)
    return out


def describe(r: dict[str, Any]) -> str:
    m = r["matches"]
    return (
        f"{r['bot_a']} vs {r['bot_b']}: {m} matches ({r['pairs']} duplicate pairs, seeds "
        f"{r['first_seed']}..{r['first_seed'] + r['pairs'] - 1})\n"
        f"  {r['bot_a']} won {r['wins']}, lost {r['losses']}, drew {r['draws']}: "
        f"{100 * r['win_rate']:.1f} %\n"
        f"  mean final score {r['points_for'] / m:.0f} to {r['points_against'] / m:.0f}, "
        f"{r['hands'] / m:.1f} hands a match\n"
        f"  {r['seconds']:.1f} s, {r['decisions'] / r['seconds']:,.0f} decisions/s"
    )
