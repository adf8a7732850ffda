"""The pipeline's limits and switches as one frozen value, built from `webapp.config.Settings`.

No defaults here on purpose: Settings is the only place a default is written, and a test that needs other
values says so with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, kw_only=True)
class TurnOptions:
    system_prompt: str | None  # None: the model gets no system prompt from the operator
    default_max_tokens: int  # answer length when a client does not ask
    max_tokens_cap: int  # the most a client may ask for (also capped at half the context window)
    context_margin: int  # tokens kept free for the chat template's own markup
    tokenize_near_limit_only: bool  # new messages that surely fit are counted by an upper bound
    fallback_max_model_len: int  # context length when the server does not say
    max_message_chars: int
    max_images: int  # per message
    max_image_bytes: int  # per image, as uploaded or fetched
    checkpoint_interval_s: float  # how often a streaming answer is saved
    image_clahe: bool  # OpenCV contrast normalisation of uploads
    image_workers: int  # images prepared at once, across all turns (each may need ~0.5 GB for a moment)
    describe_images: bool  # a text-only model gets a short description of each image (else: refused)
    client_system_prompts: Literal[
        "append", "ignore"
    ]  # an API client's system messages: after the operator's
