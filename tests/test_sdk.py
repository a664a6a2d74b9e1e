"""The Python bot SDK: the view, the handler, and a bot served in a real child process."""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from bot_process import CLOCK, BotProcess, first_request
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena.bot_protocol import messages
from arena.rules import Decision, Match, RuleSet, parse_card
from arena.rules.observation import SeatView, TrickView
from arena.sdk import Bot, Clock, View, trick_winner
from arena.sdk.server import AddressError, resolve_address
from arena.sdk.service import BotAnswerError, BotHandler, view_of

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "sample_bots" / "random" / "bot.py"


# -- the view --------------------------------------------------------------------------------


def make_view(**changes: Any) -> View:
    seat = SeatView(score=0, bags=0, bid=3, double_nil=False, tricks_won=1, cards_exchanged=None)
    fields: dict[str, Any] = dict(
        match_id="m",
        decision=Decision.PLAY,
        seat=0,
        rules=RuleSet(),
        hand_number=1,
        first_drawer=1,
        hand=tuple(sorted(parse_card(c) for c in ("2c", "Kc", "5h", "As"))),
        looking_at=None,
        own_discards=(parse_card("3c"),),
        stock_size=0,
        seats=(seat, seat),
        tricks=(
            TrickView(leader=0, cards=(parse_card("Ac"), parse_card("4c")), winner=0),
            TrickView(leader=1, cards=(parse_card("Qh"),), winner=None),
        ),
        spades_broken=False,
        clock=Clock(move_time_ms=100, time_bank_ms=900),
        legal_cards=(parse_card("5h"),),
    )
    fields.update(changes)
    return View(**fields)


def test_the_view_helpers() -> None:
    v = make_view()
    assert v.opponent == 1 and v.me is v.seats[0] and not v.is_first_drawer
    assert v.current_trick is v.tricks[1] and v.completed_tricks == v.tricks[:1]
    assert v.led_card == parse_card("Qh") and v.led_suit == 2 and not v.leading
    assert v.tricks_left == 12
    assert v.in_suit(0) == (parse_card("2c"), parse_card("Kc"))
    seen = {"2c", "Kc", "5h", "As", "3c", "Ac", "4c", "Qh"}
    assert set(v.unseen) == set(range(52)) - {parse_card(c) for c in seen}
    assert v.clock.deadline_ms == 1000
    assert v.observation.hand == v.hand and v.observation.to_act == 0
    between = make_view(tricks=make_view().tricks[:1])
    assert between.current_trick is None and between.leading and between.led_card is None


@pytest.mark.parametrize(
    ("led", "answer", "winner"),
    [
        ("Qh", "Kh", "Kh"),
        ("Qh", "2h", "Qh"),
        ("Qh", "2s", "2s"),
        ("Qh", "Ac", "Qh"),
        ("3s", "As", "As"),
        ("As", "2s", "As"),
        ("5s", "Ah", "5s"),
    ],
)
def test_trick_winner(led: str, answer: str, winner: str) -> None:
    assert trick_winner(parse_card(led), parse_card(answer)) == parse_card(winner)
    assert make_view().wins_against(parse_card(answer), parse_card(led)) == (answer == winner)


# -- the handler, without gRPC ---------------------------------------------------------------


def test_the_view_of_a_request_is_the_engine_observation() -> None:
    for decision in Decision:
        m, req = first_request(decision)
        view = view_of(decision, req)
        seat = m.to_act
        assert seat is not None
        obs = m.observation(seat)
        assert view.observation == obs
        assert view.match_id == "match-3" and view.clock == Clock(1000, 5000)
        if decision is Decision.PLAY:
            assert list(view.legal_cards) == m.legal_actions()
        if decision is Decision.BID:
            assert view.legal_bids == tuple(range(14))
        if decision is Decision.EXCHANGE:
            assert view.max_cards == 3


def test_the_view_shows_the_own_put_aside_cards_and_counts_them_seen() -> None:
    m = Match(5)
    while m.decision is not Decision.EXCHANGE:
        m.apply(m.to_act == 0 if m.decision is Decision.DOUBLE_NIL else m.legal_actions()[0])
    aside = m.hand(0)[:3]
    m.apply(aside)
    while m.to_act != 0:
        m.apply(m.legal_actions()[0])
    req = messages.build_request(m.decision, "dn", m.observation(0), m.legal_actions(), CLOCK)
    view = view_of(m.decision, req)
    assert view.own_put_aside == aside and view.observation == m.observation(0)
    assert not set(aside) & set(view.unseen)


def test_default_bot_answers_are_legal() -> None:
    handler = BotHandler(Bot())
    for decision in Decision:
        m, req = first_request(decision, seed=9)
        action = messages.action_from_response(decision, handler.answer(decision, req))
        assert m.is_legal(action), (decision, action)


@pytest.mark.parametrize(
    ("method", "value", "message"),
    [
        ("draw", None, "draw\\(\\) must return True or False"),
        ("bid", "3", "bid\\(\\) must return an int"),
        ("bid", True, "bid\\(\\) must return an int"),
        ("play", 52, "play\\(\\) must return a card"),
        ("exchange", 7, "exchange\\(\\) must return a collection"),
        ("exchange", ["As"], "exchange\\(\\) must return a card"),
    ],
)
def test_a_bot_answer_of_the_wrong_type_is_an_error(
    method: str, value: object, message: str
) -> None:
    bot = Bot()
    setattr(bot, method, lambda view: value)
    decision = {"draw": Decision.DRAW, "bid": Decision.BID, "play": Decision.PLAY}.get(
        method, Decision.EXCHANGE
    )
    _, req = first_request(decision)
    with pytest.raises(BotAnswerError, match=message):
        BotHandler(bot).answer(decision, req)


def test_the_address_comes_from_the_argument_the_command_line_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_BOT_ADDRESS", "unix:/tmp/env.sock")
    assert resolve_address("127.0.0.1:1", argv=["--listen", "unix:/x"]) == "127.0.0.1:1"
    assert resolve_address(None, argv=["--listen", "unix:/x"]) == "unix:/x"
    assert resolve_address(None, argv=["--other", "1"]) == "unix:/tmp/env.sock"
    monkeypatch.delenv("ARENA_BOT_ADDRESS")
    with pytest.raises(AddressError, match="ARENA_BOT_ADDRESS"):
        resolve_address(None, argv=[])


# -- a real bot process ----------------------------------------------------------------------


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    # short: a Unix socket path must fit in 108 bytes
    path = Path(tempfile.mkdtemp(prefix="sdk", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def start_bot(sock_dir: Path) -> Iterator[Callable[..., BotProcess]]:
    started: list[BotProcess] = []

    def start(
        script: Path = RANDOM_BOT, *, listen_flag: bool = False, address: str | None = None
    ) -> BotProcess:
        address = address or f"unix:{sock_dir}/bot{len(started)}.sock"
        env = {**os.environ, "ARENA_BOT_SEED": "7"}
        argv = [sys.executable, str(script)]
        if listen_flag:
            argv += ["--listen", address]
            env.pop("ARENA_BOT_ADDRESS", None)
        else:
            env["ARENA_BOT_ADDRESS"] = address
        bot = BotProcess(argv, env, address, cwd=script.parent)
        started.append(bot)
        bot.wait_serving()
        return bot

    yield start
    for bot in started:
        bot.close()


def test_a_served_bot_reports_health_and_reflection(start_bot: Callable[..., BotProcess]) -> None:
    bot = start_bot()
    health = health_pb2_grpc.HealthStub(bot.channel)
    for service in ("", "spades.v1.BotService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as info:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    reflection = reflection_pb2_grpc.ServerReflectionStub(bot.channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (reply,) = list(reflection.ServerReflectionInfo(iter([request]), timeout=5))
    names = {s.name for s in reply.list_services_response.service}
    assert {"spades.v1.BotService", "grpc.health.v1.Health"} <= names


@pytest.mark.parametrize("name", ["random", "heuristic", "cautious"])
def test_a_served_sample_bot_answers_every_decision_legally(
    start_bot: Callable[..., BotProcess], name: str
) -> None:
    bot = start_bot(ROOT / "sample_bots" / name / "bot.py")
    start = messages.start_match_request("match-3", 0, RuleSet(), "rival", CLOCK)
    assert bot.stub.StartMatch(start, timeout=5) == pb.StartMatchResponse()
    for seed in range(4):
        for decision in Decision:
            m, req = first_request(decision, seed)
            rpc = messages.RPCS[decision]
            response = getattr(bot.stub, rpc.name)(req, timeout=5)
            assert isinstance(response, rpc.response_type)
            action = messages.action_from_response(decision, response)
            assert m.is_legal(action), (seed, decision, action)
    m, rng = Match(1), random.Random(1)
    while not m.hand_results:
        m.apply(m.random_action(rng))
    end_hand = messages.end_hand_request("match-3", 0, m.hand_results[0])
    assert bot.stub.EndHand(end_hand, timeout=5) == pb.EndHandResponse()
    end = messages.end_match_request("match-3", 0, 1, (10, 500), 3, m.outcome or _target())
    assert bot.stub.EndMatch(end, timeout=5) == pb.EndMatchResponse()


def _target() -> Any:
    from arena.rules import Termination

    return Termination.TARGET_REACHED


def test_one_process_serves_many_matches_at_once(start_bot: Callable[..., BotProcess]) -> None:
    bot = start_bot(listen_flag=True)
    requests = []
    for seed in range(24):
        m, req = first_request(Decision.PLAY, seed)
        req.match_id = f"concurrent-{seed}"
        requests.append((m, req))
    with futures.ThreadPoolExecutor(max_workers=12) as pool:
        answers = list(pool.map(lambda mr: bot.stub.Play(mr[1], timeout=10), requests))
    for (m, _), answer in zip(requests, answers, strict=True):
        assert m.is_legal(messages.action_from_response(Decision.PLAY, answer))


def test_a_bot_can_listen_on_tcp(start_bot: Callable[..., BotProcess]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bot = start_bot(address=f"127.0.0.1:{port}")
    m, req = first_request(Decision.BID)
    assert m.is_legal(messages.action_from_response(Decision.BID, bot.stub.Bid(req, timeout=5)))


def test_an_exception_in_the_bot_fails_the_rpc_with_internal(
    start_bot: Callable[..., BotProcess], sock_dir: Path
) -> None:
    script = sock_dir / "failing.py"
    script.write_text(
        textwrap.dedent(
            """
            from arena.sdk import Bot, serve

            class Failing(Bot):
                name = "failing"

                def play(self, view):
                    raise RuntimeError("no idea what to play in " + view.match_id)

                def bid(self, view):
                    return None

            serve(Failing())
            """
        )
    )
    bot = start_bot(script)
    _, req = first_request(Decision.PLAY)
    with pytest.raises(grpc.RpcError) as info:
        bot.stub.Play(req, timeout=5)
    assert info.value.code() == grpc.StatusCode.INTERNAL
    assert info.value.details() == "RuntimeError: no idea what to play in match-3"
    _, req = first_request(Decision.BID)
    with pytest.raises(grpc.RpcError) as info:
        bot.stub.Bid(req, timeout=5)
    assert info.value.code() == grpc.StatusCode.INTERNAL
    assert "bid() must return an int" in (info.value.details() or "")
    # a malformed request is the sender's fault, not the bot's
    with pytest.raises(grpc.RpcError) as info:
        bot.stub.Play(pb.PlayRequest(match_id="x"), timeout=5)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # and the process keeps serving
    _, req = first_request(Decision.DRAW)
    choice = bot.stub.Draw(req, timeout=5).choice
    assert choice in (pb.DRAW_CHOICE_KEEP, pb.DRAW_CHOICE_REJECT)
    os.killpg(bot.proc.pid, signal.SIGTERM)
    bot.proc.wait(timeout=10)
    assert "Traceback" in bot.stderr() and "no idea what to play" in bot.stderr()


def test_sigterm_stops_the_bot_gracefully(start_bot: Callable[..., BotProcess]) -> None:
    bot = start_bot()
    sock = Path(bot.target.removeprefix("unix:"))
    assert sock.exists()
    bot.proc.send_signal(signal.SIGTERM)
    assert bot.proc.wait(timeout=10) == 0
    assert not sock.exists()
    with pytest.raises(ProcessLookupError):
        os.killpg(bot.proc.pid, 0)  # nothing of its process group is left
    assert "shutting down" in bot.stderr()


def test_sigint_stops_the_bot_too(start_bot: Callable[..., BotProcess]) -> None:
    bot = start_bot()
    bot.proc.send_signal(signal.SIGINT)
    assert bot.proc.wait(timeout=10) == 0


def test_a_bot_without_an_address_exits_with_a_clear_message() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOT_ADDRESS"}
    result = subprocess.run(
        [sys.executable, str(RANDOM_BOT)], env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert "no address to listen on" in result.stderr and "ARENA_BOT_ADDRESS" in result.stderr
