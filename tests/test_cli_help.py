"""``arena … --help`` as a user reads it: flags without a type, arguments in upper case in the
usage line; the real ``arena`` entry point in a child process (one for all the helps)."""

from __future__ import annotations

import pytest
from arena_child import run_arena

HELPS: tuple[tuple[str, ...], ...] = (
    ("h2h",),
    ("match", "play"),
    ("compare",),
    ("tournament", "show"),
    ("match", "list"),
    (),
)


@pytest.fixture(scope="module")
def helps() -> dict[tuple[str, ...], str]:
    dones = run_arena(
        [(*args, "--help") for args in HELPS], env={"COLUMNS": "100", "NO_COLOR": "1"}
    )
    for args, done in zip(HELPS, dones, strict=True):
        assert done.returncode == 0, (args, done.stderr)
    return {args: done.stdout for args, done in zip(HELPS, dones, strict=True)}


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
