"""The ArenaService servicer: a thin adapter from arena.v1 calls to the store, the submission
checks and the tournament manager. Every error a caller can act on becomes a status with the
library's own message (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.arena.v1 import arena_pb2_grpc as pb_grpc
from arena.errors import ArenaError
from arena.rules.errors import InvalidRuleSetError
from arena.service.archive import ArchiveError
from arena.service.auth import current_caller
from arena.service.convert import (
    bot_to_pb,
    bot_version_to_pb,
    leaderboard_row_to_pb,
    match_to_pb,
    stored_match_to_pb,
)
from arena.service.submission import BotSubmissions
from arena.service.tournaments import ShuttingDownError, TournamentManager
from arena.store import NotFoundError, NotOwnerError, Store

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000

F = TypeVar("F", bound=Callable[..., Any])


def _status_of(exc: BaseException) -> grpc.StatusCode | None:
    if isinstance(exc, NotOwnerError):
        return grpc.StatusCode.PERMISSION_DENIED
    if isinstance(exc, NotFoundError):
        return grpc.StatusCode.NOT_FOUND
    if isinstance(exc, ArchiveError | InvalidRuleSetError | ValueError):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(exc, ShuttingDownError):
        return grpc.StatusCode.UNAVAILABLE
    if isinstance(exc, ArenaError):
        # The library's other refusals are about the request (an unknown bot, a bad bot name,
        # --games 0, a schedule that makes no sense), each with a message saying which.
        return grpc.StatusCode.INVALID_ARGUMENT
    return None


def _abort_on_errors(method: F) -> F:
    """Turns the library's errors into statuses; anything else is INTERNAL and logged."""

    @functools.wraps(method)
    def wrapper(self: ArenaServicer, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return method(self, request, context)
        except (ArenaError, InvalidRuleSetError, ValueError) as exc:
            code = _status_of(exc)
            assert code is not None
            context.abort(code, str(exc))
        except Exception:
            log.exception("%s failed", method.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"{method.__name__} failed; see the server log")

    return wrapper  # type: ignore[return-value]


def _abort_on_errors_stream(method: F) -> F:
    @functools.wraps(method)
    def wrapper(self: ArenaServicer, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from method(self, request, context)
        except (ArenaError, InvalidRuleSetError, ValueError) as exc:
            code = _status_of(exc)
            assert code is not None
            context.abort(code, str(exc))
        except Exception:
            if not context.is_active():
                return
            log.exception("%s failed", method.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"{method.__name__} failed; see the server log")

    return wrapper  # type: ignore[return-value]


class ArenaServicer(pb_grpc.ArenaServiceServicer):
    def __init__(
        self, store: Store, submissions: BotSubmissions, tournaments: TournamentManager
    ) -> None:
        self._store = store
        self._submissions = submissions
        self._tournaments = tournaments

    # -- bots --------------------------------------------------------------------------------

    @_abort_on_errors
    def SubmitBot(
        self, request: pb.SubmitBotRequest, context: grpc.ServicerContext
    ) -> pb.SubmitBotResponse:
        if not request.archive:
            raise ArchiveError("the archive is empty: send the bot directory as a tar.gz")
        caller = current_caller()
        submitted = self._submissions.submit(
            request.archive, name=request.name or None, owner_token_id=caller.token_id
        )
        bot = self._find_bot(submitted.version.name)
        return pb.SubmitBotResponse(
            bot=bot_to_pb(bot, bot.owner, with_versions=False),
            version=bot_version_to_pb(submitted.version),
            created=submitted.created,
        )

    @_abort_on_errors
    def ListBots(
        self, request: pb.ListBotsRequest, context: grpc.ServicerContext
    ) -> pb.ListBotsResponse:
        return pb.ListBotsResponse(
            bots=[bot_to_pb(b, b.owner, with_versions=False) for b in self._store.list_bots()]
        )

    @_abort_on_errors
    def GetBot(self, request: pb.GetBotRequest, context: grpc.ServicerContext) -> pb.GetBotResponse:
        bot = self._find_bot(request.name)
        return pb.GetBotResponse(bot=bot_to_pb(bot, bot.owner, with_versions=True))

    def _find_bot(self, name: str) -> Any:
        bots = self._store.list_bots()
        for bot in bots:
            if bot.name == name:
                return bot
        known = ", ".join(b.name for b in bots) or "none registered yet"
        raise NotFoundError(f"unknown bot {name!r}; known bots: {known}")

    # -- tournaments -------------------------------------------------------------------------

    @_abort_on_errors
    def StartTournament(
        self, request: pb.StartTournamentRequest, context: grpc.ServicerContext
    ) -> pb.StartTournamentResponse:
        tournament_id = self._tournaments.start(request)
        return pb.StartTournamentResponse(tournament=self._tournament(tournament_id))

    @_abort_on_errors
    def GetTournament(
        self, request: pb.GetTournamentRequest, context: grpc.ServicerContext
    ) -> pb.GetTournamentResponse:
        return pb.GetTournamentResponse(tournament=self._tournament(request.id))

    @_abort_on_errors
    def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: grpc.ServicerContext
    ) -> pb.ListTournamentsResponse:
        return pb.ListTournamentsResponse(tournaments=self._tournaments.list_all())

    def _tournament(self, tournament_id: int) -> pb.Tournament:
        return self._tournaments.describe(tournament_id)

    @_abort_on_errors_stream
    def WatchTournament(
        self, request: pb.WatchTournamentRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.WatchTournamentResponse]:
        yield from self._tournaments.watch(request.id, context)

    # -- matches and ratings -----------------------------------------------------------------

    @_abort_on_errors
    def ListMatches(
        self, request: pb.ListMatchesRequest, context: grpc.ServicerContext
    ) -> pb.ListMatchesResponse:
        size = request.page_size or DEFAULT_PAGE_SIZE
        if not 0 < size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be 1 to {MAX_PAGE_SIZE}, got {request.page_size}")
        try:
            offset = int(request.page_token or "0")
        except ValueError:
            raise ValueError(
                f"bad page_token {request.page_token!r}: pass next_page_token"
            ) from None
        if offset < 0:
            raise ValueError(f"bad page_token {request.page_token!r}: pass next_page_token")
        matches = self._store.list_matches(
            tournament_id=request.tournament_id or None,
            bot=request.bot or None,
            limit=offset + size + 1,
            newest_first=True,
        )
        page = matches[offset : offset + size]
        more = len(matches) > offset + size
        return pb.ListMatchesResponse(
            matches=[match_to_pb(m) for m in page],
            next_page_token=str(offset + size) if more else "",
        )

    @_abort_on_errors
    def GetMatch(
        self, request: pb.GetMatchRequest, context: grpc.ServicerContext
    ) -> pb.GetMatchResponse:
        return stored_match_to_pb(self._store.get_match(request.id))

    @_abort_on_errors
    def GetMatchLog(
        self, request: pb.GetMatchLogRequest, context: grpc.ServicerContext
    ) -> pb.GetMatchLogResponse:
        from arena.tournament.botlogs import read_match_log

        if request.seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {request.seat}")
        summary = self._store.get_match(request.match_id).summary
        name = summary.players[request.seat].split("@", 1)[0]
        owner = next((b for b in self._store.list_bots() if b.name == name), None)
        caller = current_caller()
        if owner is None or caller.anonymous or owner.owner_token_id != caller.token_id:
            raise NotOwnerError(
                f"only the owner of {name} (the token that submitted it) may read its log"
            )
        logs = self._tournaments.logs_dir
        text = (
            None
            if logs is None
            else read_match_log(self._store, request.match_id, request.seat, data_dir=logs.parent)
        )
        return pb.GetMatchLogResponse(kept=text is not None, text=text or "")

    @_abort_on_errors
    def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: grpc.ServicerContext
    ) -> pb.GetLeaderboardResponse:
        return pb.GetLeaderboardResponse(
            entries=[leaderboard_row_to_pb(r) for r in self._store.leaderboard()]
        )
