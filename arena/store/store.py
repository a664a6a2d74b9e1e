"""The store: the library API over the database, ``Store``, composed of one part per thing it
keeps: bots and versions (``bots``), matches (``matches``), tournaments (``tournaments``),
ratings (``ratings_store``), API tokens (``tokens``), the ladder's state
(``ladder_state``), matches' analyses (``analyses``), the service's submissions that its quotas
count (``quotas``), the web arena's sessions (``web_sessions``) and accounts (``accounts``),
and the reads that pages and reports make in one query each (``reads``), over a shared core
(``core``: the engine, sessions, errors and dialect). ``Store.open`` checks the schema and
connects them."""

from __future__ import annotations

from arena.ratings import RatingConfig
from arena.store import migrate
from arena.store.accounts import AccountsMixin
from arena.store.analyses import AnalysesMixin
from arena.store.bots import BotsMixin
from arena.store.core import connect, guarded
from arena.store.database import display_url
from arena.store.errors import SchemaError
from arena.store.ladder_state import LadderStateMixin
from arena.store.matches import MatchesMixin
from arena.store.quotas import QuotasMixin
from arena.store.ratings_store import RatingsMixin
from arena.store.reads import ReadsMixin
from arena.store.tokens import TokensMixin
from arena.store.tournaments import TournamentsMixin
from arena.store.web_sessions import WebSessionsMixin


class Store(
    AnalysesMixin,
    MatchesMixin,
    BotsMixin,
    TournamentsMixin,
    RatingsMixin,
    TokensMixin,
    LadderStateMixin,
    QuotasMixin,
    WebSessionsMixin,
    AccountsMixin,
    ReadsMixin,
):
    """The arena's database. Open with ``Store.open(url)``; thread-safe; close when done."""

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        upgrade: bool = False,
        rating_config: RatingConfig | None = None,
    ) -> Store:
        """Open ``url`` (else ``$ARENA_DB``, else ``./arena.db``), creating the schema if empty.

        An older schema is upgraded only with ``upgrade=True`` (``arena db upgrade``); a schema
        this arena does not know raises ``SchemaError`` and nothing is changed.
        """
        config = rating_config if rating_config is not None else RatingConfig.from_env()
        engine, resolved = connect(url)
        try:
            shown = display_url(resolved)
            state, revision = guarded(shown, lambda: migrate.schema_state(engine, shown))
            if state is migrate.SchemaState.BEHIND and not upgrade:
                raise SchemaError(
                    f"database {shown} has schema revision {revision!r}, older than this "
                    f"arena's {migrate.head_revision()!r}: back it up, then run "
                    "`arena db upgrade` with the same --db"
                )
            if state is not migrate.SchemaState.CURRENT:
                guarded(shown, lambda: migrate.upgrade(engine, shown))
            store = cls(engine, resolved, config)
            store._ensure_rating_settings()
        except BaseException:
            engine.dispose()
            raise
        return store
