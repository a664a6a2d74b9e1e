"""The benchmarks' bot: answers the first legal option at once, so the clock measures the arena.

Served with the SDK's ``serve`` exactly like any Python bot (``python -m arena.bench.first_legal``
with $ARENA_BOT_ADDRESS or ``--listen``); ``manifest_dir`` writes a ``bot.toml`` for it so the
benchmarks start it through the runtime like any other bot.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from arena.sdk import Bot, View, serve

MANIFEST = """\
# The benchmarks' bot: the first legal option, at once.
name = "{name}"
version = "1.0"
command = ["{{python}}", "-m", "arena.bench.first_legal"]
"""


class FirstLegal(Bot):
    name = "first_legal"

    def decide_double_nil(self, view: View) -> bool:
        return False

    def draw(self, view: View) -> bool:
        return True

    def exchange(self, view: View) -> Iterable[int]:
        return ()

    def bid(self, view: View) -> int:
        # Not the first legal bid (Nil): one per spade or card from the queen up, so that its
        # bids are often made and a match reaches the target in some 10 to 30 hands.
        return max(1, sum(1 for c in view.hand if c >= 39 or c % 13 >= 10))

    def play(self, view: View) -> int:
        return view.legal_cards[0]


def manifest_dir(parent: Path, name: str = "first_legal") -> Path:
    """Write the bot's manifest into ``parent/name`` and return that directory."""
    folder = parent / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(MANIFEST.format(name=name))
    return folder


if __name__ == "__main__":
    serve(FirstLegal())
