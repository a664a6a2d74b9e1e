"""The JavaScript sample bot (Node.js, @grpc/grpc-js): served over real gRPC like any bot."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from bot_process import CLOCK, BotProcess, first_request
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol import messages
from arena.rules import Decision, RuleSet

NODE_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "node_random"

pytestmark = pytest.mark.node


@pytest.fixture
def node_bot() -> Iterator[BotProcess]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (node not on PATH)")
    if not (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.skip(f"the Node bot's packages are not installed: run `npm ci` in {NODE_BOT}")
    folder = Path(tempfile.mkdtemp(prefix="node", dir="/tmp"))
    address = f"unix:{folder}/bot.sock"
    env = {**os.environ, "ARENA_BOT_ADDRESS": address, "ARENA_BOT_SEED": "5"}
    bot = BotProcess([node, "bot.js"], env, address, cwd=NODE_BOT)
    try:
        bot.wait_serving()
        yield bot
    finally:
        bot.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_node_bot_is_healthy(node_bot: BotProcess) -> None:
    health = health_pb2_grpc.HealthStub(node_bot.channel)
    for service in ("", "spades.v1.BotService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_node_bot_answers_every_decision_legally(node_bot: BotProcess) -> None:
    stub = node_bot.stub
    start = messages.start_match_request("match-1", 1, RuleSet(), "python", CLOCK)
    assert stub.StartMatch(start, timeout=5) == pb.StartMatchResponse()
    for seed in range(6):
        for decision in Decision:
            m, req = first_request(decision, seed)
            rpc = messages.RPCS[decision]
            response = getattr(stub, rpc.name)(req, timeout=5)
            action = messages.action_from_response(decision, response)
            assert m.is_legal(action), (seed, decision, action)
    end = pb.EndMatchRequest(match_id="match-1", seat=1, scores=[1, 2], hands_played=1)
    assert stub.EndMatch(end, timeout=5) == pb.EndMatchResponse()


def test_node_bot_stops_on_sigterm(node_bot: BotProcess) -> None:
    sock = Path(node_bot.target.removeprefix("unix:"))
    assert sock.exists()
    node_bot.proc.send_signal(signal.SIGTERM)
    assert node_bot.proc.wait(timeout=10) == 0
    assert not sock.exists()
    with pytest.raises(ProcessLookupError):
        os.killpg(node_bot.proc.pid, 0)  # nothing of its process group is left
    with pytest.raises(grpc.RpcError):
        health_pb2_grpc.HealthStub(node_bot.channel).Check(
            health_pb2.HealthCheckRequest(), timeout=1
        )
