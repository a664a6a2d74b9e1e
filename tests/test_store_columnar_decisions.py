"""Decision records in the columnar form (``encode_decisions``) and migration 0011, which rewrites
a database's records into it and back.

Real database (SQLite, and PostgreSQL when given): records written at revision 0010 in the first
form read back the same decisions after the upgrade, are then stored in the columnar form, and
after the downgrade are the first form's bytes again, byte for byte.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text

from arena.bench.store_rate import bench_match
from arena.referee.record import (
    COLUMNAR,
    DecisionRecord,
    FaultKind,
    decode_decisions,
    encode_decisions,
    encode_decisions_v0,
)
from arena.referee.replay import verify
from arena.rules import Decision
from arena.store import Store
from arena.store.database import resolve_url
from arena.store.migrate import alembic_config, head_revision
from arena.store.models import Base

ODD = (
    DecisionRecord(0, Decision.DOUBLE_NIL, True, 12),
    DecisionRecord(1, Decision.DOUBLE_NIL, False, 0),
    DecisionRecord(0, Decision.EXCHANGE, (3, 17, 51), 2**31),
    DecisionRecord(1, Decision.EXCHANGE, (), 7),
    DecisionRecord(0, Decision.DRAW, False, 5, FaultKind.TIMEOUT),
    DecisionRecord(1, Decision.BID, 13, 2**40, FaultKind.CRASH),  # past 71 minutes: 8-byte times
    DecisionRecord(1, Decision.PLAY, 51, 1, FaultKind.ILLEGAL_ACTION),
)


@pytest.mark.parametrize("hands", [13, 200])
def test_the_columnar_form_gives_back_every_decision(hands: int) -> None:
    decisions = bench_match(11, hands).decisions
    blob = encode_decisions(decisions)
    assert blob[0] == COLUMNAR
    assert decode_decisions(blob) == decisions
    assert decode_decisions(encode_decisions_v0(decisions)) == decisions  # the first form too
    assert len(blob) < len(encode_decisions_v0(decisions))  # and it is smaller


def test_odd_decisions_and_an_empty_record() -> None:
    assert decode_decisions(encode_decisions(ODD)) == ODD
    assert decode_decisions(encode_decisions(list(ODD[:4]))) == ODD[:4]  # 4-byte times
    assert encode_decisions(()) == b"" and decode_decisions(b"") == ()
    negative = (DecisionRecord(0, Decision.BID, 3, -5),)
    assert decode_decisions(encode_decisions(negative))[0].elapsed_us == 0  # as the first form


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-3],  # cut short
        lambda b: b[:2] + b"\x09" + b[3:],  # a count that is not the record's
        lambda b: bytes((COLUMNAR, 5)) + b[2:],  # no such time width
    ],
)
def test_a_damaged_record_is_one_clear_error(damage: Callable[[bytes], bytes]) -> None:
    blob = encode_decisions(bench_match(3, 13).decisions)
    with pytest.raises(ValueError, match=r"^damaged decision record \(\d+ bytes\): "):
        decode_decisions(damage(blob))


def test_migration_0011_rewrites_records_and_goes_back(
    db_url: str, make_result: Callable[..., Any]
) -> None:
    """At 0010 three matches are recorded in the first form (one with no decisions); upgraded,
    each reads back the same and replays; downgraded, the bytes are what they were."""
    assert head_revision() >= "0011"
    engine = create_engine(resolve_url(db_url))
    matches = [
        dataclasses.replace(bench_match(21, 13), match_id="real"),
        make_result(0, match_id="odd", decisions=0),
        dataclasses.replace(make_result(1, match_id="faults"), decisions=ODD),
    ]
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0010")
        with engine.begin() as conn:
            for i, name in enumerate("ab", start=1):
                conn.execute(
                    text(
                        "INSERT INTO bots (id, name, created_at) VALUES (:i, :n, CURRENT_TIMESTAMP)"
                    ),
                    {"i": i, "n": name},
                )
                conn.execute(
                    text(
                        "INSERT INTO bot_versions (id, bot_id, version_label, content_hash, "
                        "source, created_at) VALUES (:i, :i, '1', :n, '-', CURRENT_TIMESTAMP)"
                    ),
                    {"i": i, "n": name},
                )
            for i, m in enumerate(matches, start=1):
                conn.execute(
                    text(
                        "INSERT INTO matches (id, match_id, seed, rules, engine_version, "
                        "seat0_version_id, seat1_version_id, winner, score0, score1, "
                        "hands_played, termination, detail, faults0, faults1, rated, decisions, "
                        "decision_count, started_at, finished_at, recorded_at, rating_applied) "
                        "VALUES (:id, :mid, :seed, :rules, :ev, 1, 2, :w, :s0, :s1, :hp, :t, '', "
                        "0, 0, false, :blob, :n, :at, :at, :at, false)"
                    ),
                    {
                        "id": i,
                        "mid": m.match_id,
                        "seed": m.seed,
                        "rules": json.dumps(m.rules.to_dict()),
                        "ev": m.engine_version,
                        "w": m.winner,
                        "s0": m.scores[0],
                        "s1": m.scores[1],
                        "hp": m.hands_played,
                        "t": m.termination.value,
                        "blob": encode_decisions_v0(m.decisions),
                        "n": len(m.decisions),
                        "at": m.started_at,
                    },
                )
        first_form = _blobs(engine)
        assert all(not b or b[0] != COLUMNAR for b in first_form.values())

        with Store.open(db_url, upgrade=True) as store:
            for m in matches:
                stored = store.get_match(m.match_id)
                assert stored.result.decisions == m.decisions
            verify(store.get_match("real").result)
        upgraded = _blobs(engine)
        assert upgraded["odd"] == b""
        assert upgraded["real"][0] == upgraded["faults"][0] == COLUMNAR
        assert len(upgraded["real"]) < len(first_form["real"])
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []

        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0010")
        assert _blobs(engine) == first_form
    finally:
        engine.dispose()


def _blobs(engine: Any) -> dict[str, bytes]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT match_id, decisions FROM matches")).all()
    return {mid: bytes(blob) for mid, blob in rows}
