"""``arena doctor``: what this host offers the bot sandbox, and which limits are in force."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from arena.sandbox import SandboxMode, probe
from arena.sandbox.mode import MODE_ENV


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Say whether bots run in the sandbox here, as whom, and under which limits."""
    support = probe()
    mode = SandboxMode.parse(None)
    effective = "on" if mode is not SandboxMode.OFF and support.sandbox else "off"
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "mode": mode.value,
                    "bots_sandboxed": effective == "on",
                    "bwrap": support.bwrap,
                    "bwrap_version": support.bwrap_version,
                    "bwrap_error": support.bwrap_error,
                    "root": support.root,
                    "cgroups": {
                        name: {"version": c.version, "path": str(c.base)}
                        for name, c in support.controllers.items()
                    },
                    "cgroups_missing": support.missing,
                }
            )
        )
        return
    typer.echo(
        f"mode: {mode.value} (from --sandbox, else ${MODE_ENV}, else auto): bots run "
        + ("in the sandbox" if effective == "on" else "WITHOUT the sandbox")
    )
    for line in support.lines():
        typer.echo(line)
    if not support.sandbox:
        typer.echo(
            "to sandbox bots: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on "
            "a kernel that allows namespaces; see docs/bots-and-manifests.md"
        )
