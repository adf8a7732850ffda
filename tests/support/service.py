"""A ChatService wired to a scripted upstream, and a FastAPI app with the API mounted, for tests."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from tests.support.paths import RAILS_DIR
from tests.support.scripted_upstream import ScriptedUpstream
from webapp.guard.rails import Guard
from webapp.store import Store
from webapp.turn.service import ChatService

TEST_ALLOWLIST = ["allowed.test", "*.wiki.test", "en.wikipedia.org"]


def make_service(
    store: Store, guard: Guard, upstream: ScriptedUpstream, profile: str = "generic", **options: Any
) -> ChatService:
    """The settings' turn options, with ``options`` changed (e.g. ``image_clahe=True``)."""
    from webapp.config import load_settings
    from webapp.upstream.client import LLMClient
    from webapp.upstream.profiles import get_profile

    return ChatService(
        store=store,
        guard=guard,
        llm=LLMClient(upstream.base_url),
        profile=get_profile(profile),
        served_model=upstream.model,
        options=replace(load_settings().turn_options(), **options),
    )


def api_app(tmp: Path, service: ChatService, **settings: Any) -> FastAPI:
    """The API routes (no UI) over ``service``, with test settings."""
    from webapp.config import load_settings
    from webapp.web.app import install_observability_and_api

    app = FastAPI()
    install_observability_and_api(
        app, load_settings(data_dir=tmp, rails=RAILS_DIR, url_allowlist=TEST_ALLOWLIST, **settings), service
    )
    return app
