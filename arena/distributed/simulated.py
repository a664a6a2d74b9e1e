"""Simulated nodes for ``arena bench tournament --ray local --simulate-nodes N``: Ray actors that
play no bots but return a recorded real match's result (its real size, decisions included),
each after the time a match takes on a real node, so that the coordinator receives results at
the rate N real nodes would send them, through the real dispatch, transfer and store path."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import Any

from arena.referee import MatchResult
from arena.tournament.execution import MatchJob
from arena.tournament.runner import TournamentConfig


class SimulatedWorker:
    """An async Ray actor standing for many node slots: each ``play`` sleeps ``seconds``, then
    returns the recorded result under the job's match id, seed and players."""

    def __init__(self, recorded: MatchResult, seconds: float) -> None:
        self._recorded = recorded
        self._seconds = seconds
        self._names: list[str] = []

    def info(self) -> dict[str, Any]:
        import ray

        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "address": ray.util.get_node_ip_address(),
            "host": "simulated",
            "pid": os.getpid(),
        }

    def prepare(
        self, config: TournamentConfig, needed: list[int], archives: dict[str, Any]
    ) -> dict[int, str]:
        self._names = [e.name for e in config.entrants]
        return {}

    async def play(self, job: MatchJob) -> tuple[MatchResult | None, list[tuple[int, str]]]:
        await asyncio.sleep(self._seconds)
        a, b = job.seats
        return (
            dataclasses.replace(
                self._recorded, match_id=job.match_id, seed=job.seed,
                players=(self._names[a], self._names[b]),
            ),
            [],
        )  # fmt: skip

    def abort(self) -> None:
        pass

    def close(self) -> None:
        pass
