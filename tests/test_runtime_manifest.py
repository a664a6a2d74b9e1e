"""Bot manifests (bot.toml) and the content hash that identifies a bot version."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.runtime import (
    BotLimits,
    ManifestError,
    bot_content_hash,
    load_manifest,
)

BOTS = Path(__file__).parent / "bots"
SAMPLE_BOTS = Path(__file__).parent.parent / "sample_bots"

MINIMAL = 'name = "my-bot"\ncommand = ["{python}", "bot.py"]\n'


def write_manifest(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bot.toml").write_text(text)
    return directory


def test_minimal_manifest_gets_the_defaults(tmp_path: Path) -> None:
    manifest = load_manifest(write_manifest(tmp_path / "b", MINIMAL))
    assert manifest.name == "my-bot"
    assert manifest.version is None
    assert manifest.command == ("{python}", "bot.py")
    assert manifest.directory == (tmp_path / "b").resolve()
    assert manifest.path == manifest.directory / "bot.toml"
    assert manifest.limits == BotLimits()
    assert manifest.limits.memory_mb == 1024
    assert manifest.limits.cpu_seconds is None
    assert manifest.limits.address_space_mb is None
    assert manifest.limits.processes == 256
    assert manifest.limits.cpus == 1.0
    assert manifest.limits.disk_mb == 64
    assert manifest.limits.startup_timeout_s == 10.0
    assert dict(manifest.env) == {}


def test_full_manifest(tmp_path: Path) -> None:
    text = """
name = "full_bot-2"
version = "2.1.0"
command = ["node", "bot.js", "--listen", "{address}"]

[limits]
memory_mb = 512
address_space_mb = 4096
cpu_seconds = 1.5
processes = 64
cpus = 0.5
disk_mb = 16
startup_timeout_s = 3

[env]
NODE_OPTIONS = "--max-old-space-size=256"
"""
    manifest = load_manifest(write_manifest(tmp_path / "full", text))
    assert manifest.name == "full_bot-2"
    assert manifest.version == "2.1.0"
    assert manifest.limits == BotLimits(
        memory_mb=512,
        address_space_mb=4096,
        cpu_seconds=1.5,
        processes=64,
        cpus=0.5,
        disk_mb=16,
        startup_timeout_s=3.0,
    )
    assert dict(manifest.env) == {"NODE_OPTIONS": "--max-old-space-size=256"}
    assert manifest.argv(python="/py", address="unix:/s/bot.sock") == [
        "node",
        "bot.js",
        "--listen",
        "unix:/s/bot.sock",
    ]


def test_zero_means_no_limit(tmp_path: Path) -> None:
    text = MINIMAL + "[limits]\nmemory_mb = 0\ncpu_seconds = 0\nprocesses = 0\ncpus = 0\n"
    limits = load_manifest(write_manifest(tmp_path / "b", text)).limits
    assert limits.memory_mb is None
    assert limits.cpu_seconds is None
    assert limits.processes is None
    assert limits.cpus is None


def test_max_processes_is_the_former_name_of_processes(tmp_path: Path) -> None:
    text = MINIMAL + "[limits]\nmax_processes = 32\n"
    assert load_manifest(write_manifest(tmp_path / "b", text)).limits.processes == 32


def test_placeholders_are_filled_inside_arguments(tmp_path: Path) -> None:
    text = 'name = "b"\ncommand = ["{python}", "-m", "bot", "--addr={address}", "{x:1}"]\n'
    manifest = load_manifest(write_manifest(tmp_path / "b", text))
    assert manifest.argv(python="/usr/bin/python3", address="unix:/t/bot.sock") == [
        "/usr/bin/python3",
        "-m",
        "bot",
        "--addr=unix:/t/bot.sock",
        "{x:1}",
    ]


def test_the_manifest_file_itself_may_be_given(tmp_path: Path) -> None:
    directory = write_manifest(tmp_path / "b", MINIMAL)
    assert load_manifest(directory / "bot.toml") == load_manifest(directory)


@pytest.mark.parametrize(
    "directory",
    sorted(
        p for p in [*BOTS.glob("runtime_*"), *SAMPLE_BOTS.iterdir()] if (p / "bot.toml").exists()
    ),
    ids=lambda p: p.name,
)
def test_sample_and_runtime_test_bots_have_valid_manifests(directory: Path) -> None:
    manifest = load_manifest(directory)
    assert manifest.directory == directory.resolve()


# Each bad manifest: its text, the field the message must name, and words it must contain.
BAD_MANIFESTS = {
    "toml syntax": ('name = "x"\nversion = = "1"\ncommand = ["x"]\n', "invalid TOML", "line 2"),
    "missing name": ('command = ["x"]\n', "name", "missing"),
    "name with capitals": ('name = "MyBot"\ncommand = ["x"]\n', "name", "'MyBot'"),
    "name with a space": ('name = "my bot"\ncommand = ["x"]\n', "name", "not a valid bot name"),
    "name starting with dash": ('name = "-bot"\ncommand = ["x"]\n', "name", "not a valid"),
    "name too long": (f'name = "{"a" * 65}"\ncommand = ["x"]\n', "name", "1 to 64"),
    "name not a string": ('name = 5\ncommand = ["x"]\n', "name", "not a valid"),
    "version not a string": (MINIMAL + "version = 1.0\n", "version", "string"),
    "empty version": (MINIMAL + 'version = ""\n', "version", "string"),
    "missing command": ('name = "b"\n', "command", "missing"),
    "command a string": ('name = "b"\ncommand = "python bot.py"\n', "command", "list of strings"),
    "command empty": ('name = "b"\ncommand = []\n', "command", "non-empty list"),
    "command with a number": ('name = "b"\ncommand = ["python", 3]\n', "command", "strings"),
    "command empty program": ('name = "b"\ncommand = ["", "x"]\n', "command", "empty"),
    "unknown placeholder": (
        'name = "b"\ncommand = ["{pyhton}", "bot.py"]\n',
        "command",
        "unknown placeholder {pyhton}",
    ),
    "unknown top-level key": (
        'name = "b"\ncomand = ["x"]\ncommand = ["x"]\n',
        "comand",
        "did you mean 'command'",
    ),
    "unknown limit": (
        MINIMAL + "[limits]\nmemroy_mb = 10\n",
        "limits.memroy_mb",
        "did you mean 'limits.memory_mb'",
    ),
    "limits not a table": (MINIMAL + "limits = 5\n", "limits", "table"),
    "memory as a string": (MINIMAL + '[limits]\nmemory_mb = "1G"\n', "limits.memory_mb", "integer"),
    "memory negative": (MINIMAL + "[limits]\nmemory_mb = -5\n", "limits.memory_mb", "positive"),
    "memory a float": (MINIMAL + "[limits]\nmemory_mb = 1.5\n", "limits.memory_mb", "integer"),
    "memory a boolean": (MINIMAL + "[limits]\nmemory_mb = true\n", "limits.memory_mb", "integer"),
    "cpu as a string": (MINIMAL + '[limits]\ncpu_seconds = "x"\n', "limits.cpu_seconds", "number"),
    "startup timeout zero": (
        MINIMAL + "[limits]\nstartup_timeout_s = 0\n",
        "limits.startup_timeout_s",
        "positive",
    ),
    # Numbers out of range: each once crashed the arena or a whole tournament.
    "startup timeout nan": (
        MINIMAL + "[limits]\nstartup_timeout_s = nan\n",
        "limits.startup_timeout_s",
        "finite",
    ),
    "startup timeout inf": (
        MINIMAL + "[limits]\nstartup_timeout_s = inf\n",
        "limits.startup_timeout_s",
        "finite",
    ),
    "startup timeout huge": (
        MINIMAL + "[limits]\nstartup_timeout_s = 2000000\n",
        "limits.startup_timeout_s",
        "at most",
    ),
    "startup timeout 1e9": (
        MINIMAL + "[limits]\nstartup_timeout_s = 1e9\n",
        "limits.startup_timeout_s",
        "at most 300",
    ),
    "cpu seconds nan": (MINIMAL + "[limits]\ncpu_seconds = nan\n", "limits.cpu_seconds", "finite"),
    "cpu seconds -inf": (
        MINIMAL + "[limits]\ncpu_seconds = -inf\n",
        "limits.cpu_seconds",
        "finite",
    ),
    "memory huge": (
        MINIMAL + "[limits]\nmemory_mb = 9223372036854775807\n",
        "limits.memory_mb",
        "at most",
    ),
    "processes huge": (MINIMAL + "[limits]\nprocesses = 10000000\n", "limits.processes", "at most"),
    "processes negative": (MINIMAL + "[limits]\nprocesses = -1\n", "limits.processes", "positive"),
    "processes twice": (
        MINIMAL + "[limits]\nprocesses = 1\nmax_processes = 2\n",
        "limits.max_processes",
        "one",
    ),
    "cpus nan": (MINIMAL + "[limits]\ncpus = nan\n", "limits.cpus", "finite"),
    "cpus huge": (MINIMAL + "[limits]\ncpus = 1e6\n", "limits.cpus", "at most"),
    "cpus a string": (MINIMAL + '[limits]\ncpus = "2"\n', "limits.cpus", "number"),
    "disk zero": (MINIMAL + "[limits]\ndisk_mb = 0\n", "limits.disk_mb", "positive"),
    "disk a float": (MINIMAL + "[limits]\ndisk_mb = 1.5\n", "limits.disk_mb", "integer"),
    "disk huge": (MINIMAL + "[limits]\ndisk_mb = 100000000\n", "limits.disk_mb", "at most"),
    "no network key": (MINIMAL + "[limits]\nnetwork = true\n", "limits.network", "unknown key"),
    "NUL in env": (MINIMAL + '[env]\nA = "x\\u0000y"\n', "env.A", "NUL"),
    "NUL in command": ('name = "b"\ncommand = ["bot", "a\\u0000"]\n', "command[1]", "NUL"),
    "NUL in version": (MINIMAL + 'version = "1\\u0000"\n', "version", "NUL"),
    "env value huge": (MINIMAL + f'[env]\nA = "{"x" * 40000}"\n', "env.A", "longer than"),
    "env not a table": (MINIMAL + 'env = "A=1"\n', "env", "table"),
    "env value not a string": (MINIMAL + "[env]\nDEPTH = 3\n", "env.DEPTH", "string"),
    "env bad name": (MINIMAL + '[env]\n"A-B" = "1"\n', "env.A-B", "not a valid"),
    "env reserved": (
        MINIMAL + '[env]\nARENA_BOT_ADDRESS = "x"\n',
        "env.ARENA_BOT_ADDRESS",
        "set by the arena",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_MANIFESTS))
def test_bad_manifest_error_names_file_and_field(tmp_path: Path, case: str) -> None:
    text, field, words = BAD_MANIFESTS[case]
    directory = write_manifest(tmp_path / "bad", text)
    with pytest.raises(ManifestError) as info:
        load_manifest(directory)
    message = str(info.value)
    assert isinstance(info.value, ArenaError)
    assert message.startswith(f"{directory.resolve() / 'bot.toml'}: ")
    assert field in message
    assert words in message


def test_missing_manifest_file(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ManifestError, match=r"empty/bot\.toml: no bot manifest"):
        load_manifest(tmp_path / "empty")


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"nowhere: no such bot directory"):
        load_manifest(tmp_path / "nowhere")


# -- content hash ------------------------------------------------------------------------------


def make_bot(directory: Path) -> Path:
    write_manifest(directory, MINIMAL)
    (directory / "bot.py").write_text("print('hello')\n")
    (directory / "lib").mkdir()
    (directory / "lib" / "strategy.py").write_text("DEPTH = 3\n")
    return directory


def test_hash_is_the_same_for_the_same_content_anywhere(tmp_path: Path) -> None:
    a = bot_content_hash(make_bot(tmp_path / "a"))
    b = bot_content_hash(make_bot(tmp_path / "elsewhere" / "b"))
    assert a == b
    assert len(a) == 64
    int(a, 16)


def test_hash_changes_when_a_file_changes_and_comes_back(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "a")
    before = bot_content_hash(bot)
    (bot / "lib" / "strategy.py").write_text("DEPTH = 4\n")
    changed = bot_content_hash(bot)
    assert changed != before
    (bot / "lib" / "strategy.py").write_text("DEPTH = 3\n")
    assert bot_content_hash(bot) == before


def test_hash_ignores_times_caches_and_git(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "a")
    before = bot_content_hash(bot)
    os.utime(bot / "bot.py", (1, 1))
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\x00cache")
    (bot / "lib" / "strategy.pyc").write_bytes(b"\x00cache")
    (bot / ".git").mkdir()
    (bot / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (bot / "empty-dir").mkdir()
    assert bot_content_hash(bot) == before


@pytest.mark.parametrize(
    "change",
    ["rename", "new file", "node_modules", "executable", "move bytes", "symlink"],
)
def test_hash_changes_with_what_runs(tmp_path: Path, change: str) -> None:
    bot = make_bot(tmp_path / "a")
    before = bot_content_hash(bot)
    if change == "rename":
        (bot / "lib" / "strategy.py").rename(bot / "lib" / "tactics.py")
    elif change == "new file":
        (bot / "weights.bin").write_bytes(b"")
    elif change == "node_modules":
        (bot / "node_modules" / "x").mkdir(parents=True)
        (bot / "node_modules" / "x" / "index.js").write_text("module.exports = 1\n")
    elif change == "executable":
        (bot / "bot.py").chmod(0o755)
    elif change == "move bytes":
        # Same bytes overall, split differently between two files.
        (bot / "bot.py").write_text("print('hello')\nDEPTH")
        (bot / "lib" / "strategy.py").write_text(" = 3\n")
    elif change == "symlink":
        (bot / "link.py").symlink_to("bot.py")
    assert bot_content_hash(bot) != before


def test_hash_does_not_follow_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("one\n")
    bot = make_bot(tmp_path / "a")
    (bot / "data").symlink_to(outside)
    before = bot_content_hash(bot)
    (outside / "data.txt").write_text("two\n")
    assert bot_content_hash(bot) == before


def test_hash_of_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no such bot directory"):
        bot_content_hash(tmp_path / "nowhere")
