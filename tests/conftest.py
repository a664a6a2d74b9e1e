"""Shared fixtures: a fresh database for each test, on SQLite and, when one is given, PostgreSQL.

PostgreSQL tests need a server: set ``ARENA_TEST_POSTGRES_URL`` to a database on it whose user
may create databases (each test gets a database of its own, dropped afterwards), for example by
``source .ci/postgres.sh``, which starts a throwaway server and sets it. Without it they skip,
except under CI (``CI`` set), where a missing server is an error, not a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from arena.referee.record import MatchResult

# The tests of the plain runtime, the referee and tournaments start their bots as plain
# supervised processes (many test bots share code from a sibling directory, which the sandbox
# does not show them); tests/test_sandbox*.py ask for the sandbox explicitly.
os.environ.setdefault("ARENA_SANDBOX", "off")
# The servers the tests start (arena serve, arena web) analyse no match in the background (its
# own tests, tests/test_analysis_worker.py, start the worker): the tests that count a server's
# child processes count its bots, and the suite's two cores go to what each test measures.
os.environ.setdefault("ARENA_ANALYSIS", "off")

POSTGRES_ENV = "ARENA_TEST_POSTGRES_URL"
POSTGRES_HOWTO = (
    f"PostgreSQL tests skipped: set {POSTGRES_ENV}=postgresql+psycopg://USER@HOST:PORT/DB "
    "(USER may create databases), or run `source .ci/postgres.sh` first to start a throwaway "
    "server"
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Every PostgreSQL skip reported from one place, so ``-ra`` folds them into one summary line
    (``SKIPPED [24] tests/conftest.py: PostgreSQL tests skipped: …``), not one per test."""
    report = yield
    longrepr = getattr(report, "longrepr", None)
    if (
        getattr(report, "skipped", False)
        and isinstance(longrepr, tuple)
        and len(longrepr) == 3
        and POSTGRES_HOWTO in str(longrepr[2])
    ):
        report.longrepr = (__file__, None, longrepr[2])  # type: ignore[attr-defined]
    return report


@pytest.fixture(scope="session")
def _postgres_admin() -> Iterator[object]:
    """An AUTOCOMMIT engine on the given PostgreSQL server, for creating test databases."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {POSTGRES_ENV} is not: .ci/run should start PostgreSQL")
        pytest.skip(POSTGRES_HOWTO)
    from sqlalchemy import create_engine

    from arena.store.database import resolve_url

    engine = create_engine(resolve_url(url), isolation_level="AUTOCOMMIT")
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_url(_postgres_admin: object) -> Iterator[str]:
    """A new, empty PostgreSQL database for this test."""
    from sqlalchemy import Engine, text

    assert isinstance(_postgres_admin, Engine)
    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    with _postgres_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = _postgres_admin.url.set(database=name)
    yield url.render_as_string(hide_password=False)
    with _postgres_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file that does not exist yet, in this test's folder."""
    return f"sqlite:///{tmp_path / 'arena.db'}"


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def db_url(request: pytest.FixtureRequest) -> str:
    """A fresh database URL: each test using it runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_url"))
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def make_result() -> Callable[..., MatchResult]:
    """A factory of referee match results with short synthetic decision records."""
    from datetime import UTC, datetime, timedelta

    from arena.referee.record import DecisionRecord, MatchResult, Termination
    from arena.rules import ENGINE_VERSION, Decision, RuleSet

    def make(
        winner: int | None = 0,
        *,
        termination: Termination | None = None,
        seed: int = 1,
        faults: tuple[int, int] = (0, 0),
        match_id: str | None = None,
        decisions: int = 12,
    ) -> MatchResult:
        if termination is None:
            termination = (
                Termination.TARGET_REACHED if winner is not None else (Termination.HAND_LIMIT)
            )
        records = tuple(
            DecisionRecord(
                seat=i % 2,
                decision=Decision.PLAY if i % 3 else Decision.DRAW,
                action=(i * 7) % 52 if i % 3 else bool(i % 2),
                elapsed_us=150 + 37 * i,
            )
            for i in range(decisions)
        )
        started = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
        return MatchResult(
            match_id=match_id or uuid.uuid4().hex,
            seed=seed,
            rules=RuleSet(),
            engine_version=ENGINE_VERSION,
            players=("a", "b"),
            winner=winner,
            scores=(510, 230) if winner == 0 else (230, 510) if winner == 1 else (300, 300),
            hands_played=9,
            termination=termination,
            faults=faults,
            detail="" if termination.value.startswith("target") else termination.value,
            decisions=records,
            started_at=started,
            finished_at=started + timedelta(seconds=2),
        )

    return make


CHROMIUM = "/usr/bin/chromium"
"""The browser of the web tests: Debian's chromium, driven by Playwright (no browser download)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for a test module's pages (CI must have it: .ci/run installs it)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {CHROMIUM} is missing: .ci/run installs chromium")
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()
