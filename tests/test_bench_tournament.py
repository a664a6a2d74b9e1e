"""``arena bench tournament``'s options: a deal mode it does not know, or one given where it has
no meaning, is one line and exit 2, before any bot is started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--deals", "shared"], "--deals must be one of pairs, duplicate, independent"),
        (["--deals", "duplicate", "--ordering"], "--deals is for the plain benchmark"),
        (["--deals", "independent", "--ray", "local"], "--deals is for the plain benchmark"),
    ],
)
def test_a_bad_deal_mode_is_one_line(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "tournament", *args],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert message in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
