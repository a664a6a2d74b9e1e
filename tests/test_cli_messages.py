"""The command line's usage errors: one line ``arena: error: …`` with click's suggestion, exit
2, no box; the real ``arena`` entry point in a child process (one for the command lines that
need nothing else running, tests/arena_child.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from arena_child import Done, run_arena


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120
    )


USAGE = [
    (("matchh",), "No such command 'matchh'. Did you mean 'match'?"),
    (("match", "list", "--bott", "x"), "No such option: --bott"),
    (("tournament", "show", "notanumber"), "Invalid value for 'TOURNAMENT_ID'"),
    (("match", "logs", "m1", "--seat", "3"), "Invalid value for --seat: must be 0 or 1, got 3"),
]
NO_DIRECTORY = [
    ("match", "./no/such/bot", "random", "--no-record"),
    ("tournament", "run", "./no/such/bot", "random", "--db", "sqlite://"),
    ("bot", "submit", "./no/such/bot", "--server", "127.0.0.1:1"),
]
BESIDE_SERVER = [
    (("tournament", "run", "random", "heuristic", "--db", "sqlite://"), "--db and --server"),
    (
        ("tournament", "run", "random", "heuristic", "--log-dir", "logs", "--sandbox", "off"),
        "--log-dir, --sandbox and --server",
    ),
    (
        ("tournament", "resume", "1", "--db", "sqlite://", "-k", "2"),
        "--concurrency, --db and --server",
    ),
]


@pytest.fixture(scope="module")
def answers() -> dict[tuple[str, ...], Done]:
    """Each command line's answer below but the TLS one's, all from one child process."""
    lines = [
        *(args for args, _ in USAGE),
        *NO_DIRECTORY,
        # Nothing listens on port 1: the refusal comes before any connection is tried.
        *((*args, "--server", "127.0.0.1:1") for args, _ in BESIDE_SERVER),
    ]
    return dict(zip(lines, run_arena(lines), strict=True))


@pytest.mark.parametrize(("args", "said"), USAGE)
def test_a_usage_error_is_one_line_with_exit_2(
    answers: dict[tuple[str, ...], Done], args: tuple[str, ...], said: str
) -> None:
    done = answers[args]
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), done.stderr
    assert said in lines[0]
    assert lines[0].endswith(" --help`)") and "`arena " in lines[0]
    assert "╭" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args", NO_DIRECTORY)
def test_a_missing_bot_directory_says_no_such_directory(
    answers: dict[tuple[str, ...], Done], args: tuple[str, ...]
) -> None:
    done = answers[args]
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


@pytest.mark.parametrize(("args", "said"), BESIDE_SERVER)
def test_local_options_beside_server_are_refused_before_any_call(
    answers: dict[tuple[str, ...], Done], args: tuple[str, ...], said: str
) -> None:
    done = answers[(*args, "--server", "127.0.0.1:1")]
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: " + said), done.stderr
    assert "do not go together" in lines[0]
