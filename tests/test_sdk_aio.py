"""The SDK's grpc.aio server: where a bot's methods run, and concurrent matches on one server."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from bot_process import CLOCK, first_request

from arena._gen.spades.v1 import bot_pb2 as pb
from arena._gen.spades.v1 import bot_pb2_grpc
from arena.bot_protocol import messages
from arena.referee import play_match, verify
from arena.rules import Decision, RuleSet
from arena.runtime.remote import connect_remote
from arena.sdk import Bot, View, aio_service, start
from arena.sdk.aio_service import Handlers
from arena.sdk.server import BotServer

SHORT = RuleSet(max_hands=3)

# -- the policy ------------------------------------------------------------------------------


def _where() -> int:
    return threading.get_ident()


def test_inline_runs_every_call_on_the_loop_and_threads_on_the_pool() -> None:
    with futures.ThreadPoolExecutor(2) as pool:

        def both(handlers: Handlers) -> tuple[set[int], int]:
            async def go() -> tuple[set[int], int]:
                seen = {await handlers.call(lambda _: _where(), None) for _ in range(5)}
                return seen, threading.get_ident()

            return asyncio.run(go())

        seen, loop = both(Handlers("inline", None))
        assert seen == {loop}
        seen, loop = both(Handlers("threads", pool))
        assert loop not in seen


def test_auto_moves_quick_calls_inline_and_slow_ones_back_for_good() -> None:
    with futures.ThreadPoolExecutor(2) as pool:
        handlers = Handlers("auto", pool)

        async def go() -> tuple[list[int], int]:
            loop = threading.get_ident()
            where = [await handlers.call(lambda _: _where(), None)]
            assert where[0] != loop and not handlers.inline
            for _ in range(aio_service.PROMOTE_AFTER):
                await handlers.call(lambda _: None, None)
            assert handlers.inline and not handlers.settled
            where.append(await handlers.call(lambda _: _where(), None))
            # An inline call that takes long sends the calls back to the pool, for good.
            await handlers.call(lambda _: threading.Event().wait(aio_service.SLOW_S * 2), None)
            assert not handlers.inline and handlers.settled
            for _ in range(aio_service.PROMOTE_AFTER + 5):
                where.append(await handlers.call(lambda _: _where(), None))
            return where, loop

        where, loop = asyncio.run(go())
        assert where[1] == loop
        assert loop not in where[2:]
        assert not handlers.inline


def test_auto_counts_only_quick_calls_in_a_row() -> None:
    with futures.ThreadPoolExecutor(2) as pool:
        handlers = Handlers("auto", pool)

        async def go() -> None:
            for _ in range(aio_service.PROMOTE_AFTER - 1):
                await handlers.call(lambda _: None, None)
            await handlers.call(lambda _: threading.Event().wait(aio_service.QUICK_S * 2), None)
            for _ in range(aio_service.PROMOTE_AFTER - 1):
                await handlers.call(lambda _: None, None)
            assert not handlers.inline
            with pytest.raises(ZeroDivisionError):
                await handlers.call(lambda _: 1 // 0, None)
            for _ in range(aio_service.PROMOTE_AFTER - 1):
                await handlers.call(lambda _: None, None)
            assert not handlers.inline
            await handlers.call(lambda _: None, None)
            assert handlers.inline

        asyncio.run(go())


def test_a_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="handlers must be one of"):
        Handlers("fast", None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a thread pool"):
        Handlers("threads", None)


# -- a real server ---------------------------------------------------------------------------


class _Gated(Bot):
    """Plays the first legal card; in match "slow" only once the test opens the gate."""

    name = "gated"

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.entered = threading.Event()

    def play(self, view: View) -> int:
        if view.match_id == "slow":
            self.entered.set()
            if not self.gate.wait(10):
                raise RuntimeError("the gate was never opened")
        return view.legal_cards[0]


@pytest.fixture
def served(tmp_path: Any) -> Iterator[Any]:
    servers: list[BotServer] = []

    def serve(bot: Bot, handlers: Any) -> BotServer:
        server = start(bot, f"unix:{tmp_path}/bot{len(servers)}.sock", handlers=handlers)
        servers.append(server)
        return server

    yield serve
    for server in servers:
        server.stop(0)


@pytest.mark.parametrize("handlers", ["threads", "auto"])
def test_a_bot_thinking_in_one_match_answers_in_another(served: Any, handlers: str) -> None:
    bot = _Gated()
    server = served(bot, handlers)
    with grpc.insecure_channel(server.address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        _, slow = first_request(Decision.PLAY, 1)
        slow.match_id = "slow"
        m, quick = first_request(Decision.PLAY, 2)
        quick.match_id = "quick"
        pending = stub.Play.future(slow, timeout=20)
        assert bot.entered.wait(10)
        # The slow match's call is in the bot's method, waiting: the other match is answered.
        answer = stub.Play(quick, timeout=10)
        assert m.is_legal(messages.action_from_response(Decision.PLAY, answer))
        assert not pending.done()
        bot.gate.set()
        assert pending.result(timeout=10).HasField("card")


def test_inline_serves_a_session_and_unary_calls_alike(served: Any) -> None:
    server = served(_Gated(), "inline")
    with grpc.insecure_channel(server.address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        m, req = first_request(Decision.PLAY, 3)
        unary = stub.Play(req, timeout=10)
        requests = [
            pb.PlaySessionRequest(
                seq=1, start_match=messages.start_match_request("s", 0, RuleSet(), "x", CLOCK)
            ),
            pb.PlaySessionRequest(seq=2, play=req),
            pb.PlaySessionRequest(seq=3, play=pb.PlayRequest(match_id="x")),  # malformed
        ]
        answers = list(stub.PlaySession(iter(requests), timeout=10))
    assert [a.seq for a in answers] == [1, 2, 3]
    assert answers[0].HasField("start_match")
    assert answers[1].play == unary and m.is_legal(
        messages.action_from_response(Decision.PLAY, answers[1].play)
    )
    assert answers[2].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


@pytest.mark.parametrize("handlers", ["auto", "inline"])
def test_one_aio_server_plays_concurrent_matches(tmp_path: Any, handlers: str) -> None:
    from arena.bench.first_legal import FirstLegal

    servers = [start(FirstLegal(), "127.0.0.1:0", handlers=handlers) for _ in range(2)]
    try:
        bots = [connect_remote(f"fl{i}", s.address) for i, s in enumerate(servers)]
        try:
            with futures.ThreadPoolExecutor(4) as pool:
                results = list(
                    pool.map(
                        lambda seed: play_match((bots[0], bots[1]), seed=seed, rules=SHORT),
                        range(4),
                    )
                )
        finally:
            for bot in bots:
                bot.stop()
    finally:
        for server in servers:
            server.stop(0)
    for result in results:
        assert result.faults == (0, 0), result.detail
        assert result.hands_played == 3 and len(result.decisions) > 100
        verify(result)
