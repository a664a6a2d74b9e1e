"""A client of a running arena service: what the CLI's ``--server`` mode calls.

It wraps the generated stub with the things every caller needs: the token as
``authorization: Bearer`` metadata, TLS with an optional CA file, deadlines, and gRPC errors
turned into ``RemoteError`` (an ArenaError, so the CLI prints one line).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import grpc

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.arena.v1 import arena_pb2_grpc as pb_grpc
from arena._gen.spades.v1 import bot_pb2
from arena.errors import ArenaError
from arena.runtime.archive import pack_directory

SERVER_ENV = "ARENA_SERVER"
TOKEN_ENV = "ARENA_TOKEN"
CA_FILE_ENV = "ARENA_CA_FILE"
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
DEFAULT_TIMEOUT_S = 60.0


class RemoteError(ArenaError):
    """A call to the arena service failed; ``code`` is the gRPC status code."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class ArenaClient:
    """One connection to an arena service (``host:port``)."""

    def __init__(
        self,
        address: str,
        *,
        token: str | None = None,
        tls: bool = False,
        ca_file: Path | str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        if not address:
            raise ArenaError(
                f"no arena server address: pass --server HOST:PORT or set {SERVER_ENV}"
            )
        self.address = address
        self._tls = bool(tls or ca_file)
        self._token = token or None
        self._timeout = timeout
        options = [
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ]
        if tls or ca_file:
            root: bytes | None = None
            if ca_file:
                try:
                    root = Path(ca_file).read_bytes()
                except OSError as exc:
                    raise ArenaError(f"cannot read CA file {ca_file}: {exc.strerror}") from None
            credentials = grpc.ssl_channel_credentials(root_certificates=root)
            self._channel = grpc.secure_channel(address, credentials, options=options)
        else:
            self._channel = grpc.insecure_channel(address, options=options)
        self.stub = pb_grpc.ArenaServiceStub(self._channel)

    @classmethod
    def from_options(
        cls, server: str, token: str | None = None, ca_file: str | None = None, tls: bool = False
    ) -> ArenaClient:
        """A client from CLI options, falling back to ARENA_TOKEN and ARENA_CA_FILE."""
        return cls(
            server,
            token=token or os.environ.get(TOKEN_ENV),
            ca_file=ca_file or os.environ.get(CA_FILE_ENV) or None,
            tls=tls,
        )

    # ----------------------------------------------------------------------------------- calls

    def submit_bot(self, directory: Path, name: str | None = None) -> pb.SubmitBotResponse:
        archive = pack_directory(Path(directory))
        return self._call(
            self.stub.SubmitBot, pb.SubmitBotRequest(archive=archive, name=name or "")
        )

    def submit_archive(self, archive: bytes, name: str | None = None) -> pb.SubmitBotResponse:
        return self._call(
            self.stub.SubmitBot, pb.SubmitBotRequest(archive=archive, name=name or "")
        )

    def list_bots(self) -> list[pb.Bot]:
        return list(self._call(self.stub.ListBots, pb.ListBotsRequest()).bots)

    def get_bot(self, name: str) -> pb.Bot:
        return self._call(self.stub.GetBot, pb.GetBotRequest(name=name)).bot

    def start_tournament(
        self,
        bots: Sequence[str],
        *,
        games: int = 0,
        concurrency: int = 0,
        seed: int | None = None,
        move_timeout_ms: int = 0,
        policy: str | None = None,
        rules: bot_pb2.RuleSet | None = None,
        time_bank_ms: int = 0,
        max_faults: int = 0,
        deals: pb.DealMode = pb.DEAL_MODE_UNSPECIFIED,
        reveal_opponents: bool = False,
        compare: pb.Comparison | None = None,
    ) -> pb.Tournament:
        """Start a tournament; with ``compare``, a comparison of two bots (A first)."""
        request = pb.StartTournamentRequest(
            bots=list(bots),
            games=games,
            concurrency=concurrency,
            move_timeout_ms=move_timeout_ms,
            policy=policy_to_pb(policy),
            time_bank_ms=time_bank_ms,
            max_faults=max_faults,
            deals=deals,
            reveal_opponents=reveal_opponents,
        )
        if seed is not None:
            request.seed = seed
        if rules is not None:
            request.rules.CopyFrom(rules)
        if compare is not None:
            request.compare.CopyFrom(compare)
        return self._call(self.stub.StartTournament, request).tournament

    def get_tournament(self, tournament_id: int) -> pb.Tournament:
        return self._call(
            self.stub.GetTournament, pb.GetTournamentRequest(id=tournament_id)
        ).tournament

    def list_tournaments(self) -> list[pb.Tournament]:
        return list(self._call(self.stub.ListTournaments, pb.ListTournamentsRequest()).tournaments)

    def watch_tournament(self, tournament_id: int) -> Iterator[pb.WatchTournamentResponse]:
        """The tournament's events until it ends (no deadline: a tournament may take hours).

        The server ends a watch after a while with the tournament still RUNNING: the watch is
        then taken up again, without repeating the matches already sent."""
        seen: set[str] = set()
        while True:
            last: pb.WatchTournamentResponse | None = None
            try:
                for event in self.stub.WatchTournament(
                    pb.WatchTournamentRequest(id=tournament_id), metadata=self._metadata()
                ):
                    last = event
                    if event.HasField("match"):
                        if event.match.id in seen:
                            continue
                        seen.add(event.match.id)
                    yield event
            except grpc.RpcError as exc:
                raise self._error(exc) from None
            if last is None or last.tournament.state != pb.TOURNAMENT_STATE_RUNNING:
                return

    def cancel_tournament(self, tournament_id: int) -> pb.Tournament:
        return self._call(
            self.stub.CancelTournament, pb.CancelTournamentRequest(id=tournament_id)
        ).tournament

    def resume_tournament(self, tournament_id: int) -> pb.Tournament:
        """Have the server play the rest of an interrupted tournament; follow it with
        ``watch_tournament``."""
        return self._call(
            self.stub.ResumeTournament, pb.ResumeTournamentRequest(id=tournament_id)
        ).tournament

    def list_matches(
        self, *, tournament_id: int = 0, bot: str = "", page_size: int = 0, page_token: str = ""
    ) -> pb.ListMatchesResponse:
        return self._call(
            self.stub.ListMatches,
            pb.ListMatchesRequest(
                tournament_id=tournament_id, bot=bot, page_size=page_size, page_token=page_token
            ),
        )

    def get_match(self, match_id: str) -> pb.GetMatchResponse:
        return self._call(self.stub.GetMatch, pb.GetMatchRequest(id=match_id))

    def match_log(self, match_id: str, seat: int) -> pb.GetMatchLogResponse:
        """One seat's bot log of a match (its owner's token only)."""
        return self._call(
            self.stub.GetMatchLog, pb.GetMatchLogRequest(match_id=match_id, seat=seat)
        )

    def leaderboard(self) -> list[pb.LeaderboardEntry]:
        return list(self._call(self.stub.GetLeaderboard, pb.GetLeaderboardRequest()).entries)

    def ladder_status(self) -> pb.GetLadderStatusResponse:
        return self._call(self.stub.GetLadderStatus, pb.GetLadderStatusRequest())

    # -------------------------------------------------------------------------------- plumbing

    def _metadata(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self._token}")] if self._token else []

    def _call(self, method: Any, request: Any) -> Any:
        try:
            return method(request, metadata=self._metadata(), timeout=self._timeout)
        except grpc.RpcError as exc:
            raise self._error(exc) from None

    def _error(self, exc: grpc.RpcError) -> RemoteError:
        code: grpc.StatusCode = exc.code()
        details: str = exc.details() or ""
        if code == grpc.StatusCode.UNAVAILABLE:
            lowered = details.lower()
            if self._tls and "certificate_verify_failed" in lowered:
                why = details.split("CERTIFICATE_VERIFY_FAILED", 1)[-1].strip(": ")
                why = why.split(":", 1)[0].strip() or "not trusted"
                return RemoteError(
                    f"cannot reach the arena at {self.address} over TLS: its certificate is not "
                    f"trusted ({why}): pass the CA that signed it with --ca-file (or "
                    f"{CA_FILE_ENV})",
                    code,
                )
            if self._tls and "peer name" in lowered:
                return RemoteError(
                    f"cannot reach the arena at {self.address} over TLS: its certificate is not "
                    "for that name (connect by a name or address the certificate lists)",
                    code,
                )
            if self._tls and ("handshake" in lowered or "wrong_version_number" in lowered):
                return RemoteError(
                    f"cannot reach the arena at {self.address} over TLS: the server does not "
                    "speak TLS (use HOST:PORT without https://, or start the server with "
                    "--tls-cert and --tls-key)",
                    code,
                )
            if not self._tls and "socket closed" in lowered:
                details += " (if the server serves TLS, use --server https://HOST:PORT)"
            return RemoteError(f"cannot reach the arena at {self.address}: {details}", code)
        return RemoteError(f"arena at {self.address}: {code.name}: {details}", code)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def policy_to_pb(policy: str | None) -> pb.FaultPolicy:
    if policy is None:
        return pb.FAULT_POLICY_UNSPECIFIED
    try:
        return cast(pb.FaultPolicy, pb.FaultPolicy.Value("FAULT_POLICY_" + policy.upper()))
    except ValueError:
        raise ArenaError(f"unknown fault policy {policy!r}: use forfeit or substitute") from None
