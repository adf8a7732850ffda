"""Engines, write ordering and migrations: everything about talking to the database, nothing about rows.

SQLite: WAL, a 30 s busy timeout, foreign keys on. Write transactions start with ``BEGIN IMMEDIATE`` (a
deferred one that reads first fails at once with "database is locked" when it tries to write) and queue
in arrival order on an in-process `FairLock`; other processes meet the busy timeout. PostgreSQL: seq
numbers and hash-chain links are allocated by an ``UPDATE ... RETURNING`` on the session row, whose row
lock serialises writers of the same session while different sessions write in parallel.
"""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

MIGRATIONS = Path(__file__).with_name("migrations")
# More connections than the threads that may call at once (asyncio.to_thread's default executor has
# min(32, CPUs + 4) threads), so no caller waits in the pool queue, whose wake-ups are not first come,
# first served.
POOL: dict[str, Any] = {"pool_size": 16, "max_overflow": 64, "pool_timeout": 60}
_MIGRATION_LOCK_KEY = 7_370_001  # any constant; serialises concurrent upgrades on PostgreSQL


def normalize_url(url: str) -> str:
    """Accept the usual PostgreSQL spellings and use the psycopg 3 driver the project installs."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _sqlite_engine(url: URL) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    if not in_memory:
        Path(cast(str, url.database)).expanduser().parent.mkdir(parents=True, exist_ok=True)
    pooling: dict[str, Any] = {"poolclass": StaticPool} if in_memory else POOL
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pooling)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the "begin" hook below issues BEGIN itself
        cursor = dbapi_conn.cursor()
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        # Survives the app being killed; only an OS crash can lose the last commits.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")

    return engine


def make_engine(url: str) -> Engine:
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    return create_engine(parsed, pool_pre_ping=True, **POOL)


class FairLock:
    """A lock granted in arrival order. threading.Lock lets the releasing thread take it straight back,
    which under steady load starves a waiter for longer than any timeout."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[threading.Event] = deque()
        self._held = False

    def __enter__(self) -> None:
        with self._mutex:
            if not self._held:
                self._held = True
                return
            turn = threading.Event()
            self._waiters.append(turn)
        turn.wait()  # release() hands the lock over: _held stays True

    def __exit__(self, *exc: object) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().set()
            else:
                self._held = False


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (safe to run from several processes at once)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    with engine.connect() as conn:
        conn.execution_options(write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY})
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
