"""People as players in the store (migration 0010): a signed-in person's player, rated opt-in in
the bots' TrueSkill pool, the leaderboard's players filter, the fair-play rules for people."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from arena.store import Store, StoreError
from arena.store.database import resolve_url
from arena.store.migrate import alembic_config
from arena.store.models import Base


def test_migration_0010_marks_people_and_goes_back(db_url: str) -> None:
    """At 0008 a person's earlier match was kept under ``human:<name>``: upgraded, that player
    is of kind human and a bot stays a bot; the schema is the models'; downgraded, the columns
    go and the rows stay."""
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0008")
            conn.execute(
                text(
                    "INSERT INTO bots (id, name, owner_token_id, created_at) VALUES "
                    "(1, 'human:ada', NULL, CURRENT_TIMESTAMP), "
                    "(2, 'random', NULL, CURRENT_TIMESTAMP)"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO bot_versions (id, bot_id, version_label, content_hash, source, "
                    "created_at) VALUES (1, 1, 'person', 'person', 'human', CURRENT_TIMESTAMP)"
                )
            )
        with Store.open(db_url, upgrade=True) as store:
            kinds = {b.name: b.kind for b in store.list_bots()}
            assert kinds == {"human:ada": "human", "random": "bot"}
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0008")
        columns = {c["name"] for c in inspect(engine).get_columns("bots")}
        assert "kind" not in columns and "account_id" not in columns
        with engine.connect() as conn:
            names = conn.execute(text("SELECT name FROM bots ORDER BY id")).scalars().all()
        assert names == ["human:ada", "random"]
    finally:
        engine.dispose()


def _bot(store: Store, name: str, owner: int | None = None) -> int:
    return store.register_bot_version(name, "1", f"hash-{name}", "/x", owner_token_id=owner).id


def test_a_person_rated_joins_the_bots_pool_marked_human(
    db_url: str, make_result: Callable[..., Any]
) -> None:
    with Store.open(db_url, upgrade=True) as store:
        ada = store.create_account("ada", "ada's long password")
        person = store.register_person(ada.id)
        assert person.name == "human:ada" and person.owner_token_id == ada.token_id
        assert store.register_person(ada.id).id == person.id  # one player per account
        assert store.person_of_account(ada.id) == "human:ada"
        random_bot, cautious = _bot(store, "random"), _bot(store, "cautious")
        store.record_match(make_result(0), seat_versions=(person.id, random_bot))
        store.record_match(make_result(0), seat_versions=(cautious, random_bot))
        everyone = store.leaderboard()
        assert {(r.bot, r.human) for r in everyone} == {
            ("human:ada", True), ("random", False), ("cautious", False)
        }  # fmt: skip
        humans = store.leaderboard(players="humans")
        assert [(r.rank, r.bot) for r in humans] == [(1, "human:ada")]
        assert {r.bot for r in store.leaderboard(players="bots")} == {"random", "cautious"}
        with pytest.raises(StoreError, match="unknown players filter 'people'; offered: all"):
            store.leaderboard(players="people")
        match = store.list_matches(bot="human:ada")[0]
        assert match.rated and match.humans == (True, False)
        assert {b.name: b.human for b in store.list_bots()}["human:ada"] is True


def test_a_person_against_their_own_bot_is_same_owner(
    db_url: str, make_result: Callable[..., Any]
) -> None:
    with Store.open(db_url, upgrade=True) as store:
        bo = store.create_account("bo", "bo's long password")
        person = store.register_person(bo.id)
        own = _bot(store, "bobot", owner=bo.token_id)
        store.record_match(make_result(1), seat_versions=(own, person.id))
        m = store.list_matches(bot="human:bo")[0]
        assert (m.rated, m.unrated_reason) == (False, "same_owner")


def test_a_guest_is_a_human_never_mistaken_for_a_person_or_a_bot(
    db_url: str, make_result: Callable[..., Any]
) -> None:
    with Store.open(db_url, upgrade=True) as store:
        guest = store.register_guest("ada")
        assert guest.name == "guest:ada" and guest.owner_token_id is None
        ada = store.create_account("ada", "ada's long password")
        assert store.register_person(ada.id).name == "human:ada"  # the guest is not ada
        with pytest.raises(StoreError, match="'guest:ada' is a person at /play, not a bot"):
            store.register_bot_version("guest:ada", "1", "h", "/x")
        # A bot's name with a ':' (manifests refuse one; the store takes it) stays a bot's.
        store.register_bot_version("guest:kim", "1", "h", "/x")
        with pytest.raises(StoreError, match="'guest:kim' is a bot's name, not a person's"):
            store.register_guest("kim")


def test_a_name_from_before_accounts_is_kept_apart(db_url: str) -> None:
    with Store.open(db_url, upgrade=True) as store:
        old = store.register_guest("x")  # any earlier human row in the way of the name
        with store._write() as s:  # an anonymous match recorded as human:cy before 0010
            s.execute(text("UPDATE bots SET name = 'human:cy' WHERE name = 'guest:x'"))
        cy = store.create_account("cy", "cy's long password")
        person = store.register_person(cy.id)
        assert person.name == f"human:cy~{cy.id}" and person.bot_id != old.bot_id
