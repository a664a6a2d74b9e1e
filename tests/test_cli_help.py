"""``arena … --help`` as a user reads it: flags without a type, arguments in upper case in the
usage line; the real ``arena`` entry point in a child process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def help_of(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (("h2h",), "Usage: arena h2h [OPTIONS] BOT_A BOT_B"),
        (("match", "play"), "Usage: arena match play [OPTIONS] BOT_A BOT_B"),
        (("compare",), "Usage: arena compare [OPTIONS] BOT_A BOT_B"),
        (("tournament", "show"), "Usage: arena tournament show [OPTIONS] TOURNAMENT_ID"),
        (("match", "list"), "Usage: arena match list [OPTIONS]"),
        ((), "Usage: arena [OPTIONS] COMMAND [ARGS]..."),
    ],
)
def test_help_shows_flags_as_flags_and_arguments_by_name(args: tuple[str, ...], usage: str) -> None:
    text = help_of(*args)
    assert usage in text
    assert "{bot_a}" not in text and "{tournament_id}" not in text
    assert "<bool>" not in text  # `--json true` is an error: a flag takes no value


def test_a_valued_option_keeps_its_type() -> None:
    text = help_of("match", "play")
    assert "--seed" in text and "<int>" in text
    assert "--record" in text and "--no-record" in text and "<bool>" not in text
