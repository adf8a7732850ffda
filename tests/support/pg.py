"""PostgreSQL for tests: the server in RAILCHAT_TEST_PG_URL, or a private throwaway cluster.

Fixtures (import them in conftest.py):
- ``pg_url`` (session): URL of a PostgreSQL server's maintenance database. Without RAILCHAT_TEST_PG_URL
  it runs ``initdb`` + ``pg_ctl`` in a temp dir, on a free loopback port with its unix socket inside the
  temp dir, and removes everything at the end. Skips only when no PostgreSQL server binaries exist.
- ``pg_database`` (function): URL of a fresh, empty database on that server, dropped afterwards.
- ``db_url`` (function, parametrized ``sqlite`` / ``postgres``): a fresh database URL of each kind; the
  postgres case carries the ``postgres`` marker.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.support.threaded_server import free_port

PG_BIN_DIRS = ("/usr/lib/postgresql/15/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True))


def find_pg_bin() -> Path | None:
    candidates = [os.environ.get("RAILCHAT_PG_BIN", ""), *PG_BIN_DIRS]
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    for directory in filter(None, candidates):
        if (Path(directory) / "initdb").exists() and (Path(directory) / "pg_ctl").exists():
            return Path(directory)
    return None


class PgCluster:
    """A disposable PostgreSQL cluster. initdb refuses to run as root, so root runs it as `postgres`."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.as_root = os.geteuid() == 0
        # The postgres user must be able to reach the dir, and a private TMPDIR under /root would stop it.
        self.root = Path(tempfile.mkdtemp(prefix="railchat-pg-", dir="/tmp" if self.as_root else None))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0

    def _run(self, *args: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        result = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {result.stderr.strip()}\n{log}")

    def start(self) -> str:
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        for attempt in range(3):
            self.port = free_port()
            options = (
                f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            try:
                self._run(
                    str(self.bindir / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.log),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    options,
                    "start",
                )
                break
            except RuntimeError:
                if attempt == 2:  # the port may have been taken between probing and binding
                    raise
        return self.url

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    external = os.environ.get("RAILCHAT_TEST_PG_URL")
    if external:
        yield external
        return
    bindir = find_pg_bin()
    if bindir is None:
        if os.environ.get("RAILCHAT_REQUIRE_ALL"):
            pytest.fail("PostgreSQL is required in CI (scripts/system-deps.sh installs it)")
        pytest.skip(
            "PostgreSQL server binaries not found (initdb/pg_ctl); install the postgresql package "
            "or set RAILCHAT_TEST_PG_URL"
        )
    cluster = PgCluster(bindir)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def pg_database(pg_url: str) -> Iterator[str]:
    import psycopg

    name = "railchat_test_" + secrets.token_hex(6)
    with psycopg.connect(_libpq(pg_url), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(pg_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_libpq(pg_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'railchat.db'}"
    return str(request.getfixturevalue("pg_database"))
