"""Research environments' speed: PettingZoo steps/s and OpenSpiel random-simulation steps/s
against the engine's random self-play decisions/s, in alternating slices of one run.

- engine: ``Match.random_action`` then ``Match.apply`` (``arena.bench.engine``), whole matches.
- PettingZoo: ``spades_v0.env()`` (its guards, as a user gets it; and ``raw_env()`` without
  them), the loop of its documentation, what a random policy needs each step: ``env.last()``
  (the observation array and the action mask, both built every step), a uniform legal action
  from the mask, ``env.step``. A step is one action id (an exchange is one per card).
- OpenSpiel: ``spades_2p`` random simulations through pyspiel: ``legal_actions``, a uniform
  choice, ``apply_action``; chance nodes (the shuffle: 52 a hand) through ``chance_outcomes``.
  Its steps/s counts player steps (the ratio) and all steps, chance steps included.

Needs the ``research`` extra.
"""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

from arena.bench.engine import Tally, run_engine
from arena.errors import ArenaError
from arena.rules import ENGINE_VERSION, RuleSet

TARGET = 0.5
"""The environments' aim: at least half the engine's decisions per second (issue 31)."""
CLOCK = time.process_time
"""What the sides are timed by: this process's CPU time, so that other work on a shared machine
slows the figures less."""


def _load(rules: RuleSet) -> tuple[Any, Any]:
    try:
        import pyspiel

        from arena.envs import spades_2p, spades_v0
    except ImportError as exc:
        raise ArenaError(
            f"the research environments need the research extra ({exc.name} is missing): "
            "pip install -e '.[research]'"
        ) from exc
    return spades_v0, pyspiel.load_game(spades_2p.GAME_NAME, rules.to_dict())


def run_pettingzoo(
    tally: Tally,
    make_env: Any,
    seconds: float,
    rng: random.Random,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
) -> int:
    """Random matches through ``make_env()`` for about ``seconds`` of ``clock``; the next seed."""
    start = clock()
    deadline = start + seconds
    env = make_env()
    rand = rng.random
    while True:
        env.reset(seed=seed)
        seed += 1
        n = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rand() * len(legal))]))
            n += 1
        tally.decisions += n
        tally.games += 1
        now = clock()
        if now >= deadline:
            break
    tally.seconds += now - start
    return seed


def run_openspiel(
    tally: Tally,
    chance: Tally,
    game: Any,
    seconds: float,
    rng: random.Random,
    clock: Callable[[], float] = time.perf_counter,
) -> None:
    """Random simulations of ``spades_2p`` for about ``seconds`` of ``clock``."""
    rand = rng.random
    start = clock()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        n = c = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                c += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rand() * len(legal))])
                n += 1
        tally.decisions += n
        chance.decisions += c
        tally.games += 1
        now = clock()
        if now >= deadline:
            break
    tally.seconds += now - start


def measure(seconds: float = 5.0, seed: int = 0, rules: RuleSet | None = None) -> dict[str, Any]:
    """The four sides in turn, one whole match each under ``rules`` (the default rule set), so
    that a change of load hits all alike, until the run has taken about 4 x ``seconds``."""
    if not seconds > 0:
        raise ArenaError(f"--seconds must be positive, got {seconds}")
    rules = rules or RuleSet()
    spades_v0, game = _load(rules)
    engine, pz, raw, spiel, chance = Tally(), Tally(), Tally(), Tally(), Tally()
    rngs = [random.Random(seed) for _ in range(4)]
    engine_seed = pz_seed = raw_seed = seed
    rounds = 0
    while sum(t.seconds for t in (engine, pz, raw, spiel)) < 4 * seconds or rounds < 1:
        # a duration of 0: one whole match each
        engine_seed = run_engine(engine, 0, rngs[0], rules, engine_seed, CLOCK)
        pz_seed = run_pettingzoo(pz, lambda: spades_v0.env(rules=rules), 0, rngs[1], pz_seed, CLOCK)
        raw_seed = run_pettingzoo(
            raw, lambda: spades_v0.raw_env(rules=rules), 0, rngs[2], raw_seed, CLOCK
        )
        run_openspiel(spiel, chance, game, 0, rngs[3], CLOCK)
        rounds += 1
    base = engine.decisions_per_s
    all_steps = (spiel.decisions + chance.decisions) / spiel.seconds
    return {
        "engine_decisions_per_s": round(base),
        "pettingzoo_steps_per_s": round(pz.decisions_per_s),
        "pettingzoo_raw_steps_per_s": round(raw.decisions_per_s),
        "openspiel_steps_per_s": round(spiel.decisions_per_s),
        "openspiel_chance_steps_per_s": round(chance.decisions / spiel.seconds),
        "openspiel_all_steps_per_s": round(all_steps),
        "pettingzoo_ratio": round(pz.decisions_per_s / base, 3),
        "pettingzoo_raw_ratio": round(raw.decisions_per_s / base, 3),
        "openspiel_ratio": round(spiel.decisions_per_s / base, 3),
        "openspiel_all_steps_ratio": round(all_steps / base, 3),
        "target_ratio": TARGET,
        "matches": {
            "engine": engine.games,
            "pettingzoo": pz.games,
            "pettingzoo_raw": raw.games,
            "openspiel": spiel.games,
        },
        "rounds": rounds,
        "seconds_each": seconds,
        "clock": "process CPU time",
        "seed": seed,
        "rules": rules.describe(),
        "engine_version": ENGINE_VERSION,
        "pettingzoo_version": version("pettingzoo"),
        "openspiel_version": version("open-spiel"),
        "c_observation_encoder": _c_encoder(),
        "python": platform.python_version(),
    }


def _c_encoder() -> bool:
    from arena.envs import encoding

    return encoding.C_ENCODER


def describe(r: dict[str, Any]) -> str:
    """The figures as a few readable lines."""
    encoder = "C" if r["c_observation_encoder"] else "Python (the C encoder was not built)"
    return "\n".join(
        [
            f"engine {r['engine_version']}: {r['engine_decisions_per_s']:,} decisions/s "
            f"(random self-play: random_action + apply; {r['matches']['engine']:,} matches)",
            f"PettingZoo {r['pettingzoo_version']} spades_v0.env(): "
            f"{r['pettingzoo_steps_per_s']:,} steps/s, {r['pettingzoo_ratio']}x the engine; "
            f"raw_env(): {r['pettingzoo_raw_steps_per_s']:,} steps/s, "
            f"{r['pettingzoo_raw_ratio']}x (each step: last() with the observation array and "
            "the mask, a uniform legal action from the mask, step(); "
            f"observations in {encoder})",
            f"OpenSpiel {r['openspiel_version']} spades_2p: {r['openspiel_steps_per_s']:,} player "
            f"steps/s, {r['openspiel_ratio']}x the engine; with its "
            f"{r['openspiel_chance_steps_per_s']:,} chance steps/s (the shuffle), "
            f"{r['openspiel_all_steps_per_s']:,} steps/s, {r['openspiel_all_steps_ratio']}x",
            f"target: {r['target_ratio']}x each (about {4 * r['seconds_each']:g} s in all: one "
            f"match each in turn, {r['rounds']} rounds, timed by {r['clock']}; seed {r['seed']}, "
            f"rules {r['rules']}, "
            f"Python {r['python']})",
        ]
    )
