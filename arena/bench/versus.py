"""``arena bench versus OTHER_CHECKOUT``: this checkout against another, in turns, in one run.

A change's figures are only comparable with the figures of the code before it when both are
measured on the same machine under the same load. So each measurement (a probe) runs in a fresh
process of each checkout's own ``.venv``, the two alternating (ABBA order: A B, then B A), and the
figures compared are the sums over all turns. Probes use only interfaces both checkouts have
(``arena.bench.referee.measure``, ``arena.bench.tournament.run_once``,
``arena.bench.engine.measure``), so the other checkout may be any earlier commit that has them.

- ``tournament``: a round robin of two benchmark bots (``arena.bench.first_legal``, the SDK's
  ``serve``) through the tournament runner, K matches at once; matches/s, and the arena's CPU per
  decision (``getrusage``).
- ``referee``: ``arena bench referee`` (two benchmark bots, K matches at once, the default
  transport of each checkout): decisions/s and CPU per decision of the arena's process and of the
  bots' processes, from /proc.
- ``engine``: ``arena bench engine``: decisions/s, and decisions per CPU second of the probe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

_TOURNAMENT = """
import json, sys, tempfile
from pathlib import Path
from arena.bench.first_legal import manifest_dir
from arena.bench.tournament import run_once
k, games, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
with tempfile.TemporaryDirectory(prefix="arena-versus-") as tmp:
    bots = [manifest_dir(Path(tmp), f"first_legal_{i}") for i in range(2)]
    print(json.dumps(run_once(bots, k, games, seed, 2000)))
"""

_REFEREE = """
import json, sys
from arena.bench.referee import measure
print(json.dumps(measure(concurrency=int(sys.argv[1]), seconds=float(sys.argv[2]))))
"""

_ENGINE = """
import json, sys, time
from arena.bench.engine import measure
cpu = time.process_time()
result = measure(seconds=float(sys.argv[1]))
result["cpu_seconds"] = time.process_time() - cpu
print(json.dumps(result))
"""


_PROBE_ENV = {**os.environ, "ARENA_SANDBOX": "off"}
"""Bots run unsandboxed in both checkouts: an older one may have no sandbox, and the sandbox's
own cost is measured apart (``arena bench referee --sandbox compare``)."""


def _probe(checkout: Path, code: str, *args: object) -> dict[str, Any]:
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise ArenaError(f"{checkout} has no .venv (run make setup there)")
    done = subprocess.run(
        [str(python), "-c", code, *map(str, args)],
        cwd=checkout,
        env=_PROBE_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ArenaError(f"probe failed in {checkout}: {done.stderr.strip()[-500:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _turns(
    checkouts: tuple[Path, Path], rounds: int, code: str, *args: object
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``rounds`` probes of each checkout, alternating ABBA so that neither always goes first."""
    out: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for r in range(rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for side in order:
            out[side].append(_probe(checkouts[side], code, *args))
    return out


def _ratio(new: float, old: float) -> float | None:
    return round(new / old, 3) if old else None


def measure(
    other: Path,
    *,
    rounds: int = 2,
    concurrency: tuple[int, ...] = (1, 4),
    games: int = 3,
    seconds: float = 6.0,
    seed: int = 1,
) -> dict[str, Any]:
    """Measure this checkout (``new``) against ``other`` (``old``) in alternating turns."""
    here = Path(__file__).resolve().parents[2]
    other = other.resolve()
    pair = (other, here)
    result: dict[str, Any] = {"old": str(other), "new": str(here), "rounds": rounds, "rows": []}
    for k in concurrency:
        old, new = _turns(pair, rounds, _TOURNAMENT, k, games, seed)
        row: dict[str, Any] = {"probe": "tournament", "concurrency": k}
        for name, runs in (("old", old), ("new", new)):
            matches = sum(r["matches"] for r in runs)
            decisions = sum(r["decisions"] for r in runs)
            secs = sum(r["seconds"] for r in runs)
            row[name] = {
                "matches_per_s": round(matches / secs, 3),
                "decisions_per_s": round(decisions / secs, 1),
                "arena_cpu_us_per_decision": round(
                    1e6 * sum(r["arena_cpu_s"] for r in runs) / decisions, 1
                ),
                "faults": sum(r["faults"] for r in runs),
            }
        row["ratio"] = {
            key: _ratio(row["new"][key], row["old"][key])
            for key in ("matches_per_s", "arena_cpu_us_per_decision")
        }
        result["rows"].append(row)
    for k in concurrency:
        old, new = _turns(pair, rounds, _REFEREE, k, seconds)
        row = {"probe": "referee", "concurrency": k}
        for name, runs in (("old", old), ("new", new)):
            decisions = sum(r["decisions"] for r in runs)
            row[name] = {
                "decisions_per_s": round(decisions / sum(r["seconds"] for r in runs), 1),
                "arena_cpu_us_per_decision": round(
                    sum(r["arena_cpu_us_per_call"] * r["decisions"] for r in runs) / decisions, 1
                ),
                "bots_cpu_us_per_decision": round(
                    sum(r["bots_cpu_us_per_call"] * r["decisions"] for r in runs) / decisions, 1
                ),
            }
        row["ratio"] = {
            key: _ratio(row["new"][key], row["old"][key])
            for key in (
                "decisions_per_s",
                "arena_cpu_us_per_decision",
                "bots_cpu_us_per_decision",
            )
        }
        result["rows"].append(row)
    old, new = _turns(pair, rounds, _ENGINE, seconds)
    row = {"probe": "engine"}
    for name, runs in (("old", old), ("new", new)):
        decisions = sum(r["decisions"] for r in runs)
        row[name] = {
            "decisions_per_s": round(decisions / sum(r["seconds"] for r in runs), 1),
            # CPU time is steadier than the wall clock on a busy machine (set-up included).
            "decisions_per_cpu_s": round(decisions / sum(r["cpu_seconds"] for r in runs), 1),
        }
    row["ratio"] = {
        key: _ratio(row["new"][key], row["old"][key])
        for key in ("decisions_per_s", "decisions_per_cpu_s")
    }
    result["rows"].append(row)
    return result


def describe(result: dict[str, Any]) -> str:
    lines = [f"new: {result['new']}", f"old: {result['old']}", f"{result['rounds']} turns each"]
    for row in result["rows"]:
        head = row["probe"] + (f" K={row['concurrency']}" if "concurrency" in row else "")
        for key, ratio in row["ratio"].items():
            lines.append(
                f"{head:<14} {key:<27} old {row['old'][key]:>10,.1f}  new {row['new'][key]:>10,.1f}"
                f"  new/old {ratio}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    print(describe(measure(Path(sys.argv[1]))))
