"""The store on a real database: SQLite always, PostgreSQL when a server is given (conftest)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import create_engine, inspect, text

from arena.ratings import Rater, RatingConfig
from arena.referee.record import DecisionRecord, MatchResult, Termination
from arena.rules import ENGINE_VERSION, Match, RuleSet
from arena.store import (
    AlreadyRecordedError,
    GameStatus,
    NotFoundError,
    NotOwnerError,
    ScheduleEntry,
    SchemaError,
    Store,
    StoreError,
    TournamentStatus,
    database_revision,
    resolve_url,
    upgrade_database,
)
from arena.store.migrate import head_revision

MakeResult = Callable[..., MatchResult]
TABLES = {
    "accounts",
    "alembic_version",
    "api_tokens",
    "bots",
    "invite_codes",
    "bot_versions",
    "marks",
    "matches",
    "match_analyses",
    "named_tokens",
    "ratings",
    "settings",
    "sign_in_failures",
    "submissions",
    "tournaments",
    "tournament_games",
    "tournament_summaries",
    "web_sessions",
}


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url, rating_config=RatingConfig()) as s:
        yield s


def _bots(store: Store, n: int) -> list[int]:
    return [
        store.register_bot_version(f"bot{i}", "1.0", f"hash{i}", f"/bots/{i}").id for i in range(n)
    ]


def _count(url: str, table: str) -> int:
    engine = create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


def _execute(url: str, sql: str) -> None:
    engine = create_engine(resolve_url(url))
    try:
        with engine.begin() as conn:
            conn.execute(text(sql))
    finally:
        engine.dispose()


# -- schema --------------------------------------------------------------------------------------


def test_new_database_is_created_and_migrated_on_first_use(db_url: str) -> None:
    _, before, head = database_revision(db_url)
    assert before is None and head == head_revision()
    with Store.open(db_url):
        pass
    assert database_revision(db_url)[1] == head
    engine = create_engine(resolve_url(db_url))
    try:
        assert set(inspect(engine).get_table_names()) == TABLES
    finally:
        engine.dispose()
    assert upgrade_database(db_url) == (head, head)  # already current: nothing to do


def test_a_newer_schema_is_refused_and_nothing_changes(
    db_url: str, make_result: MakeResult
) -> None:
    with Store.open(db_url, rating_config=RatingConfig()) as store:
        a, b = _bots(store, 2)
        store.record_match(make_result(0), seat_versions=(a, b))
    _execute(db_url, "UPDATE alembic_version SET version_num = '9999_from_the_future'")
    counts = {t: _count(db_url, t) for t in ("matches", "ratings", "bots")}

    with pytest.raises(SchemaError) as err:
        Store.open(db_url)
    message = str(err.value)
    assert "'9999_from_the_future'" in message and "newer arena" in message
    assert "nothing was changed" in message and "\n" not in message
    with pytest.raises(SchemaError):
        upgrade_database(db_url)

    assert database_revision(db_url)[1] == "9999_from_the_future"
    assert {t: _count(db_url, t) for t in counts} == counts


def test_unreachable_database_names_the_url_without_its_password() -> None:
    url = "postgresql://arena:s3cret-pw@127.0.0.1:1/arena"
    with pytest.raises(StoreError) as err:
        Store.open(url)
    message = str(err.value)
    assert message.startswith(
        "cannot connect to database postgresql+psycopg://arena:***@127.0.0.1:1/arena"
    )
    assert "s3cret-pw" not in message and "\n" not in message


def test_missing_sqlite_folder_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(StoreError, match=r"folder .*missing.* does not exist"):
        Store.open(f"{tmp_path}/missing/arena.db")


def test_url_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert resolve_url(None).render_as_string() == "sqlite:///arena.db"
    assert resolve_url("/tmp/x.db").render_as_string() == "sqlite:////tmp/x.db"
    pg = resolve_url("postgresql://u:p@h:5/d")
    assert pg.drivername == "postgresql+psycopg" and pg.password == "p"
    assert resolve_url("postgres://h/d").drivername == "postgresql+psycopg"
    monkeypatch.setenv("ARENA_DB", "sqlite:///elsewhere.db")
    assert resolve_url(None).database == "elsewhere.db"
    assert resolve_url("other.db").database == "other.db"  # --db wins over ARENA_DB
    with pytest.raises(StoreError, match="unsupported database"):
        Store.open("mysql://h/d")


# -- bots ----------------------------------------------------------------------------------------


def test_registering_a_bot_version_is_idempotent(store: Store) -> None:
    v1 = store.register_bot_version("heuristic", "1.0", "aaa", "sample_bots/heuristic")
    again = store.register_bot_version("heuristic", "1.0", "aaa", "elsewhere")
    assert again == v1
    v2 = store.register_bot_version("heuristic", "1.0", "bbb", "sample_bots/heuristic")
    assert v2.id != v1.id and v2.bot_id == v1.bot_id
    assert store.get_bot_version("heuristic") == v2  # a bare name is the latest version
    assert store.get_bot_version("heuristic@1.0") == v2
    assert store.get_bot_version(v1.id) == v1
    assert [v.id for v in store.list_versions("heuristic")] == [v1.id, v2.id]
    assert [b.name for b in store.list_bots()] == ["heuristic"]
    # A fresh version starts at the initial rating.
    assert (store.rating(v2.id).mu, store.rating(v2.id).sigma) == Rater().initial()


def test_unknown_bot_lists_the_known_ones(store: Store) -> None:
    _bots(store, 2)
    with pytest.raises(NotFoundError, match=r"unknown bot 'nope'; known bots: bot0, bot1"):
        store.get_bot_version("nope")
    with pytest.raises(NotFoundError, match=r"has no version '9'; its versions: 1.0"):
        store.get_bot_version("bot0@9")
    with pytest.raises(StoreError, match="bad bot name"):
        store.register_bot_version("a@b", "1", "h", "/x")


# -- matches and ratings ---------------------------------------------------------------------------


def test_record_match_commits_the_match_and_the_rating_update(
    store: Store, make_result: MakeResult
) -> None:
    a, b = _bots(store, 2)
    result = make_result(1, faults=(2, 0))
    recorded = store.record_match(result, seat_versions=(a, b))
    assert recorded.rated and recorded.sequence >= 1

    (mu_a, s_a), (mu_b, s_b) = Rater().rate(Rater().initial(), Rater().initial(), 1)
    ra, rb = store.rating(a), store.rating(b)
    assert (ra.mu, ra.sigma, rb.mu, rb.sigma) == (mu_a, s_a, mu_b, s_b)
    assert (ra.matches, ra.wins, ra.losses, ra.draws, ra.faults) == (1, 0, 1, 0, 2)
    assert (rb.matches, rb.wins, rb.losses, rb.draws, rb.faults) == (1, 1, 0, 0, 0)
    assert recorded.ratings == (ra, rb)

    stored = store.get_match(result.match_id)
    assert stored.result.decisions == result.decisions
    assert stored.result.players == ("bot0@1.0", "bot1@1.0")
    for field in (
        "match_id",
        "seed",
        "rules",
        "engine_version",
        "winner",
        "scores",
        "hands_played",
        "termination",
        "faults",
        "detail",
        "started_at",
        "finished_at",
    ):
        assert getattr(stored.result, field) == getattr(result, field), field
    summary = stored.summary
    seat0 = [d.elapsed_us for d in result.decisions if d.seat == 0]
    assert summary.mean_decision_us[0] == round(sum(seat0) / len(seat0))
    assert summary.max_decision_us[0] == max(seat0)
    assert summary.decision_count == len(result.decisions)
    assert stored.decisions_bytes > 0

    with pytest.raises(AlreadyRecordedError):
        store.record_match(result, seat_versions=(a, b))
    assert store.rating(a) == ra  # refused: not counted twice
    with pytest.raises(NotFoundError, match="no match"):
        store.get_match("nope")


def test_what_is_rated(store: Store, make_result: MakeResult) -> None:
    a, b = _bots(store, 2)
    draw = store.record_match(make_result(None), seat_versions=(a, b))
    assert draw.rated and store.rating(a).draws == 1 and store.rating(b).draws == 1

    # A forfeit is a loss for the side that forfeited (the referee names the other the winner).
    forfeit = make_result(1, termination=Termination.FORFEIT_TIMEOUT, faults=(1, 0))
    assert store.record_match(forfeit, seat_versions=(a, b)).rated
    assert store.rating(a).losses == 1 and store.rating(b).wins == 1
    assert store.rating(a).faults == 1

    before = store.ratings()
    aborted = make_result(None, termination=Termination.ABORTED)
    nobody = make_result(None, termination=Termination.FORFEIT_NO_START)
    self_play = make_result(0)
    assert store.record_match(aborted, seat_versions=(a, b)).unrated_reason == "aborted"
    assert store.record_match(nobody, seat_versions=(a, b)).unrated_reason == "not_started"
    assert store.record_match(self_play, seat_versions=(a, a)).unrated_reason == "self_play"
    # R-less, but the arena's: a bot that could not start gives nobody a win (one side only).
    one_failed = make_result(1, termination=Termination.FORFEIT_NO_START, faults=(1, 0))
    recorded = store.record_match(one_failed, seat_versions=(a, b))
    assert not recorded.rated and recorded.unrated_reason == "not_started"
    assert store.ratings() == before
    assert len(store.list_matches()) == 6
    unrated = store.list_matches(rated=False)
    assert [m.unrated_reason for m in unrated] == [
        "aborted",
        "not_started",
        "self_play",
        "not_started",
    ]
    assert all(m.unrated_reason is None for m in store.list_matches(rated=True))


def test_one_owners_bots_are_recorded_never_rated(store: Store, make_result: MakeResult) -> None:
    """The shill and the star: one owner's second bot throws every match to the first. The
    matches are kept, with the reason, and rate nobody; the star's match against another
    owner's bot is rated as ever."""
    alice = store.verify_token(store.create_token("alice"))
    bob = store.verify_token(store.create_token("bob"))
    assert alice is not None and bob is not None
    star = store.register_bot_version("star", "1", "h-star", "/s", owner_token_id=alice.id)
    shill = store.register_bot_version("shill", "1", "h-shill", "/h", owner_token_id=alice.id)
    other = store.register_bot_version("other", "1", "h-other", "/o", owner_token_id=bob.id)
    assert star.owner_token_id == shill.owner_token_id == alice.id
    before = store.ratings()
    for i in range(4):  # the shill plays an illegal card: a forfeit, the star "wins"
        thrown = make_result(
            0, termination=Termination.FORFEIT_ILLEGAL_ACTION, faults=(0, 1), seed=i + 1
        )
        recorded = store.record_match(thrown, seat_versions=(star.id, shill.id))
        assert not recorded.rated and recorded.unrated_reason == "same_owner"
    assert store.ratings() == before
    assert store.rating(star.id).wins == 0 and store.rating(shill.id).faults == 0
    assert store.record_match(make_result(0), seat_versions=(star.id, other.id)).rated
    assert store.rating(star.id).wins == 1
    # A version made later (a local registration too) belongs to the bot's owner.
    again = store.register_bot_version("shill", "2", "h-shill-2", "/h2")
    assert again.owner_token_id == alice.id
    # Bots registered locally (no owner) or by an admin are the organiser's: rated.
    x, y = _bots(store, 2)
    assert store.record_match(make_result(1), seat_versions=(x, y)).rated
    root = store.verify_token(store.create_token("root", role="admin"))
    assert root is not None
    h1, h2 = (
        store.register_bot_version(f"house{i}", "1", f"h-house{i}", "/x", owner_token_id=root.id)
        for i in (1, 2)
    )
    assert h1.owner_token_id == root.id
    assert store.record_match(make_result(1), seat_versions=(h1.id, h2.id)).rated
    # A recompute keeps the same-owner matches out too: three rated matches, as recorded.
    assert store.recompute_ratings() == 3
    assert store.rating(star.id).wins == 1 and store.rating(shill.id).matches == 0


def test_a_failed_record_writes_nothing(db_url: str, store: Store, make_result: MakeResult) -> None:
    a, _ = _bots(store, 2)
    before = store.ratings()
    with pytest.raises(NotFoundError, match="no bot version with id 999"):
        store.record_match(make_result(0), seat_versions=(a, 999))
    with pytest.raises(StoreError, match="seat_versions"):
        store.record_match(make_result(0), seat_versions=(a,))  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="64-bit"):
        store.record_match(make_result(0, seed=2**64), seat_versions=(a, a))
    assert store.ratings() == before
    assert _count(db_url, "matches") == 0


def _random_history(store: Store, make_result: MakeResult, versions: list[int], n: int) -> None:
    rng = random.Random(11)
    terminations = [Termination.TARGET_REACHED] * 6 + [
        Termination.FORFEIT_CRASH,
        Termination.ABORTED,
    ]
    for _ in range(n):
        a, b = rng.sample(versions, 2)
        termination = rng.choice(terminations)
        winner = rng.choice([0, 0, 1, 1, None]) if termination.value == "target_reached" else 1
        if winner is None:
            termination = Termination.HAND_LIMIT
        if termination is Termination.ABORTED:
            winner = None
        faults = (rng.randint(0, 2), 0)
        store.record_match(
            make_result(winner, termination=termination, faults=faults), seat_versions=(a, b)
        )


def test_recompute_gives_the_incremental_numbers(
    db_url: str, store: Store, make_result: MakeResult
) -> None:
    versions = _bots(store, 4)
    _random_history(store, make_result, versions, 40)
    incremental = store.ratings()
    assert sum(r.matches for r in incremental.values()) == 2 * len(store.list_matches(rated=True))

    _execute(db_url, "UPDATE ratings SET mu = 1, sigma = 1, matches = 0, wins = 7")
    applied = store.recompute_ratings()
    assert applied == len(store.list_matches(rated=True))
    assert store.ratings() == incremental  # exactly: same updates, same order


def test_leaderboard_ranks_by_conservative_score(store: Store, make_result: MakeResult) -> None:
    strong, weak, _idle = _bots(store, 3)
    for _ in range(5):
        store.record_match(make_result(0), seat_versions=(strong, weak))
    board = store.leaderboard()
    assert [(r.rank, r.bot) for r in board] == [(1, "bot0"), (2, "bot1")]  # idle: no matches
    assert board[0].score == pytest.approx(board[0].mu - 3 * board[0].sigma)
    assert board[0].mu_low == pytest.approx(board[0].mu - 1.959964 * board[0].sigma)
    assert board[0].mu_high == pytest.approx(board[0].mu + 1.959964 * board[0].sigma)
    assert board[0].score > board[1].score
    everyone = store.leaderboard(min_matches=0)
    assert {r.bot for r in everyone} == {"bot0", "bot1", "bot2"}
    assert [r.score for r in everyone] == sorted((r.score for r in everyone), reverse=True)
    assert [r.rank for r in everyone] == [1, 2, 3]
    assert board[0].to_json().keys() == {
        "rank",
        "bot",
        "version",
        "mu",
        "sigma",
        "score",
        "mu_low",
        "mu_high",
        "matches",
        "wins",
        "losses",
        "draws",
        "faults",
    }


def test_leaderboard_ties_are_broken_deterministically(
    store: Store, make_result: MakeResult
) -> None:
    # Two separate pairs with the same results: equal ratings, ordered by name.
    ids = [store.register_bot_version(n, "1", f"h-{n}", "/x").id for n in ("d", "c", "b", "a")]
    store.record_match(make_result(0), seat_versions=(ids[0], ids[1]))  # d beats c
    store.record_match(make_result(0), seat_versions=(ids[2], ids[3]))  # b beats a
    assert [r.bot for r in store.leaderboard()] == ["b", "d", "a", "c"]


def test_two_builds_with_one_label_are_told_apart(store: Store, make_result: MakeResult) -> None:
    v1 = store.register_bot_version("x", "1.0", "1111111111", "/x")
    v2 = store.register_bot_version("x", "1.0", "2222222222", "/x")
    store.record_match(make_result(0), seat_versions=(v1.id, v2.id))
    assert {r.version for r in store.leaderboard()} == {"1.0+11111111", "1.0+22222222"}


def test_changed_rating_settings_need_a_recompute(db_url: str, make_result: MakeResult) -> None:
    with Store.open(db_url, rating_config=RatingConfig()) as store:
        a, b = _bots(store, 2)
        store.record_match(make_result(0), seat_versions=(a, b))
    changed = RatingConfig(tau=0.05)
    with Store.open(db_url, rating_config=changed) as store:
        with pytest.raises(StoreError, match="arena ratings --recompute"):
            store.record_match(make_result(0), seat_versions=(a, b))
        assert store.rating(a).matches == 1
        assert store.recompute_ratings() == 1
        assert store.rating_settings() == changed
        store.record_match(make_result(0), seat_versions=(a, b))
        assert store.rating(a).matches == 2


def test_stored_decisions_replay_the_match_in_the_engine(
    store: Store, make_result: MakeResult
) -> None:
    a, b = _bots(store, 2)
    rng = random.Random(3)
    match = Match(seed=42, rules=RuleSet(max_hands=12))
    records = []
    while not match.is_over:
        seat, decision = match.to_act, match.decision
        assert seat is not None and decision is not None
        action = match.random_action(rng)
        match.apply(action)
        records.append(DecisionRecord(seat, decision, action, rng.randint(100, 5000)))
    outcome = match.outcome
    assert outcome is not None
    base = make_result(0)
    result = MatchResult(
        match_id="replay-me",
        seed=42,
        rules=RuleSet(max_hands=12),
        engine_version=ENGINE_VERSION,
        players=("a", "b"),
        winner=outcome.winner,
        scores=outcome.scores,
        hands_played=outcome.hands_played,
        termination=Termination(outcome.termination.value),
        faults=(0, 0),
        detail="",
        decisions=tuple(records),
        started_at=base.started_at,
        finished_at=base.finished_at,
    )
    store.record_match(result, seat_versions=(a, b))

    stored = store.get_match("replay-me").result
    replay = Match(seed=stored.seed, rules=stored.rules)
    for d in stored.decisions:
        assert (replay.to_act, replay.decision) == (d.seat, d.decision)
        replay.apply(d.action)
    assert replay.outcome == outcome


# -- tournaments ---------------------------------------------------------------------------------


def test_a_scheduled_game_is_recorded_once(store: Store, make_result: MakeResult) -> None:
    a, b = _bots(store, 2)
    schedule = [
        ScheduleEntry(
            ordinal=i,
            seed=100 + i // 2,
            seat_versions=(a, b) if i % 2 == 0 else (b, a),
            pair_id=i // 2,
        )
        for i in range(4)
    ]
    config = {"bots": ["bot0", "bot1"], "games": 2, "seed": 7, "concurrency": 2}
    tid = store.create_tournament(config, schedule)
    info = store.get_tournament(tid)
    assert (info.status, info.config, info.games_total, info.games_done) == (
        TournamentStatus.RUNNING,
        config,
        4,
        0,
    )
    pending = store.pending_games(tid)
    assert [g.ordinal for g in pending] == [0, 1, 2, 3]
    first = pending[0]

    result = make_result(0, seed=first.seed)
    store.record_match(result, seat_versions=first.seat_versions, tournament_game_id=first.id)
    assert [g.ordinal for g in store.pending_games(tid)] == [1, 2, 3]
    game = store.tournament_games(tid)[0]
    assert (game.status, game.match_id) == (GameStatus.DONE, result.match_id)
    summary = store.list_matches(tournament_id=tid)[0]
    assert (summary.tournament_game_id, summary.pair_id) == (first.id, 0)

    # The same game again (say, replayed after a crash): refused, nothing counted twice.
    ratings, matches = store.ratings(), len(store.list_matches())
    again = make_result(0, seed=first.seed)
    with pytest.raises(AlreadyRecordedError, match=f"tournament {tid} game 0 was already"):
        store.record_match(again, seat_versions=first.seat_versions, tournament_game_id=first.id)
    assert store.ratings() == ratings and len(store.list_matches()) == matches

    # A match that does not fit the schedule is refused.
    second = pending[1]
    with pytest.raises(StoreError, match="scheduled with seed"):
        store.record_match(
            make_result(0, seed=999),
            seat_versions=second.seat_versions,
            tournament_game_id=second.id,
        )
    with pytest.raises(StoreError, match="scheduled for bot versions"):
        store.record_match(
            make_result(0, seed=second.seed), seat_versions=(a, b), tournament_game_id=second.id
        )

    # An aborted attempt is kept, unrated, and the game stays pending.
    aborted = make_result(None, seed=second.seed, termination=Termination.ABORTED)
    store.record_match(aborted, seat_versions=second.seat_versions, tournament_game_id=second.id)
    assert [g.ordinal for g in store.pending_games(tid)] == [1, 2, 3]

    for g in store.pending_games(tid):
        store.record_match(
            make_result(1, seed=g.seed), seat_versions=g.seat_versions, tournament_game_id=g.id
        )
    info = store.get_tournament(tid)
    assert info.status is TournamentStatus.FINISHED and info.finished_at is not None
    assert (info.games_total, info.games_done) == (4, 4)
    assert store.pending_games(tid) == []
    assert len(store.list_matches(tournament_id=tid)) == 5  # 4 games and the aborted attempt
    assert [t.id for t in store.list_tournaments()] == [tid]


def test_bad_tournaments_are_refused(store: Store) -> None:
    a, b = _bots(store, 2)
    with pytest.raises(StoreError, match="at least one"):
        store.create_tournament({}, [])
    with pytest.raises(StoreError, match="repeated"):
        store.create_tournament({}, [ScheduleEntry(0, 1, (a, b)), ScheduleEntry(0, 1, (b, a))])
    with pytest.raises(NotFoundError):
        store.create_tournament({}, [ScheduleEntry(0, 1, (a, 777))])
    with pytest.raises(StoreError, match="JSON"):
        store.create_tournament({"x": object()}, [ScheduleEntry(0, 1, (a, b))])
    with pytest.raises(NotFoundError):
        store.pending_games(12345)
    assert store.list_tournaments() == []


# -- tokens --------------------------------------------------------------------------------------


def test_tokens_are_kept_only_as_hashes(db_url: str, store: Store) -> None:
    token = store.create_token("alice")
    assert token.startswith("arena_") and len(token) > 40
    owner = store.verify_token(token)
    assert owner is not None and owner.name == "alice"
    assert store.verify_token(token + "x") is None
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT token_hash FROM named_tokens")).scalar_one()
    finally:
        engine.dispose()
    assert token not in stored and len(stored) == 64
    with pytest.raises(StoreError, match="exists already"):
        store.create_token("alice")
    store.revoke_token("alice")
    assert store.verify_token(token) is None
    assert [t.name for t in store.list_tokens()] == ["alice"]


def test_only_the_owner_token_adds_versions_and_the_refusal_says_why(store: Store) -> None:
    alice = store.verify_token(store.create_token("alice"))
    bob = store.verify_token(store.create_token("bob"))
    assert alice is not None and bob is not None
    store.register_bot_version("owned", "1", "h1", "/x", owner_token_id=alice.id, owner_only=True)
    with pytest.raises(NotOwnerError, match="belongs to another token"):
        store.register_bot_version("owned", "2", "h2", "/x", owner_token_id=bob.id, owner_only=True)
    store.register_bot_version("local", "1", "h1", "/x")  # registered locally: no owner
    with pytest.raises(NotOwnerError, match="registered locally, without a token"):
        store.register_bot_version("local", "2", "h2", "/x", owner_token_id=bob.id, owner_only=True)
    assert [len(b.versions) for b in store.list_bots()] == [1, 1]


def test_upgrade_to_0005_gives_versions_their_owner_and_matches_their_reason(
    db_url: str, make_result: MakeResult
) -> None:
    """Revision 0005 on a database at 0004: each version gets its bot's owner, each unrated
    match the reason the store had then (and the store reads it back)."""
    from alembic import command

    from arena.store.database import WRITE, create_store_engine
    from arena.store.migrate import alembic_config

    engine = create_store_engine(resolve_url(db_url))
    try:
        with engine.execution_options(**{WRITE: True}).begin() as conn:
            command.upgrade(alembic_config(conn), "0004")
            conn.execute(
                text(
                    "INSERT INTO api_tokens (id, name, token_hash, created_at, role) "
                    "VALUES (7, 'alice', 'x', '2026-12-01', 'member')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO bots (id, name, owner_token_id, created_at) VALUES "
                    "(1, 'mine', 7, '2026-12-01'), (2, 'local', NULL, '2026-12-01')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO bot_versions (id, bot_id, version_label, content_hash, source, "
                    "created_at) VALUES (1, 1, '1', 'h1', '/1', '2026-12-01'), "
                    "(2, 2, '1', 'h2', '/2', '2026-12-01')"
                )
            )
            for i, (termination, seats, rated) in enumerate(
                [
                    ("aborted", (1, 2), False),
                    ("target_reached", (1, 1), False),
                    ("forfeit_crash", (1, 2), False),
                    ("target_reached", (1, 2), True),
                ]
            ):
                conn.execute(
                    text(
                        "INSERT INTO matches (match_id, seed, rules, engine_version, "
                        "seat0_version_id, seat1_version_id, score0, score1, hands_played, "
                        "termination, detail, faults0, faults1, rated, decisions, decision_count, "
                        "started_at, finished_at, recorded_at, rating_applied) VALUES "
                        f"('m{i}', 1, '{{}}', 'e', {seats[0]}, {seats[1]}, 0, 0, 1, "
                        f"'{termination}', '', 0, 0, {'TRUE' if rated else 'FALSE'}, :blob, 0, "
                        "'2026-12-01', '2026-12-01', '2026-12-01', FALSE)"
                    ),
                    {"blob": b""},
                )
    finally:
        engine.dispose()
    with Store.open(db_url, rating_config=RatingConfig(), upgrade=True) as store:
        assert store.get_bot_version(1).owner_token_id == 7
        assert store.get_bot_version(2).owner_token_id is None
        reasons = {m.match_id: m.unrated_reason for m in store.list_matches()}
    assert reasons == {"m0": "aborted", "m1": "self_play", "m2": "no_winner", "m3": None}


def test_tournaments_page_by_id_and_the_bots_mark_follows_registrations(store: Store) -> None:
    """``list_tournaments`` pages newest first by id (the leaderboard's filter); ``bots_mark``
    changes when a bot or a version is added (the ladder reads its roster again then)."""
    empty = store.bots_mark()
    assert empty == (0, 0, 0, 0)
    a = store.register_bot_version("alpha", "1", "ha", "/a").id
    b = store.register_bot_version("beta", "1", "hb", "/b").id
    one = store.bots_mark()
    assert one[0] == 2 and one[2] == 2 and one[3] == b
    store.register_bot_version("beta", "2", "hb2", "/b2")
    assert store.bots_mark()[:2] == one[:2] and store.bots_mark()[2:] != one[2:]
    ids = [store.create_tournament({"n": i}, [ScheduleEntry(0, i, (a, b))]) for i in range(5)]
    newest = store.list_tournaments(newest_first=True, limit=2)
    assert [t.id for t in newest] == ids[::-1][:2]
    older = store.list_tournaments(newest_first=True, limit=2, before=newest[-1].id)
    assert [t.id for t in older] == ids[::-1][2:4]
    assert [t.id for t in store.list_tournaments()] == ids
