"""The ArenaService servicer: a thin adapter from arena.v1 calls to the store, the submission
checks and the tournament manager. Every error a caller can act on becomes a status with the
library's own message (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED).

The methods are coroutines on the server's event loop; whatever touches the store or the disk
runs on the worker pool (``run_blocking``), so a slow call never stalls the loop and an open
stream never holds a worker."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from typing import Any, NoReturn

import grpc
from grpc import aio

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.arena.v1 import arena_pb2_grpc as pb_grpc
from arena.errors import ArenaError
from arena.rules.errors import InvalidRuleSetError
from arena.runtime.archive import ArchiveError
from arena.service.auth import Caller, current_caller
from arena.service.convert import (
    bot_to_pb,
    bot_version_to_pb,
    ladder_status_to_pb,
    leaderboard_row_to_pb,
)
from arena.service.permissions import PolicyError, QuotaError, check_bot_name
from arena.service.submission import BotSubmissions, VersionTakenError
from arena.service.tournaments import ShuttingDownError, TournamentManager, TournamentStateError
from arena.service.visibility import MatchView
from arena.store import NotFoundError, NotOwnerError, Store
from arena.tournament.entrants import sample_bot_dirs
from arena.visibility import SealedError, Visibility

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def _status_of(exc: BaseException) -> grpc.StatusCode | None:
    if isinstance(exc, QuotaError):
        return grpc.StatusCode.RESOURCE_EXHAUSTED
    if isinstance(exc, VersionTakenError):
        return grpc.StatusCode.ALREADY_EXISTS
    if isinstance(exc, NotOwnerError | PolicyError):
        return grpc.StatusCode.PERMISSION_DENIED
    if isinstance(exc, NotFoundError):
        return grpc.StatusCode.NOT_FOUND
    if isinstance(exc, ArchiveError | InvalidRuleSetError | ValueError):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(exc, SealedError | TournamentStateError):
        return grpc.StatusCode.FAILED_PRECONDITION
    if isinstance(exc, ShuttingDownError):
        return grpc.StatusCode.UNAVAILABLE
    if isinstance(exc, ArenaError):
        # The library's other refusals are about the request (an unknown bot, a bad bot name,
        # --games 0, a schedule that makes no sense), each with a message saying which.
        return grpc.StatusCode.INVALID_ARGUMENT
    return None


MAX_DETAIL_CHARS = 500
"""A status message is cut here: an error never echoes kilobytes of a caller's input."""


def short(message: str, limit: int = MAX_DETAIL_CHARS) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


async def abort_for(context: aio.ServicerContext, exc: BaseException, method: str) -> NoReturn:
    """The status for an exception the library raised; anything else is INTERNAL and logged."""
    code = _status_of(exc)
    if code is None:
        log.error("%s failed", method, exc_info=exc)
        await context.abort(grpc.StatusCode.INTERNAL, f"{method} failed; see the server log")
    await context.abort(code, short(str(exc)))
    raise AssertionError("unreachable")  # context.abort raises


def run_blocking_on(pool: Executor) -> Callable[..., Any]:
    """``await run_blocking(fn, *args)``: ``fn`` on a worker, with the caller's context."""

    async def run_blocking(fn: Callable[..., Any], *args: Any) -> Any:
        call = functools.partial(contextvars.copy_context().run, fn, *args)
        return await asyncio.get_running_loop().run_in_executor(pool, call)

    return run_blocking


class ArenaServicer(pb_grpc.ArenaServiceServicer):
    def __init__(
        self,
        store: Store,
        submissions: BotSubmissions,
        tournaments: TournamentManager,
        run_blocking: Callable[..., Any],
        *,
        max_submissions_at_once: int = 4,
    ) -> None:
        self._store = store
        self._submissions = submissions
        self._tournaments = tournaments
        self._run_blocking = run_blocking
        self._uploads = asyncio.Semaphore(max_submissions_at_once)

    async def _call(
        self, context: aio.ServicerContext, method: str, fn: Callable[..., Any], *args: Any
    ) -> Any:
        try:
            return await self._run_blocking(fn, *args)
        except Exception as exc:
            if isinstance(exc, aio.AbortError):
                raise
            await abort_for(context, exc, method)

    # -- bots --------------------------------------------------------------------------------

    async def SubmitBot(
        self, request: pb.SubmitBotRequest, context: aio.ServicerContext
    ) -> pb.SubmitBotResponse:
        async with self._uploads:
            return await self._call(context, "SubmitBot", self._submit, request, current_caller())

    def _submit(self, request: pb.SubmitBotRequest, caller: Caller) -> pb.SubmitBotResponse:
        if not request.archive:
            raise ArchiveError("the archive is empty: send the bot directory as a tar.gz")
        if request.name:
            check_bot_name(request.name, reserved=sample_bot_dirs(), admin=caller.admin)
        submitted = self._submissions.submit(
            request.archive,
            name=request.name or None,
            owner_token_id=caller.token_id,
            admin=caller.admin,
            reserved=sample_bot_dirs(),
        )
        bot = self._find_bot(submitted.version.name)
        return pb.SubmitBotResponse(
            bot=bot_to_pb(bot, bot.owner, with_versions=False),
            version=bot_version_to_pb(submitted.version),
            created=submitted.created,
        )

    async def ListBots(
        self, request: pb.ListBotsRequest, context: aio.ServicerContext
    ) -> pb.ListBotsResponse:
        return await self._call(context, "ListBots", self._list_bots)

    def _list_bots(self) -> pb.ListBotsResponse:
        return pb.ListBotsResponse(
            bots=[bot_to_pb(b, b.owner, with_versions=False) for b in self._store.list_bots()]
        )

    async def GetBot(
        self, request: pb.GetBotRequest, context: aio.ServicerContext
    ) -> pb.GetBotResponse:
        return await self._call(context, "GetBot", self._get_bot, request.name)

    def _get_bot(self, name: str) -> pb.GetBotResponse:
        bot = self._find_bot(name)
        return pb.GetBotResponse(bot=bot_to_pb(bot, bot.owner, with_versions=True))

    def _find_bot(self, name: str) -> Any:
        bots = self._store.list_bots()
        for bot in bots:
            if bot.name == name:
                return bot
        raise NotFoundError(f"unknown bot {short(name, 80)!r}; `arena bot list` shows the bots")

    # -- tournaments -------------------------------------------------------------------------

    async def StartTournament(
        self, request: pb.StartTournamentRequest, context: aio.ServicerContext
    ) -> pb.StartTournamentResponse:
        return await self._call(
            context, "StartTournament", self._start_tournament, request, current_caller()
        )

    def _start_tournament(
        self, request: pb.StartTournamentRequest, caller: Caller
    ) -> pb.StartTournamentResponse:
        tournament_id = self._tournaments.start(request, caller=caller)
        return pb.StartTournamentResponse(tournament=self._tournaments.describe(tournament_id))

    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: aio.ServicerContext
    ) -> pb.GetTournamentResponse:
        return await self._call(context, "GetTournament", self._get_tournament, request.id)

    def _get_tournament(self, tournament_id: int) -> pb.GetTournamentResponse:
        return pb.GetTournamentResponse(tournament=self._tournaments.describe(tournament_id))

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: aio.ServicerContext
    ) -> pb.ListTournamentsResponse:
        return await self._call(context, "ListTournaments", self._list_tournaments)

    def _list_tournaments(self) -> pb.ListTournamentsResponse:
        return pb.ListTournamentsResponse(tournaments=self._tournaments.list_all())

    async def CancelTournament(
        self, request: pb.CancelTournamentRequest, context: aio.ServicerContext
    ) -> pb.CancelTournamentResponse:
        return await self._call(
            context, "CancelTournament", self._cancel_tournament, request.id, current_caller()
        )

    def _cancel_tournament(self, tournament_id: int, caller: Caller) -> pb.CancelTournamentResponse:
        return pb.CancelTournamentResponse(
            tournament=self._tournaments.cancel(tournament_id, caller)
        )

    async def ResumeTournament(
        self, request: pb.ResumeTournamentRequest, context: aio.ServicerContext
    ) -> pb.ResumeTournamentResponse:
        return await self._call(
            context, "ResumeTournament", self._resume_tournament, request.id, current_caller()
        )

    def _resume_tournament(self, tournament_id: int, caller: Caller) -> pb.ResumeTournamentResponse:
        self._tournaments.resume(tournament_id, caller)
        return pb.ResumeTournamentResponse(tournament=self._tournaments.describe(tournament_id))

    async def WatchTournament(
        self, request: pb.WatchTournamentRequest, context: aio.ServicerContext
    ) -> AsyncIterator[pb.WatchTournamentResponse]:
        try:
            view = MatchView(self._store, current_caller())
            async for event in self._tournaments.watch(
                request.id, context, self._run_blocking, view
            ):
                yield event
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, aio.AbortError) or context.done():
                raise
            await abort_for(context, exc, "WatchTournament")

    # -- matches and ratings -----------------------------------------------------------------

    async def ListMatches(
        self, request: pb.ListMatchesRequest, context: aio.ServicerContext
    ) -> pb.ListMatchesResponse:
        return await self._call(
            context, "ListMatches", self._list_matches, request, current_caller()
        )

    def _list_matches(
        self, request: pb.ListMatchesRequest, caller: Caller
    ) -> pb.ListMatchesResponse:
        size = request.page_size or DEFAULT_PAGE_SIZE
        if not 0 < size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be 1 to {MAX_PAGE_SIZE}, got {request.page_size}")
        offset = parse_page_token(request.page_token)
        matches = self._store.list_matches(
            tournament_id=request.tournament_id or None,
            bot=request.bot or None,
            limit=offset + size + 1,
            newest_first=True,
        )
        page = matches[offset : offset + size]
        view = MatchView(self._store, caller)
        more = len(matches) > offset + size
        return pb.ListMatchesResponse(
            matches=[view.match(m) for m in page],
            next_page_token=str(offset + size) if more else "",
        )

    async def GetMatch(
        self, request: pb.GetMatchRequest, context: aio.ServicerContext
    ) -> pb.GetMatchResponse:
        return await self._call(context, "GetMatch", self._get_match, request.id, current_caller())

    def _get_match(self, match_id: str, caller: Caller) -> pb.GetMatchResponse:
        return MatchView(self._store, caller).record(self._store.get_match(match_id))

    async def GetMatchLog(
        self, request: pb.GetMatchLogRequest, context: aio.ServicerContext
    ) -> pb.GetMatchLogResponse:
        return await self._call(context, "GetMatchLog", self._match_log, request, current_caller())

    def _match_log(self, request: pb.GetMatchLogRequest, caller: Caller) -> pb.GetMatchLogResponse:
        """A seat's bot log, for the owner of that bot only (PERMISSION_DENIED otherwise)."""
        from arena.tournament.botlogs import read_match_log

        if request.seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {request.seat}")
        summary = self._store.get_match(request.match_id).summary
        Visibility(self._store, caller).check_log(summary, request.seat)
        logs = self._tournaments.logs_dir
        text = (
            None
            if logs is None
            else read_match_log(self._store, request.match_id, request.seat, data_dir=logs.parent)
        )
        return pb.GetMatchLogResponse(kept=text is not None, text=text or "")

    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: aio.ServicerContext
    ) -> pb.GetLeaderboardResponse:
        return await self._call(context, "GetLeaderboard", self._leaderboard)

    def _leaderboard(self) -> pb.GetLeaderboardResponse:
        return pb.GetLeaderboardResponse(
            entries=[leaderboard_row_to_pb(r) for r in self._store.leaderboard()]
        )

    async def GetLadderStatus(
        self, request: pb.GetLadderStatusRequest, context: aio.ServicerContext
    ) -> pb.GetLadderStatusResponse:
        return await self._call(context, "GetLadderStatus", self._ladder_status, current_caller())

    def _ladder_status(self, caller: Caller) -> pb.GetLadderStatusResponse:
        status = self._store.ladder_status()
        if status is None:
            raise NotFoundError("no ladder has run on this server (arena serve --ladder)")
        # A pause's whole reason (a start's output) is its owner's; the collusion flags are
        # the organiser's question, not a public accusation.
        return ladder_status_to_pb(
            status, Visibility(self._store, caller).pause_reason, flags=caller.admin
        )


MAX_PAGE_OFFSET = 10_000_000
"""Beyond any real page: a larger offset is a token this server never handed out."""


def parse_page_token(token: str) -> int:
    """The offset a ``next_page_token`` stands for; any other token is INVALID_ARGUMENT."""
    bad = ValueError(f"bad page_token {short(token, 40)!r}: pass the next_page_token you got")
    if not token:
        return 0
    if len(token) > 12 or not token.isdigit():
        raise bad
    offset = int(token)
    if offset > MAX_PAGE_OFFSET:
        raise bad
    return offset
