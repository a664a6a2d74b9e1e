"""An SDK bot that writes a line in every call, by print and by logging, and some while it
starts: what the SDK tags with the match, and what stays start-up output.

$SDK_CHECKOUT, when set, is the checkout whose SDK it runs (the one under test), wherever the
arena is installed; tests/test_match_tags.py sets it in the manifest it writes."""

from __future__ import annotations

import logging
import os
import sys

if os.environ.get("SDK_CHECKOUT"):
    sys.path.insert(0, os.environ["SDK_CHECKOUT"])

from arena.sdk import Bot, View, serve

log = logging.getLogger("sdk_chatty")


class ChattyBot(Bot):
    name = "sdk_chatty"

    def bid(self, view: View) -> int:
        print(f"bidding in {view.match_id}", flush=True)
        return view.legal_bids[0]

    def play(self, view: View) -> int:
        log.info("playing in %s", view.match_id)
        return view.legal_cards[0]


if __name__ == "__main__":
    print("sdk_chatty: warming up", file=sys.stderr, flush=True)
    serve(ChattyBot())
