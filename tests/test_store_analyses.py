"""Stored analyses (arena.store.analyses), on SQLite and PostgreSQL: kept with their solver
version, replaced not duplicated, and summed per bot version for card-play loss."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import create_engine

from arena.analysis import SOLVER_VERSION, analysis_to_dict
from arena.referee.analysed import analyse_result
from arena.store import NotFoundError, Store
from arena.store.database import resolve_url
from arena.store.models import Base
from tests.test_analyse_cli import played


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url) as s:
        yield s


def test_save_get_replace_and_what_is_left(store: Store) -> None:
    a = store.register_bot_version("alpha", "1", "ha", "/a").id
    b = store.register_bot_version("beta", "1", "hb", "/b").id
    results = [played(f"m{i}", 60 + i, ("alpha@1", "beta@1"), hands=2) for i in range(3)]
    for r in results:
        store.record_match(r, seat_versions=(a, b))
    assert store.unanalysed_matches(10) == ["m2", "m1", "m0"]
    assert store.get_analysis("m0") is None

    analyses = [analyse_result(r) for r in results]
    store.save_analysis("m0", analyses[0])
    store.save_analysis("m0", analyses[0])  # again: replaced, not doubled
    store.save_analysis("m1", analyses[1])
    got = store.get_analysis("m0")
    assert got is not None and analysis_to_dict(got) == analysis_to_dict(analyses[0])
    # A page's matches in one read: those analysed, the same as one by one.
    many = store.analyses_of(["m0", "m1", "m2", "nope"])
    assert sorted(many) == ["m0", "m1"] and store.analyses_of([]) == {}
    assert analysis_to_dict(many["m1"]) == analysis_to_dict(analyses[1])
    assert store.unanalysed_matches(10) == ["m2"]
    assert store.unanalysed_matches(0) == []

    losses = store.card_play_losses()
    hands = sum(len(x.hand_losses(0)) for x in analyses[:2])
    assert losses[a].hands == hands == losses[b].hands
    assert losses[a].loss == sum(sum(x.hand_losses(0)) for x in analyses[:2])
    assert losses[b].loss == sum(sum(x.hand_losses(1)) for x in analyses[:2])

    # an older solver's analysis is not served, and the match is to be analysed again
    store.save_analysis("m1", replace(analyses[1], solver_version="0"))
    assert store.get_analysis("m1") is None and sorted(store.analyses_of(["m0", "m1"])) == ["m0"]
    assert set(store.unanalysed_matches(10)) == {"m1", "m2"}
    assert sum(v.hands for v in store.card_play_losses().values()) == 2 * len(
        analyses[0].hand_losses(0)
    )
    with pytest.raises(NotFoundError):
        store.save_analysis("nope", analyses[0])
    assert SOLVER_VERSION != "0"


def test_the_migration_makes_the_models_table(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with Store.open(db_url):
        pass
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()
    assert [d for d in diffs if "match_analyses" in repr(d)] == []
