"""``arena … --help`` as a user reads it: flags without a type, arguments in upper case in the
usage line; the real ``arena`` entry point in a child process (one for all the helps)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HELPS: tuple[tuple[str, ...], ...] = (
    ("h2h",),
    ("match", "play"),
    ("compare",),
    ("tournament", "show"),
    ("match", "list"),
    (),
)
END = "\x00exit "
"""Printed after each help by the child, with the program's exit code."""

# The child runs the ``arena`` program's entry point (``python -m arena``'s ``main``) once per
# command line, in one process: each help is the program's own, without an interpreter and the
# arena's imports started over for each.
CHILD = f"""
import json, sys
from arena.__main__ import main
for args in json.loads(sys.argv[1]):
    sys.argv = ["arena", *args, "--help"]
    try:
        main()
    except SystemExit as exc:
        print({END!r} + str(exc.code), flush=True)
"""


@pytest.fixture(scope="module")
def helps() -> dict[tuple[str, ...], str]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(HELPS)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    parts = done.stdout.split(END)
    assert len(parts) == len(HELPS) + 1, done.stdout
    texts: dict[tuple[str, ...], str] = {}
    for i, args in enumerate(HELPS):
        code = parts[i + 1].partition("\n")[0]
        assert code == "0", (args, code, done.stderr)
        texts[args] = parts[i].partition("\n")[2] if i else parts[0]
    return texts


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
def test_help_shows_flags_as_flags_and_arguments_by_name(
    helps: dict[tuple[str, ...], str], args: tuple[str, ...], usage: str
) -> None:
    text = helps[args]
    assert usage in text
    assert "{bot_a}" not in text and "{tournament_id}" not in text
    assert "<bool>" not in text  # `--json true` is an error: a flag takes no value


def test_a_valued_option_keeps_its_type(helps: dict[tuple[str, ...], str]) -> None:
    text = helps[("match", "play")]
    assert "--seed" in text and "<int>" in text
    assert "--record" in text and "--no-record" in text and "<bool>" not in text
