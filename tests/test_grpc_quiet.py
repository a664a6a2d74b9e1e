"""gRPC's C-core logs to stderr on its own (``E1201 … add_port.cc:83] Failed to add port``, TLS
handshake failures): none of it reaches the user's terminal, only the arena's one-line error.
The real ``arena`` in child processes, with no GRPC_* variable inherited (the CLI sets its own
before grpc is imported); a control run with GRPC_VERBOSITY=ERROR shows what would leak."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_service import SANDBOX_ARGS, ArenaProcess, _self_signed

CORE_LINE = re.compile(r"^[EWID]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.cc:\d+\]", re.MULTILINE)
"""A line of gRPC C-core's own log (absl format), as ``E1201 12:27:04.310421 24979 x.cc:83]``."""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRPC_")}
    return {**env, **extra}


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True, text=True, timeout=120, env=_env(**env),
    )  # fmt: skip


def _only_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), done.stderr
    return lines[0]


@pytest.mark.slow
def test_a_taken_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ("serve", "--listen", f"127.0.0.1:{port}", "--db", str(tmp_path / "x.db"),
                *SANDBOX_ARGS)  # fmt: skip
        line = _only_line(_arena(*args))
        control = _arena(*args, GRPC_VERBOSITY="ERROR")
    assert line == f"arena: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    # The leak the CLI keeps off the terminal: C-core's own line about add_port.
    assert CORE_LINE.search(control.stderr) and "add_port" in control.stderr, control.stderr


@pytest.mark.slow
def test_https_against_a_plaintext_server_is_one_line(tmp_path: Path) -> None:
    server = ArenaProcess(tmp_path / "arena.db", env=_env())
    try:
        line = _only_line(_arena("ratings", "--server", f"https://{server.address}"))
        assert "the server does not speak TLS" in line, line
        listed = _arena("tournament", "list", "--server", f"https://{server.address}")
        assert "the server does not speak TLS" in _only_line(listed)
    finally:
        assert server.stop() == 0, "".join(server.lines)
    assert not CORE_LINE.search("".join(server.lines)), server.lines
    assert all(line.startswith("arena: ") for line in server.lines), server.lines


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls_handshake_failures_are_one_line_on_both_sides(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    server = ArenaProcess(
        tmp_path / "arena.db", "--tls-cert", str(cert), "--tls-key", str(key), env=_env()
    )
    try:
        untrusted = _only_line(_arena("ratings", "--server", f"https://{server.address}"))
        assert "its certificate is not trusted (self signed certificate)" in untrusted
        assert "--ca-file" in untrusted
        plain = _only_line(_arena("ratings", "--server", server.address))
        assert "use --server https://HOST:PORT" in plain, plain
        trusted = _arena("ratings", "--server", f"https://{server.address}", "--ca-file", str(cert))
        assert trusted.returncode == 0 and trusted.stderr == "", trusted.stderr
    finally:
        assert server.stop() == 0, "".join(server.lines)
    # The server saw two failed handshakes and logged none of C-core's lines about them.
    assert not CORE_LINE.search("".join(server.lines)), server.lines
    assert all(line.startswith("arena: ") for line in server.lines), server.lines
