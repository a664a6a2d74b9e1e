"""The service against a hostile community member, for real: `arena serve` on a free port of
127.0.0.1, attacked with the member's own stubs (issue 11).

Covered: idle reflection and watch streams never freeze health or unary reads; streams are
capped per address; idle reflection streams are closed; every request but SubmitBot's is small;
errors never echo a caller's input; page tokens; tournament requests bounded (games, bots,
rounds, matches, clocks, faults); archives with huge headers, deep folders and big manifests;
the server restarts over leftovers; quotas; cancelling; who may start what; secret deal seeds;
what others see of a bot's failure.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from test_service import ArenaProcess, arena_cli, bearer, bot_copy, make_token

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.arena.v1 import arena_pb2_grpc as pb_grpc
from arena.service.archive import pack_directory

STREAMS_OF_EACH_KIND = 200
CHANNELS = 8
"""Connections the streams are spread over (a connection carries at most 100 at once)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArenaProcess, str, str]]:
    """A server, a member token (with bot ``m1``) and an admin token."""
    root = tmp_path_factory.mktemp("hardening")
    db = root / "arena.db"
    member = make_token(db, "member")
    admin = make_admin_token(db, "root")
    server = ArenaProcess(db, "--shutdown-grace", "0")
    with grpc.insecure_channel(server.address) as channel:
        service = pb_grpc.ArenaServiceStub(channel)
        service.SubmitBot(
            pb.SubmitBotRequest(archive=pack_directory(bot_copy(root, "m1"))),
            metadata=bearer(member),
            timeout=60,
        )
    yield server, member, admin
    assert server.stop() == 0, "".join(server.lines)


def make_admin_token(db: Path, name: str) -> str:
    result = arena_cli("token", "create", name, "--admin", "--db", str(db))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _channel_options() -> list[tuple[str, int]]:
    # A channel of its own connection: Python channels with equal options share one otherwise.
    return [("grpc.use_local_subchannel_pool", 1)]


def _p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def _open_idle_streams(address: str, tournament_id: int) -> tuple[list[object], list[object]]:
    channels = [
        grpc.aio.insecure_channel(address, options=_channel_options()) for _ in range(CHANNELS)
    ]
    calls: list[object] = []
    reflections = []
    watches = []
    for i in range(STREAMS_OF_EACH_KIND):
        channel = channels[i % CHANNELS]
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
        await reflection.write(reflection_pb2.ServerReflectionRequest(list_services=""))
        reflections.append(reflection)
        watch = pb_grpc.ArenaServiceStub(channel).WatchTournament(
            pb.WatchTournamentRequest(id=tournament_id)
        )
        watches.append(watch)
    # Every stream answered once: each is open on the server, then left idle.
    for reflection in reflections:
        reply = await asyncio.wait_for(reflection.read(), 30)
        assert reply.list_services_response.service
    for watch in watches:
        event = await asyncio.wait_for(watch.read(), 30)
        assert event.tournament.id == tournament_id
    calls.extend(reflections)
    calls.extend(watches)
    return calls, channels  # type: ignore[return-value]


async def _latencies(address: str, rounds: int) -> tuple[list[float], list[float]]:
    async with grpc.aio.insecure_channel(address, options=_channel_options()) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        service = pb_grpc.ArenaServiceStub(channel)
        checks: list[float] = []
        boards: list[float] = []
        for _ in range(rounds):
            start = time.perf_counter()
            reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
            checks.append(time.perf_counter() - start)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            start = time.perf_counter()
            await service.GetLeaderboard(pb.GetLeaderboardRequest(), timeout=5)
            boards.append(time.perf_counter() - start)
        return checks, boards


@pytest.mark.slow
def test_idle_streams_never_freeze_health_or_reads(
    served: tuple[ArenaProcess, str, str],
) -> None:
    """200 idle reflection streams and 200 idle watches (on main, 40 of either froze every
    call: each held one of 32 threads); health and GetLeaderboard keep a p99 under 200 ms."""
    server, member, _ = served
    with grpc.insecure_channel(server.address) as channel:
        service = pb_grpc.ArenaServiceStub(channel)
        started = service.StartTournament(
            pb.StartTournamentRequest(
                bots=["m1", "random"], games=500, concurrency=1, move_timeout_ms=5000
            ),
            metadata=bearer(member),
            timeout=30,
        )
    tournament_id = started.tournament.id

    async def attack() -> tuple[list[float], list[float]]:
        calls, channels = await _open_idle_streams(server.address, tournament_id)
        try:
            await _latencies(server.address, 10)  # warm up
            return await _latencies(server.address, 200)
        finally:
            for call in calls:
                call.cancel()  # type: ignore[attr-defined]
            for channel in channels:
                await channel.close()  # type: ignore[attr-defined]

    checks, boards = asyncio.run(attack())
    assert _p99(checks) < 0.2, f"health p99 {_p99(checks) * 1000:.0f} ms"
    assert _p99(boards) < 0.2, f"GetLeaderboard p99 {_p99(boards) * 1000:.0f} ms"
    _cancel(server, member, tournament_id)


def _cancel(server: ArenaProcess, token: str, tournament_id: int) -> None:
    with grpc.insecure_channel(server.address) as channel:
        pb_grpc.ArenaServiceStub(channel).CancelTournament(
            pb.CancelTournamentRequest(id=tournament_id), metadata=bearer(token), timeout=60
        )


def test_streams_are_capped_per_address_and_idle_ones_closed(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    make_token(db, "x")
    server = ArenaProcess(
        db, "--max-streams-per-peer", "5", "--stream-idle-timeout", "1", "--shutdown-grace", "0"
    )
    try:

        async def attack() -> None:
            async with grpc.aio.insecure_channel(server.address) as channel:
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                open_calls = []
                for _ in range(5):
                    call = stub.ServerReflectionInfo()
                    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                    await asyncio.wait_for(call.read(), 10)
                    open_calls.append(call)
                refused = stub.ServerReflectionInfo()
                await refused.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await asyncio.wait_for(refused.read(), 10)
                assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "streams are open from 127.0.0.1" in str(info.value.details())
                # Unary calls are not streams: still answered.
                health = health_pb2_grpc.HealthStub(channel)
                await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                # The idle ones are closed by the server after the idle timeout.
                for call in open_calls:
                    with pytest.raises(grpc.aio.AioRpcError) as info:
                        await asyncio.wait_for(call.read(), 10)
                    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                # ...which frees their places.
                again = stub.ServerReflectionInfo()
                await again.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                assert (await asyncio.wait_for(again.read(), 10)).list_services_response
                again.cancel()

        asyncio.run(attack())
    finally:
        assert server.stop() == 0, "".join(server.lines)


def test_reads_take_small_requests_and_errors_never_echo_them(
    served: tuple[ArenaProcess, str, str],
) -> None:
    server, _, _ = served
    with grpc.insecure_channel(server.address) as channel:
        service = pb_grpc.ArenaServiceStub(channel)
        with pytest.raises(grpc.RpcError) as info:
            service.GetBot(pb.GetBotRequest(name="x" * 100_000), timeout=10)
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "GetBot takes at most" in str(info.value.details())
        with pytest.raises(grpc.RpcError) as info:
            service.GetBot(pb.GetBotRequest(name="y" * 10_000), timeout=10)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        assert len(str(info.value.details())) < 600


def test_page_tokens_out_of_range_are_invalid_argument(
    served: tuple[ArenaProcess, str, str],
) -> None:
    server, _, _ = served
    with grpc.insecure_channel(server.address) as channel:
        service = pb_grpc.ArenaServiceStub(channel)
        for token in ("99999999999999999999999", "-1", "1e9", "abc", "9" * 5000):
            with pytest.raises(grpc.RpcError) as info:
                service.ListMatches(pb.ListMatchesRequest(page_token=token), timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, token
            assert len(str(info.value.details())) < 200
