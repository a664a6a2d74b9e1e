"""Each line an SDK bot writes while serving a match is tagged with the match's id, and a
tournament's log is cut by those tags: a match's log holds none of another's lines, and what
the bot printed while starting is a log of its own. Real bot processes, real concurrency."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.rules.ruleset import RuleSet
from arena.sdk.match_tags import TaggedStream, serving
from arena.store import Store
from arena.tournament import TournamentSettings, create_tournament, run_tournament
from arena.tournament.botlogs import read_match_log, read_startup_log, tagged_match

ROOT = Path(__file__).resolve().parents[1]
CHATTY = ROOT / "tests" / "bots" / "sdk_chatty" / "bot.py"
RANDOM = ROOT / "sample_bots" / "random"


def chatty(tmp_path: Path) -> Path:
    """The chatty SDK bot's folder: its manifest runs the shared script by absolute path on
    this checkout's SDK (a bot's folder is copied before it starts)."""
    folder = tmp_path / "sdk_chatty"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "sdk_chatty"\nversion = "1.0"\ncommand = ["{{python}}", "{CHATTY}"]\n'
        f'[env]\nSDK_CHECKOUT = "{ROOT}"\n'
    )
    return folder


def test_lines_begun_during_a_call_are_tagged_and_others_are_not() -> None:
    out = io.StringIO()
    stream = TaggedStream(out)
    stream.write("before any match\n")
    with serving("t3-g5"):
        stream.write("one\ntwo")
        stream.write(" continued\n")
        with serving("t3-g6"):
            stream.write("other\n")
    stream.write("after\n")
    assert out.getvalue() == (
        "before any match\n[match t3-g5] one\n[match t3-g5] two continued\n"
        "[match t3-g6] other\nafter\n"
    )
    assert tagged_match("[match t3-g5] one") == "t3-g5" and tagged_match("after") is None


def test_threads_tag_their_own_match_and_lines_stay_whole() -> None:
    out = io.StringIO()
    stream = TaggedStream(out)

    def speak(match_id: str) -> None:
        with serving(match_id):
            for i in range(200):
                print(f"line {i} of {match_id}", file=stream)  # two writes: text, newline

    threads = [threading.Thread(target=speak, args=(m,)) for m in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = out.getvalue().splitlines()
    assert len(lines) == 600
    for line in lines:
        found = re.fullmatch(r"\[match (\w)\] line \d+ of (\w)", line)
        assert found and found.group(1) == found.group(2), line


@pytest.mark.slow
def test_a_tournaments_logs_are_cut_by_the_bots_own_tags(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    logs = tmp_path / "logs"
    with Store.open(url) as store:
        tid = create_tournament(store, TournamentSettings(
            bots=[str(chatty(tmp_path)), str(RANDOM)], games=2, concurrency=4, seed=3,
            rules=RuleSet(max_hands=2),
        ))  # fmt: skip
        run_tournament(store, tid, log_dir=logs)
        matches = store.list_matches(tournament_id=tid)
        assert len(matches) == 4
        for m in matches:
            seat = m.players.index("sdk_chatty@1.0")
            text = read_match_log(store, m.match_id, seat, log_dir=logs)
            assert text is not None
            said = [line for line in text.splitlines() if not line.startswith("[arena] ")]
            assert said and all(tagged_match(line) == m.match_id for line in said), text
            assert f"bidding in {m.match_id}" in text and f"playing in {m.match_id}" in text
            assert "warming up" not in text and "listening on" not in text
        first = matches[0]
        seat = first.players.index("sdk_chatty@1.0")
        startup = read_startup_log(store, first.match_id, seat, log_dir=logs)
    assert startup is not None and startup.startswith("[arena] BotStart sdk_chatty")
    assert "sdk_chatty: warming up" in startup and "sdk_chatty listening on" in startup
    assert "[match " not in startup
    # The command line reads it too.
    shown = subprocess.run(
        [sys.executable, "-m", "arena", "match", "logs", first.match_id, "--seat",
         str(seat), "--startup", "--db", url, "--log-dir", str(logs)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == startup
