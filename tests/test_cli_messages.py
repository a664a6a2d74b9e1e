"""The command line's usage errors: one line ``arena: error: …`` with click's suggestion, exit
2, no box; the real ``arena`` entry point in a child process."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("matchh",), "No such command 'matchh'. Did you mean 'match'?"),
        (("match", "list", "--bott", "x"), "No such option: --bott"),
        (("tournament", "show", "notanumber"), "Invalid value for 'TOURNAMENT_ID'"),
        (("match", "logs", "m1", "--seat", "3"), "Invalid value for --seat: must be 0 or 1, got 3"),
    ],
)
def test_a_usage_error_is_one_line_with_exit_2(args: tuple[str, ...], said: str) -> None:
    done = run(*args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), done.stderr
    assert said in lines[0]
    assert lines[0].endswith(" --help`)") and "`arena " in lines[0]
    assert "╭" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("match", "./no/such/bot", "random", "--no-record"),
        ("tournament", "run", "./no/such/bot", "random", "--db", "sqlite://"),
        ("bot", "submit", "./no/such/bot", "--server", "127.0.0.1:1"),
    ],
)
def test_a_missing_bot_directory_says_no_such_directory(args: tuple[str, ...]) -> None:
    done = run(*args)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert line.startswith("arena: error: ") and line.endswith("no/such/bot: no such directory")


def test_https_against_a_plaintext_server_says_it_does_not_speak_tls() -> None:
    from concurrent import futures

    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        done = run("ratings", "--server", f"https://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "the server does not speak TLS" in lines[0], done.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("tournament", "run", "random", "heuristic", "--db", "sqlite://"), "--db and --server"),
        (
            ("tournament", "run", "random", "heuristic", "--log-dir", "logs", "--sandbox", "off"),
            "--log-dir, --sandbox and --server",
        ),
        (
            ("tournament", "resume", "1", "--db", "sqlite://", "-k", "2"),
            "--concurrency, --db and --server",
        ),
    ],
)
def test_local_options_beside_server_are_refused_before_any_call(
    args: tuple[str, ...], said: str
) -> None:
    # Nothing listens on port 1: the refusal comes before any connection is tried.
    done = run(*args, "--server", "127.0.0.1:1")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: " + said), done.stderr
    assert "do not go together" in lines[0]
