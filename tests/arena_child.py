"""Several command lines of the ``arena`` program in one child process: its entry point
(``python -m arena``'s ``main``) run once per command line, each one's exit code, standard output
and standard error apart. For tests of many quick command lines (errors, helps): each answer is
the program's own, without an interpreter and the arena's imports started again for each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

END = "\x00exit "
"""Written to both streams after each command line by the child, with its exit code."""

CHILD = f"""
import json, sys
from arena.__main__ import main
for args in json.loads(sys.argv[1]):
    sys.argv = ["arena", *args]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    print({END!r} + str(code), flush=True)
    print({END!r} + str(code), file=sys.stderr, flush=True)
"""


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


def _split(stream: str, count: int) -> list[tuple[int, str]]:
    parts = stream.split(END)
    assert len(parts) == count + 1, stream
    out = []
    for i in range(count):
        code = parts[i + 1].partition("\n")[0]
        text = parts[i].partition("\n")[2] if i else parts[0]
        out.append((int(code), text))
    return out


def run_arena(
    command_lines: Sequence[Sequence[str]],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 120,
) -> list[Done]:
    """Each command line's exit code, standard output and standard error, in order."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([list(a) for a in command_lines])],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    outs = _split(done.stdout, len(command_lines))
    errs = _split(done.stderr, len(command_lines))
    return [Done(o[0], o[1], e[1]) for o, e in zip(outs, errs, strict=True)]
