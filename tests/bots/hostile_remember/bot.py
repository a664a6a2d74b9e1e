"""A bot that remembers every card it is offered and says so when a deal comes back.

The cheat the arena's twin lanes must defeat: the deck of every hand comes from the deal seed
alone and the draw alternates (R-2.1), so the 26 cards a player sees in the draw of a hand are,
in the deal's other seating, exactly the 26 its opponent sees, and in the same seating against
another opponent the same 26 again. This bot records, per hand, the cards it is offered (draw
offers in order) and its hand after the draw, both in memory and in a file in its own writable
place ($TMPDIR, private to each process of the arena), and keys each hand by the set of 26 cards
it saw or its complement, whichever sorts first. When a hand's key is one it has seen before (in
its memory, or in the file, which would show a file shared between processes), it writes a line
"hostile_remember: SEEN ..." to stderr and fails the bid with an error: a fault the match
records. The tests then find no fault of it in any tournament, comparison or ladder pair.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from pathlib import Path

from arena.sdk import Bot, View, serve

RECORD = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "hostile_remember.jsonl"


class RememberingBot(Bot):
    name = "hostile_remember"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._offers: dict[tuple[str, int], list[int]] = {}
        self._seen: dict[str, str] = {}
        """Each hand's key, and where it was first seen."""

    def decide_double_nil(self, view: View) -> bool:
        return False  # its hand after the draw is then exactly the cards it kept

    def draw(self, view: View) -> bool:
        card = view.looking_at
        assert card is not None
        with self._lock:
            self._offers.setdefault((view.match_id, view.hand_number), []).append(card)
        return card // 13 == 3 or card % 13 >= 7  # keep spades and high cards

    def exchange(self, view: View) -> list[int]:
        return []

    def bid(self, view: View) -> int:
        seen = set(view.hand) | set(view.own_discards)
        if len(seen) != 26:
            raise RuntimeError(f"hostile_remember: saw {len(seen)} cards in the draw, not 26")
        rest = set(range(52)) - seen
        key = ",".join(map(str, min(sorted(seen), sorted(rest))))
        where = f"{view.match_id} hand {view.hand_number} seat {view.seat}"
        with self._lock:
            offers = self._offers.pop((view.match_id, view.hand_number), [])
            first = self._seen.get(key) or _in_file(key)
            if first is None:
                self._seen[key] = where
                with RECORD.open("a") as f:
                    line = {"key": key, "where": where, "offers": offers, "hand": list(view.hand)}
                    f.write(json.dumps(line) + "\n")
        if first is not None:
            print(
                f"hostile_remember: SEEN {where}: this deal was first seen in {first}",
                file=sys.stderr,
                flush=True,
            )
            raise RuntimeError(f"hostile_remember: SEEN {where}, first seen in {first}")
        return min(view.legal_bids, key=lambda b: abs(b - 3))

    def play(self, view: View) -> int:
        return view.legal_cards[0]


def _in_file(key: str) -> str | None:
    """Where the file says the hand was first seen: a process that shares it would find
    another process's hands there."""
    try:
        lines = RECORD.read_text().splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        entry = json.loads(line)
        if entry["key"] == key:
            return f"{entry['where']} (read from the file)"
    return None


if __name__ == "__main__":
    serve(RememberingBot())
