"""The Makefile's first run: ``make demo`` installs the runtime alone, ``make setup`` (CI,
``make test``, ``make lint``) adds the dev tools, Ray, the research environments and buf; read
from ``make -n -B`` over a virtualenv that does not exist yet, as on a fresh clone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def planned(target: str, venv: Path) -> str:
    done = subprocess.run(
        # -B: every step of the target, as on a fresh clone, whatever this checkout has built.
        ["make", "-n", "-B", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_demo_installs_the_runtime_alone(tmp_path: Path) -> None:
    plan = planned("demo", tmp_path / "venv")
    assert "-m pip install --quiet --disable-pip-version-check -e ." in plan
    assert "[dev" not in plan and "ray" not in plan.replace("arena", "")
    assert "proto && npm ci" not in plan  # buf, the protobuf linter
    assert "cpp_lowest" not in plan and "apt-get" not in plan
    assert f"{tmp_path / 'venv'}/bin/arena demo" in plan


def test_make_setup_adds_the_dev_tools_ray_and_buf(tmp_path: Path) -> None:
    plan = planned("setup", tmp_path / "venv")
    runtime = plan.index("--disable-pip-version-check -e .")
    assert plan.index("-e '.[dev,ray,research]'") > runtime
    assert "cd proto && npm ci" in plan
    for target in ("test", "lint"):
        assert "-e '.[dev,ray,research]'" in planned(target, tmp_path / "venv")
