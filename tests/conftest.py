"""Shared fixtures: real PostgreSQL and Redis, a `db` on both databases, settings, a user.

`db` is parametrized over sqlite and postgres: a test that takes it runs twice. Each test gets a
fresh database (PostgreSQL: cloned from a migrated template, so it is quick).
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from renamerd.config import Settings  # noqa: E402
from renamerd.storage.database import Database  # noqa: E402
from servers import (  # noqa: E402
    PostgresServer,
    RedisServer,
    create_database,
    start_postgres,
    start_redis,
)

_counter = itertools.count()
_TEMPLATE = "renamerd_template"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.upper().startswith("RENAMERD_"):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    server = start_postgres()
    url = create_database(server, _TEMPLATE)
    template = Database(url)
    template.upgrade()
    template.dispose()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = start_redis()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    import redis

    redis.Redis.from_url(redis_server.url).flushall()
    return redis_server.url


def fresh_postgres_url(server: PostgresServer) -> str:
    return create_database(server, f"t{os.getpid()}_{next(_counter)}", template=_TEMPLATE)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    return fresh_postgres_url(postgres_server)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'renamerd.db'}"
    return fresh_postgres_url(request.getfixturevalue("postgres_server"))


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = Database(db_url)
    database.upgrade()
    yield database
    database.dispose()


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    """Settings on the parametrized database, state under tmp_path."""
    return Settings(
        database={"url": db_url},
        daemon={"state_dir": str(tmp_path / "state")},
    )
