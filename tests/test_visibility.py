"""One visibility policy (``arena.visibility``) on every surface: the gRPC service, the web pages,
the JSON API, the live event stream and the CLI's remote side.

The module's database holds a tournament paused mid-way (created by ``arena tournament`` locally,
its first game played, the twin of that deal still pending) between ``random``, owned by alice,
and ``heuristic``, owned by bob; a match of theirs on its own in which alice's bot crashed and
its last output was recorded; a ladder status whose pause quotes her bot's output; and her bot's
logs in the data folder. A real ``arena serve --web`` (gRPC and HTTP) serves that SQLite file;
anyone, bob, alice and an admin read it, and a real browser shows alice her bot's log.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from test_service import ArenaProcess, arena_cli
from test_web import CHROMIUM, _engine_match

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.arena.v1 import arena_pb2_grpc as pb_grpc
from arena.referee.record import MatchResult, Termination
from arena.rules import RuleSet
from arena.store import MatchSummary, Store
from arena.tournament import DealMode, TournamentSettings, create_tournament
from arena.tournament.botlogs import end_marker, start_marker
from arena.visibility import (
    ANYONE,
    OWNER_SEES,
    SEALED,
    SEED_SECRET,
    SealedError,
    Viewer,
    Visibility,
    public_detail,
    public_pause_reason,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
TOURNAMENT_SEED = 987_654_321
STATUS_SECRET = "SECRET-STATUS-7"
OUTPUT_SECRET = "SECRET-OUTPUT-9"
LADDER_SECRET = "SECRET-LADDER-5"
LOG_SECRET = "SECRET-LOG-LINE"
CRASH_DETAIL = (
    f"seat 0 (random@1.0): its process has exited (exit code 1) during Play (UNKNOWN: "
    f"{STATUS_SECRET}); its last output: Traceback {OUTPUT_SECRET} /srv/arena/data/bots/x.py"
)


# -- the policy's own rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detail", "shown"),
    [
        (
            CRASH_DETAIL,
            f"seat 0 (random@1.0): its process has exited (exit code 1) during Play {OWNER_SEES}",
        ),
        # A bot's status message and output may mimic the referee: nothing after them is read.
        (
            "seat 1 (b): Bid failed with status INTERNAL: x); earlier: seat 1 (b): no answer to "
            "Bid within 5 ms (fault 1, a random legal action was played instead)",
            f"seat 1 (b): Bid failed with status INTERNAL {OWNER_SEES}",
        ),
        (
            "seat 0 (a): malformed Play answer: b'\\x00 SECRET'",
            f"seat 0 (a): malformed Play answer {OWNER_SEES}",
        ),
        (
            "a could not start: bot 'a' exited during startup with exit code 1; its last output: "
            "SECRET; b could not start: SECRET",
            f"a could not start {OWNER_SEES}",
        ),
        # Notes wholly the referee's are shown whole, the engine's message included.
        (
            "seat 0 (h): played Jc: R-4.3: must follow suit: diamonds were led and the hand holds "
            "8d, Jd; got Jc (fault 1, a random legal action was played instead); seat 1 (r): no "
            "answer to Bid within 100 ms (fault 1, the match went on)",
            None,
        ),
        ("the match was stopped by the arena", None),
        ("", None),
        ("Traceback: PATH=/usr/bin SECRET", OWNER_SEES),
        # Whatever follows a whole note and is not a note is cut.
        (
            "seat 0 (a): no answer to Bid within 5 ms: SECRET",
            f"seat 0 (a): no answer to Bid within 5 ms {OWNER_SEES}",
        ),
    ],
)
def test_public_detail_keeps_only_the_referees_words(detail: str, shown: str | None) -> None:
    assert public_detail(detail) == (detail if shown is None else shown)
    assert "SECRET" not in public_detail(detail)


def test_a_pause_reason_is_public_without_the_bots_words_or_paths() -> None:
    reason = (f"forfeited its last 3 ladder matches; the last: random could not start: "
              f"{LADDER_SECRET}")  # fmt: skip
    assert public_pause_reason(reason) == (
        f"forfeited its last 3 ladder matches; the last: random could not start {OWNER_SEES}"
    )
    assert public_pause_reason("its files are gone (/srv/arena/bots/x)") == "its files are gone"
    assert public_pause_reason(f"anything else {LADDER_SECRET}") == OWNER_SEES


def test_a_pause_reason_shows_its_owner_no_words_of_the_opponent(tmp_path: Path) -> None:
    """The last forfeit's earlier notes may quote the other seat's bot: its owner's, not hers."""
    with Store.open(str(tmp_path / "a.db")) as store:
        alice = store.create_token("alice")
        info = store.verify_token(alice)
        assert info is not None
        store.register_bot_version("mine", "1", "c" * 64, "x", owner_token_id=info.id)
        reason = (
            f"forfeited its last 3 ladder matches; the last: seat 0 (mine@1): Play failed with "
            f"status INTERNAL: {LADDER_SECRET}; earlier: seat 1 (theirs@1): Bid failed with "
            f"status INTERNAL: THEIR-WORDS (fault 1, the match went on)"
        )
        owner = Viewer(token_id=info.id, name="alice")
        hers = Visibility(store, owner).pause_reason("mine", reason)
        assert LADDER_SECRET in hers and "THEIR-WORDS" not in hers
        admin = Visibility(store, Viewer(token_id=99, role="admin")).pause_reason("mine", reason)
        assert admin == reason


@pytest.mark.parametrize(
    "deals,open_after_its_twin",
    [
        # Pairs (the default): no other pair plays the deal, so its twin alone unseals it.
        (DealMode.PAIRS, True),
        # Shared deals: every other pair of the round still has it to play.
        (DealMode.DUPLICATE, False),
    ],
)
def test_a_deal_stays_sealed_while_any_pair_has_it_to_play(
    tmp_path: Path, deals: DealMode, open_after_its_twin: bool
) -> None:
    """The seal follows the seed, whoever plays it: in a round robin of three bots, the first
    pair's deal is sealed until its twin is played, and then stays sealed only as long as
    another pair has the same deal still to play."""
    bots = [str(SAMPLES / name) for name in ("random", "heuristic", "cautious")]
    with Store.open(str(tmp_path / "a.db")) as store:
        tid = create_tournament(
            store,
            TournamentSettings(bots=bots, games=1, seed=5, rules=RuleSet(max_hands=1),
                               deals=deals),
        )  # fmt: skip
        games = store.pending_games(tid)
        first, twin = games[0], games[1]
        assert first.pair_id == twin.pair_id and first.seed == twin.seed
        others = {g.seed for g in games[2:]}
        assert (first.seed in others) is (deals is DealMode.DUPLICATE)

        def play(game: Any) -> MatchSummary:
            played = dataclasses.replace(
                _engine_match(game.seed, RuleSet(max_hands=1), game.ordinal),
                match_id=f"t{tid}-g{game.ordinal}",
            )
            store.record_match(
                played, seat_versions=game.seat_versions, tournament_game_id=game.id,
                pair_id=game.pair_id,
            )  # fmt: skip
            return store.get_match(played.match_id).summary

        match = play(first)
        assert Visibility(store, ANYONE).sealed(match)
        play(twin)
        for viewer in (ANYONE, Viewer(token_id=1, role="admin")):
            policy = Visibility(store, viewer)
            assert policy.sealed(match) is not open_after_its_twin
            assert policy.seed(match) == (first.seed if open_after_its_twin else None)


# -- the database every surface reads ------------------------------------------------------------


@dataclass
class Served:
    server: ArenaProcess
    web: str
    store: Store
    tournament_id: int
    deal_seeds: tuple[int, ...]
    sealed_match: str
    twin_ordinal: int
    crash_match: str
    alice: str
    bob: str
    admin: str

    def secrets(self) -> list[str]:
        """What no one may read while the tournament is paused: its seed and its deal seeds."""
        return [str(TOURNAMENT_SEED), *(str(s) for s in self.deal_seeds)]


def _crash_record(seed: int) -> MatchResult:
    """A match on its own in which seat 0 crashed after a few decisions, quoting its output."""
    played = _engine_match(seed, RuleSet(max_hands=1), 3)
    now = datetime.now(UTC)
    return dataclasses.replace(
        played, match_id="crash-1", players=("random", "heuristic"), winner=1,
        termination=Termination.FORFEIT_CRASH, faults=(1, 0), detail=CRASH_DETAIL,
        decisions=played.decisions[:5], started_at=now, finished_at=now,
    )  # fmt: skip


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("visibility")
    db = folder / "arena.db"
    data = folder / "arena-data"
    store = Store.open(str(db))
    alice, bob = store.create_token("alice"), store.create_token("bob")
    admin = store.create_token("root", role="admin")
    ids = {n: store.verify_token(t).id for n, t in (("alice", alice), ("bob", bob))}  # type: ignore[union-attr]
    # Each bot is first registered by its owner: the tournament's versions are theirs.
    store.register_bot_version("random", "0", "a" * 64, "submitted", owner_token_id=ids["alice"])
    store.register_bot_version("heuristic", "0", "b" * 64, "submitted", owner_token_id=ids["bob"])
    tid = create_tournament(
        store,
        TournamentSettings(
            bots=[str(SAMPLES / "random"), str(SAMPLES / "heuristic")], games=2,
            seed=TOURNAMENT_SEED, rules=RuleSet(max_hands=1),
        ),
    )  # fmt: skip
    games = store.pending_games(tid)
    first = games[0]
    twin = next(g for g in games[1:] if g.seed == first.seed)
    played = dataclasses.replace(
        _engine_match(first.seed, RuleSet(max_hands=1), 1), match_id=f"t{tid}-g{first.ordinal}"
    )
    store.record_match(
        played, seat_versions=first.seat_versions, tournament_game_id=first.id,
        pair_id=first.pair_id,
    )  # fmt: skip
    versions = {store.get_bot_version(v).name: v for v in first.seat_versions}
    crash = _crash_record(4242)
    store.record_match(crash, seat_versions=(versions["random"], versions["heuristic"]))
    store.set_ladder_status({
        "updated_at": "2026-12-02T00:00:00+00:00", "pairs_scheduled": 0, "matches_last_24h": 0,
        "daily_budget": None, "playing": [], "entrants": [],
        "paused": [{"bot": "random", "version_id": versions["random"], "at": "2026-12-02",
                    "reason": "forfeited its last 3 ladder matches; the last: random could not "
                              f"start: bot 'random' exited during startup; {LADDER_SECRET}"}],
    })  # fmt: skip
    # Alice's bot's logs where a server keeps them: of the match on its own, and of the sealed
    # tournament game (between its markers).
    seat0 = data / "logs" / "match-crash-1" / "seat0"
    seat0.mkdir(parents=True)
    (seat0 / "bot.log").write_text(f"thinking...\n{LOG_SECRET}\n")
    seat = 0 if played.players[0].startswith("random") else 1
    tlog = data / "logs" / f"tournament-{tid}" / "random"
    tlog.mkdir(parents=True)
    (tlog / "bot.log").write_text(
        f"{start_marker(played.match_id)}seat {seat}\nmy hand: {LOG_SECRET}\n"
        f"{end_marker(played.match_id)}done\n"
    )
    server = ArenaProcess(db, "--web", "127.0.0.1:0", "--data-dir", str(data))
    try:
        web = ""
        deadline = time.monotonic() + 60
        while not web and time.monotonic() < deadline:
            found = re.search(r"web arena on (http://\S+?)/?\s", "".join(server.lines))
            web = found.group(1) if found else ""
            time.sleep(0.05)
        assert web, "arena serve --web printed no URL:\n" + "".join(server.lines)
        yield Served(
            server, web, store, tid, tuple({g.seed for g in games}), played.match_id,
            twin.ordinal, crash.match_id, alice, bob, admin,
        )  # fmt: skip
    finally:
        server.stop()
        store.close()


def _bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"authorization": f"Bearer {token}"}


def _grpc(served: Served, token: str | None = None) -> tuple[Any, list[tuple[str, str]]]:
    channel = grpc.insecure_channel(served.server.address)
    meta = [] if token is None else [("authorization", f"Bearer {token}")]
    return (channel, pb_grpc.ArenaServiceStub(channel)), meta


def test_the_policy_seals_a_deal_until_its_twin_is_played(served: Served) -> None:
    store = served.store
    policy = Visibility(store, ANYONE)
    sealed = store.get_match(served.sealed_match).summary
    assert policy.sealed(sealed) and policy.seed(sealed) is None
    assert policy.detail(sealed) == ""
    for check in (policy.check_record, policy.check_analysis):
        with pytest.raises(SealedError, match=SEALED):
            check(sealed)
    # Sealed for its bots' owners and for an admin alike: no token opens a live deal.
    for viewer in (Viewer(token_id=1, role="admin"), Viewer(token_id=2)):
        assert Visibility(store, viewer).sealed(sealed)
    crash = store.get_match(served.crash_match).summary
    assert not policy.sealed(crash) and policy.seed(crash) == crash.seed


# -- the gRPC service and the CLI's remote side --------------------------------------------------


def test_the_service_keeps_the_paused_tournaments_deals(served: Served) -> None:
    (channel, service), _ = _grpc(served)
    with channel:
        t = service.GetTournament(pb.GetTournamentRequest(id=served.tournament_id), timeout=10)
        assert t.tournament.seed_secret and t.tournament.seed == 0
        listed = service.ListMatches(
            pb.ListMatchesRequest(tournament_id=served.tournament_id), timeout=10
        )
        (m,) = listed.matches
        assert m.id == served.sealed_match and m.sealed and m.seed == 0
        assert [s.bot for s in m.seats] and m.detail == ""
        with pytest.raises(grpc.RpcError) as refused:
            service.GetMatch(pb.GetMatchRequest(id=served.sealed_match), timeout=10)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert SEALED in str(refused.value.details())
        watched = list(service.WatchTournament(
            pb.WatchTournamentRequest(id=served.tournament_id), timeout=30
        ))  # fmt: skip
        assert all(e.match.seed == 0 for e in watched if e.HasField("match"))
        text = "".join(str(e) for e in watched) + str(t) + str(listed)
        for secret in served.secrets():
            assert secret not in text


def test_the_cli_says_the_seed_is_secret_and_the_match_sealed(served: Served) -> None:
    address = served.server.address
    tid = str(served.tournament_id)
    shown = arena_cli("tournament", "show", tid, "--server", address)
    assert shown.returncode == 0, shown.stderr
    assert f"seed {SEED_SECRET}" in " ".join(shown.stdout.split())
    assert "seed 0" not in shown.stdout
    as_json = json.loads(arena_cli("tournament", "show", tid, "--server", address, "--json").stdout)
    assert as_json["tournament"]["seed"] is None and as_json["tournament"]["seed_secret"]
    listed = arena_cli("match", "list", "--tournament", tid, "--server", address)
    assert listed.returncode == 0, listed.stderr
    assert served.sealed_match in listed.stdout and SEALED in listed.stdout
    rows = json.loads(
        arena_cli("match", "list", "--tournament", tid, "--server", address, "--json").stdout
    )
    assert [(r["seed"], r["sealed"]) for r in rows] == [(None, True)]
    replay = arena_cli("replay", served.sealed_match, "--server", address)
    assert replay.returncode != 0 and SEALED in replay.stderr
    for out in (shown.stdout, listed.stdout, json.dumps(rows), json.dumps(as_json)):
        for secret in served.secrets():
            assert secret not in out


def test_a_bots_output_is_its_owners_through_the_service_and_cli(served: Served) -> None:
    def detail(token: str | None) -> str:
        (channel, service), meta = _grpc(served, token)
        with channel:
            got = service.ListMatches(pb.ListMatchesRequest(bot="random"), metadata=meta,
                                      timeout=10)  # fmt: skip
        return next(m.detail for m in got.matches if m.id == served.crash_match)

    for who in (None, served.bob):
        shown = detail(who)
        assert shown.startswith("seat 0 (random@1.0): its process has exited (exit code 1)")
        assert STATUS_SECRET not in shown and OUTPUT_SECRET not in shown and "/srv" not in shown
    assert detail(served.alice) == CRASH_DETAIL == detail(served.admin)

    address = served.server.address
    for token, sees in ((None, False), (served.bob, False), (served.alice, True)):
        extra = () if token is None else ("--token", token)
        status = arena_cli("ladder", "status", "--server", address, *extra)
        assert status.returncode == 0, status.stderr
        assert "random" in status.stdout
        assert (LADDER_SECRET in status.stdout) is sees


def test_a_sealed_match_log_waits_for_its_twin_even_for_its_owner(served: Served) -> None:
    (channel, service), meta = _grpc(served, served.alice)
    with channel:
        got = service.GetMatchLog(
            pb.GetMatchLogRequest(match_id=served.crash_match, seat=0), metadata=meta, timeout=10
        )
        assert got.kept and LOG_SECRET in got.text
        record = served.store.get_match(served.sealed_match).summary
        seat = 0 if record.players[0].startswith("random") else 1
        with pytest.raises(grpc.RpcError) as refused:
            service.GetMatchLog(pb.GetMatchLogRequest(match_id=served.sealed_match, seat=seat),
                                metadata=meta, timeout=10)  # fmt: skip
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


# -- the web: pages, JSON API, event stream ------------------------------------------------------


def test_the_web_keeps_the_paused_tournaments_deals(served: Served) -> None:
    tid = served.tournament_id
    with httpx.Client(base_url=served.web, timeout=30) as http:
        page = http.get(f"/tournaments/{tid}")
        assert page.status_code == 200 and SEED_SECRET in page.text
        assert 'class="sealed"' in page.text
        api = http.get(f"/api/tournaments/{tid}")
        data = api.json()
        assert data["config"]["seed"] is None and data["config"]["seed_text"] == SEED_SECRET
        assert all(g["seed"] is None for g in data["games"])
        match_page = http.get(f"/matches/{served.sealed_match}")
        assert match_page.status_code == 200
        assert SEALED in match_page.text and 'id="viewer"' not in match_page.text
        match_api = http.get(f"/api/matches/{served.sealed_match}")
        record = match_api.json()
        assert record["sealed"] and record["seed"] is None
        assert "decisions" not in record and "replay" not in record
        assert len(record["players"]) == 2
        frames = [
            http.get(f"/api/matches/{served.sealed_match}/frames?view={v}")
            for v in ("spectator", "seat0", "seat1")
        ]
        assert [f.status_code for f in frames] == [403, 403, 403]
        # Its double-dummy analysis is computed from the deal: sealed with the record.
        analysis = http.get(f"/api/matches/{served.sealed_match}/analysis")
        assert analysis.status_code == 403 and SEALED in analysis.text
        assert http.get(f"/api/matches/{served.crash_match}/analysis").status_code in (200, 409)
        # Sealed for the owner of both seats' bots and an admin too.
        for token in (served.alice, served.admin):
            again = http.get(f"/api/matches/{served.sealed_match}", headers=_bearer(token))
            assert again.json()["sealed"] and "decisions" not in again.json()
        bodies = [page.text, api.text, match_page.text, match_api.text, analysis.text]
        bodies += [f.text for f in frames]
        for body in bodies:
            for secret in served.secrets():
                assert secret not in body
    # An open match is shown whole once no game of its deal is left (the crash is on its own).
    with httpx.Client(base_url=served.web, timeout=30) as http:
        crash = http.get(f"/api/matches/{served.crash_match}").json()
        assert not crash["sealed"] and crash["seed"] == 4242 and crash["decisions"]


def test_the_live_stream_carries_no_deal(served: Served) -> None:
    """A match recorded while a viewer watches reaches it as anyone may see it."""
    store, tid = served.store, served.tournament_id
    game = next(g for g in store.pending_games(tid) if g.ordinal != served.twin_ordinal)
    with (
        httpx.Client(base_url=served.web, timeout=10) as client,
        client.stream("GET", f"/tournaments/{tid}/events") as events,
    ):
        lines = events.iter_lines()
        assert next(lines).startswith("retry:")
        played = dataclasses.replace(
            _engine_match(game.seed, RuleSet(max_hands=1), 2), match_id=f"t{tid}-g{game.ordinal}"
        )
        store.record_match(played, seat_versions=game.seat_versions, tournament_game_id=game.id,
                           pair_id=game.pair_id)  # fmt: skip
        deadline = time.monotonic() + 20
        for line in lines:
            if line.startswith("data: "):
                update = line
                break
            assert time.monotonic() < deadline
    assert played.match_id in update
    for secret in served.secrets():
        assert secret not in update
    # Its row says it is sealed: the twin of its deal is still to be played.
    row = json.loads(update.removeprefix("data: "))["rows"][str(game.ordinal)]
    assert 'class="sealed"' in row


def test_a_bots_output_is_its_owners_on_the_web(served: Served) -> None:
    paths = ["/bots/random", "/api/bots/random", f"/matches/{served.crash_match}",
             f"/api/matches/{served.crash_match}"]  # fmt: skip
    with httpx.Client(base_url=served.web, timeout=30) as http:
        for path in paths:
            for token, sees in ((None, False), (served.bob, False), (served.alice, True),
                                (served.admin, True)):  # fmt: skip
                body = http.get(path, headers=_bearer(token)).text
                assert (OUTPUT_SECRET in body) is sees, (path, token)
                assert (STATUS_SECRET in body) is sees, (path, token)
            assert "its process has exited (exit code 1)" in http.get(path).text


def test_the_api_leaderboard_is_paged_by_default(served: Served) -> None:
    with httpx.Client(base_url=served.web, timeout=30) as http:
        board = http.get("/api/leaderboard").json()
        assert board["per_page"] == 100 and len(board["rows"]) <= 100
        one = http.get("/api/leaderboard?per_page=1").json()
        assert len(one["rows"]) == 1 and one["pages"] == one["total"] >= 2
        for bad in ("0", "1001", "10000"):
            r = http.get(f"/api/leaderboard?per_page={bad}")
            assert r.status_code == 400 and "per_page" in r.json()["error"]


# -- in a real browser ---------------------------------------------------------------------------


@pytest.mark.web
@pytest.mark.slow
def test_the_owner_reads_her_bots_log_in_a_browser(served: Served) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            log_path = f"/matches/{served.crash_match}/logs/0"
            page.goto(served.web + log_path)
            assert page.locator("#need-login").is_visible()
            page.goto(f"{served.web}/login?next={log_path}")
            page.fill("input[name=token]", served.alice)
            page.click("#token-login button")
            page.wait_for_selector("#log")
            assert LOG_SECRET in page.locator("#log").inner_text()
            # The sealed game's log waits for its twin, for its owner too.
            record = served.store.get_match(served.sealed_match).summary
            seat = 0 if record.players[0].startswith("random") else 1
            page.goto(f"{served.web}/matches/{served.sealed_match}/logs/{seat}")
            assert SEALED in page.locator("#sealed").inner_text()
            assert LOG_SECRET not in page.content()
        finally:
            browser.close()
