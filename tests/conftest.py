"""Shared fixtures: small and named. Suites that need a real vLLM, a browser or PostgreSQL are marked."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from tests.pg import db_url, pg_database, pg_url  # noqa: E402, F401  (PostgreSQL fixtures)
from tests.scripted_upstream import ScriptedUpstream  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RAILS_DIR = ROOT / "rails"
TEST_ALLOWLIST = ["allowed.test", "*.wiki.test", "en.wikipedia.org"]


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream().start()
    yield server
    server.stop()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'railchat.db'}"


@pytest.fixture
def store(sqlite_url: str):  # noqa: ANN201
    from webapp.store import Store

    return Store(sqlite_url)


@pytest.fixture(scope="session")
def guard():  # noqa: ANN201
    from webapp.guard import Guard

    return Guard.from_dir(RAILS_DIR, url_allowlist=TEST_ALLOWLIST)


def make_service(store, guard, upstream: ScriptedUpstream, profile: str = "generic", **kwargs):  # noqa: ANN001, ANN201
    from webapp.chat import ChatService
    from webapp.llm import LLMClient
    from webapp.profiles import get_profile

    return ChatService(store=store, guard=guard, llm=LLMClient(upstream.base_url), profile=get_profile(profile),
                       served_model=upstream.model, **kwargs)


@pytest.fixture
def service(store, guard, upstream):  # noqa: ANN001, ANN201
    return make_service(store, guard, upstream)
