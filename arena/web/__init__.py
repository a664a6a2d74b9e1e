"""The web arena: leaderboard, bots, live tournaments and a match replay viewer in the browser.

A Starlette application over the same store as the CLI and the gRPC service, read-only, served
by Hypercorn: ``arena web`` for a local database, ``arena serve --web`` beside the gRPC service.
Every asset (stylesheet, scripts, the card and suit drawings) is in this package; nothing is
loaded from elsewhere. See docs/web.md.
"""

from arena.web.app import WebConfig, create_app
from arena.web.server import WebServer, parse_listen

__all__ = ["WebConfig", "WebServer", "create_app", "parse_listen"]
