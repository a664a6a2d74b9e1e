"""A bot served by a real child process, and real requests to ask it (shared by the tests)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena._gen.spades.v1 import bot_pb2_grpc
from arena.bot_protocol import messages
from arena.rules import Decision, Match

CLOCK = pb.Clock(move_time_ms=1000, time_bank_ms=5000)


def sigint_as_in_a_terminal() -> None:
    """A ``preexec_fn`` for a child that a test interrupts with SIGINT: the signal at its
    default, as a terminal's foreground command has it. A shell without job control starts a
    background job (``make test &``) with SIGINT ignored, a child inherits that, and Python
    then installs no KeyboardInterrupt handler: the test's Ctrl-C would be ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def first_request(decision: Decision, seed: int = 3) -> tuple[Match, Any]:
    """A real request for ``decision``, built from a real engine state, and that state."""
    m, rng = Match(seed), random.Random(seed)
    while m.decision is not decision:
        if m.decision is Decision.DOUBLE_NIL:
            # seat 0 declares, so that an exchange comes; seat 1 declines, so that it bids
            m.apply(m.to_act == 0 and decision is Decision.EXCHANGE)
        else:
            m.apply(m.random_action(rng))
    seat = m.to_act
    assert seat is not None
    legal = m.legal_actions() if decision in (Decision.PLAY, Decision.BID) else []
    return m, messages.build_request(decision, f"match-{seed}", m.observation(seat), legal, CLOCK)


class BotProcess:
    """A bot started as its own process group, with a channel to it; ``close()`` kills it."""

    def __init__(
        self, argv: list[str], env: dict[str, str], target: str, cwd: Path | None = None
    ) -> None:
        self.proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.target = target
        self._stderr: str | None = None
        self.channel = grpc.insecure_channel(target)
        self.stub = bot_pb2_grpc.BotServiceStub(self.channel)

    def wait_serving(self, timeout: float = 20.0) -> None:
        health = health_pb2_grpc.HealthStub(self.channel)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"bot exited with {self.proc.returncode}: {self.stderr()}")
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.05)
        pytest.fail(f"bot not serving after {timeout}s")

    def stderr(self) -> str:
        """What the bot wrote on stderr, once it has exited."""
        if self.proc.poll() is None:
            return ""
        if self._stderr is None:
            assert self.proc.stderr is not None
            self._stderr = self.proc.stderr.read().decode(errors="replace")
        return self._stderr

    def close(self) -> None:
        self.channel.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()


def standalone_bot(source: Path, into: Path) -> Path:
    """A self-contained copy of a test bot whose manifest runs a sibling's script
    (``../hostile/bot.py``): the script is copied in. A tournament runs each bot from a copy of
    its own directory alone, and the sandbox shows a bot nothing else."""
    import re
    import shutil

    target = into / source.name
    shutil.copytree(source, target)
    manifest = (target / "bot.toml").read_text()
    for folder, file in re.findall(r'"\.\./([A-Za-z0-9_]+)/([A-Za-z0-9_.]+)"', manifest):
        shutil.copy(source.parent / folder / file, target / file)
        manifest = manifest.replace(f'"../{folder}/{file}"', f'"{file}"')
    (target / "bot.toml").write_text(manifest)
    return target
