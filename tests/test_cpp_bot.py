"""The C++ sample bot (gRPC C++, Debian's libgrpc++-dev): built by its Makefile, served over real
gRPC, played against a Python sample bot. The proof that a compiled language is a bot language.

Skipped, saying why, where the C++ toolchain is missing; ``ARENA_TEST_REQUIRE_CPP=1`` (set by
CI) makes that a failure instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from bot_process import CLOCK, BotProcess, first_request
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol import messages
from arena.referee import ClockConfig, play_match, verify
from arena.rules import Decision, RuleSet
from arena.runtime import load_manifest, start_bot
from arena.tournament.entrants import sample_bot_unavailable

ROOT = Path(__file__).resolve().parent.parent
CPP_BOT = ROOT / "sample_bots" / "cpp_lowest"
BINARY = CPP_BOT / "build" / "cpp_lowest"

pytestmark = pytest.mark.cpp


def _missing_toolchain() -> str | None:
    for tool in ("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"]).returncode != 0:
        return "libgrpc++-dev is not installed (pkg-config grpc++)"
    return None


@pytest.fixture(scope="module")
def built() -> Path:
    """The bot's binary, built (or found up to date) by its own Makefile, as `make cpp-bot` does."""
    missing = _missing_toolchain()
    if missing is not None:
        if os.environ.get("ARENA_TEST_REQUIRE_CPP") == "1":
            pytest.fail(f"the C++ sample bot cannot be built: {missing}")
        pytest.skip(f"the C++ sample bot cannot be built here: {missing}")
    proc = subprocess.run(
        ["make", "-C", str(CPP_BOT), "--no-print-directory"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert os.access(BINARY, os.X_OK)
    return BINARY


@pytest.fixture
def cpp_bot(built: Path) -> Iterator[BotProcess]:
    folder = Path(tempfile.mkdtemp(prefix="cpp", dir="/tmp"))
    address = f"unix:{folder}/bot.sock"
    bot = BotProcess([str(built)], {**os.environ, "ARENA_BOT_ADDRESS": address}, address)
    try:
        bot.wait_serving()
        yield bot
    finally:
        bot.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_the_bot_serves_the_health_check_the_arena_asks(cpp_bot: BotProcess) -> None:
    health = health_pb2_grpc.HealthStub(cpp_bot.channel)
    for service in ("", "spades.v1.BotService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_the_bot_answers_every_decision_legally(cpp_bot: BotProcess) -> None:
    stub = cpp_bot.stub
    start = messages.start_match_request("match-1", 0, RuleSet(), "python", CLOCK)
    assert stub.StartMatch(start, timeout=5) == pb.StartMatchResponse()
    for seed in range(4):
        for decision in Decision:
            m, req = first_request(decision, seed)
            response = getattr(stub, messages.RPCS[decision].name)(req, timeout=5)
            action = messages.action_from_response(decision, response)
            assert m.is_legal(action), (seed, decision, action)
            if decision is Decision.PLAY:  # the lowest legal card, spades counting highest
                legal = m.legal_actions()
                plain = [c for c in legal if c // 13 != 3]  # type: ignore[operator]
                lowest = min(plain or legal, key=lambda c: (c % 13, c // 13))  # type: ignore[operator]
                assert action == lowest


@pytest.mark.slow
def test_a_match_against_a_python_bot_through_the_runtime_has_no_fault(built: Path) -> None:
    """Started from its manifest by the arena's runtime, on a unix: socket, two whole matches."""
    assert sample_bot_unavailable(CPP_BOT) is None  # built: the tournaments take it too
    with (
        start_bot(load_manifest(CPP_BOT)) as cpp,
        start_bot(load_manifest(ROOT / "sample_bots" / "cautious")) as python,
    ):
        assert cpp.target.startswith("unix:")
        results = [
            play_match(pair, seed=seed, rules=RuleSet(max_hands=30), clock=ClockConfig())
            for seed, pair in ((7, (cpp, python)), (8, (python, cpp)))
        ]
    for result in results:
        assert result.faults == (0, 0), result.detail
        assert not result.termination.is_forfeit and result.detail == ""
        assert result.hands_played >= 1
        assert verify(result).scores == result.scores


def test_the_bot_listens_on_tcp_too(built: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"127.0.0.1:{port}"
    bot = BotProcess([str(built), "--listen", address], dict(os.environ), address)
    try:
        bot.wait_serving()
        m, req = first_request(Decision.BID)
        assert m.is_legal(bot.stub.Bid(req, timeout=5).tricks)
    finally:
        bot.close()


def test_the_bot_stops_on_sigterm_and_removes_its_socket(cpp_bot: BotProcess) -> None:
    sock = Path(cpp_bot.target.removeprefix("unix:"))
    assert sock.exists()
    cpp_bot.proc.send_signal(signal.SIGTERM)
    assert cpp_bot.proc.wait(timeout=10) == 0
    assert not sock.exists()
    with pytest.raises(grpc.RpcError):
        health_pb2_grpc.HealthStub(cpp_bot.channel).Check(
            health_pb2.HealthCheckRequest(), timeout=1
        )


def test_without_an_address_it_says_so(built: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOT_ADDRESS"}
    proc = subprocess.run([str(built)], env=env, capture_output=True, text=True, timeout=10)
    assert proc.returncode == 2
    assert "no address" in proc.stderr
