from __future__ import annotations

import pytest

from webapp.upstream.profiles import KIMI_MAX_IMAGE_PIXELS, PROFILES, get_profile


def test_kimi_serve_arguments_are_pinned() -> None:
    assert get_profile("kimi-k2.5").vllm_serve_args() == [
        "moonshotai/Kimi-K2.5",
        "--trust-remote-code",
        "--tool-call-parser", "kimi_k2",
        "--reasoning-parser", "kimi_k2",
        "--enable-auto-tool-choice",
        "--mm-encoder-tp-mode", "data",
        "--tensor-parallel-size", "8",
    ]  # fmt: skip


def test_qwen3_serve_arguments_are_pinned() -> None:
    assert get_profile("qwen3").vllm_serve_args() == ["Qwen/Qwen3-8B", "--reasoning-parser", "qwen3"]


def test_smollm2_cpu_serve_arguments_are_pinned() -> None:
    assert get_profile("smollm2-cpu").vllm_serve_args("/cache/SmolLM2") == [
        "/cache/SmolLM2", "--enforce-eager", "--kv-cache-memory-bytes", str(256 * 2**20),
        "--enable-auto-tool-choice", "--tool-call-parser", "hermes", "--max-model-len", "4096",
    ]  # fmt: skip


def test_model_and_tensor_parallel_overrides() -> None:
    args = get_profile("kimi-k2.5").vllm_serve_args("/models/kimi", tensor_parallel_size=4)
    assert args[0] == "/models/kimi" and args[-2:] == ["--tensor-parallel-size", "4"]


def test_kimi_thinking_switch_and_sampling() -> None:
    kimi = get_profile("kimi-k2.5")
    assert kimi.request_extras("thinking") == {"chat_template_kwargs": {"thinking": True}}
    assert kimi.request_extras("instant") == {"chat_template_kwargs": {"thinking": False}}
    assert kimi.sampling_for("thinking") == {"temperature": 1.0, "top_p": 0.95}
    assert kimi.sampling_for("instant") == {"temperature": 0.6, "top_p": 0.95}
    assert kimi.sampling_for("instant", {"temperature": 0.0, "top_p": None}) == {
        "temperature": 0.0,
        "top_p": 0.95,
    }
    assert kimi.images and kimi.max_image_pixels == KIMI_MAX_IMAGE_PIXELS == 3_211_264


def test_qwen3_thinking_key() -> None:
    assert get_profile("qwen3").request_extras("instant") == {
        "chat_template_kwargs": {"enable_thinking": False}
    }


@pytest.mark.parametrize("name", ["smollm2-cpu", "generic"])
def test_models_that_do_not_think_send_no_switch(name: str) -> None:
    assert get_profile(name).request_extras("thinking") == {}
    assert not get_profile(name).can_think


def test_smollm2_is_text_only_and_generic_forwards_images() -> None:
    assert not PROFILES["smollm2-cpu"].images
    assert PROFILES["generic"].images


def test_unknown_profile_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="kimi-k2.5"):
        get_profile("nope")


@pytest.mark.parametrize(
    ("name", "size", "tokens"),
    [
        # Kimi K2.5: 14 px patches merged 2x2, one token per 28x28 px (started squares count), 4,096 at most.
        ("kimi-k2.5", (32, 24), 2),
        ("kimi-k2.5", (1024, 768), 37 * 28),
        ("kimi-k2.5", (2048, 1568), 4096),  # 74 x 56 squares, capped at the encoder's maximum
        # An unknown encoder: every image costs the per-image maximum, whatever its size.
        ("generic", (32, 24), 576),
        ("generic", (1024, 768), 576),
        # Text-only models never get image parts (they get a description, counted as text).
        ("qwen3", (32, 24), 0),
        ("qwen3", (1024, 768), 0),
        ("smollm2-cpu", (32, 24), 0),
        ("smollm2-cpu", (1024, 768), 0),
    ],
)
def test_an_image_costs_what_the_profiles_encoder_makes_of_it(
    name: str, size: tuple[int, int], tokens: int
) -> None:
    assert get_profile(name).image_cost(*size) == tokens
