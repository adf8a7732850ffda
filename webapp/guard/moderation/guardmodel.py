"""The guard-model rail: a safety classifier served by vLLM (Llama Guard 3 or Qwen3Guard) as an option.

It is the heavier production rail for GPU machines (``model_moderation`` in ``rails/config.yml``, off by
default): NeMo Guardrails runs it on the input and on each finished answer, over HTTP to an OpenAI-compatible
endpoint. Both model families answer in text; ``parse_guard_verdict`` reads either shape:
- Llama Guard 3: ``safe`` or ``unsafe\\nS1,S10``;
- Qwen3Guard-Gen: ``Safety: Unsafe\\nCategories: Violent`` (``Controversial`` blocks unless configured).
Anything else counts as unsafe. An unreachable or failing model logs a line and refuses (fail closed),
unless the operator chose ``fail_closed: false``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from webapp.guard.moderation.findings import ModerationFinding
from webapp.guard.verdicts import Stage

log = logging.getLogger(__name__)

LLAMA_GUARD_CATEGORIES = {
    "S1": "violent crimes",
    "S2": "non-violent crimes",
    "S3": "sex-related crimes",
    "S4": "child sexual exploitation",
    "S5": "defamation",
    "S6": "specialized advice",
    "S7": "privacy",
    "S8": "intellectual property",
    "S9": "indiscriminate weapons",
    "S10": "hate",
    "S11": "suicide and self-harm",
    "S12": "sexual content",
    "S13": "elections",
    "S14": "code interpreter abuse",
}


@dataclass(frozen=True)
class ModelModerationConfig:
    enabled: bool = False
    base_url: str = "http://127.0.0.1:8001/v1"
    model: str = "llama-guard"
    api_key: str | None = None
    timeout_s: float = 10.0
    # When the moderation model is down, refuse rather than let unchecked text through.
    fail_closed: bool = True
    # Qwen3Guard's middle verdict: "block" (its strict mode) or "allow" (its loose mode).
    controversial: str = "block"

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> ModelModerationConfig:
        data = dict(data or {})
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


def parse_guard_verdict(content: str, *, controversial_safe: bool = False) -> tuple[bool, list[str]]:
    """(safe, category names or codes) from a Llama Guard or Qwen3Guard answer; unreadable is unsafe."""
    lines = [line.strip() for line in content.strip().splitlines() if line.strip()]
    if lines and lines[0].lower().startswith("safety:"):
        return _parse_qwen3guard(lines, controversial_safe)
    if lines and lines[0].lower() == "safe":
        return True, []
    codes = [c.strip().upper() for c in lines[1].split(",") if c.strip()] if len(lines) > 1 else []
    return False, [LLAMA_GUARD_CATEGORIES.get(c, c.lower()) for c in codes]


def _parse_qwen3guard(lines: list[str], controversial_safe: bool) -> tuple[bool, list[str]]:
    verdict = lines[0].split(":", 1)[1].strip().lower()
    fields = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
    categories = [c.strip().lower() for c in fields.get("Categories", "").split(",") if c.strip()]
    categories = [c for c in categories if c != "none"]
    if verdict == "safe" or (verdict == "controversial" and controversial_safe):
        return True, []
    return False, categories


class ModelModerator:
    def __init__(
        self, config: ModelModerationConfig, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.config = config
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        # Built lazily: constructing the Guard must not open connections.
        self._client_args: dict[str, Any] = {
            "base_url": config.base_url.rstrip("/") + "/",
            "headers": headers,
            "timeout": config.timeout_s,
            "transport": transport,
        }
        self._client: httpx.AsyncClient | None = None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def check(self, text: str, stage: Stage, user_text: str = "") -> ModerationFinding | None:
        if stage == "input":
            messages = [{"role": "user", "content": text}]
        else:
            messages = [{"role": "user", "content": user_text or "."}, {"role": "assistant", "content": text}]
        if self._client is None:
            self._client = httpx.AsyncClient(**self._client_args)
        try:
            response = await self._client.post(
                "chat/completions",
                json={"model": self.config.model, "messages": messages, "max_tokens": 32, "temperature": 0},
            )
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"] or ""
        except (httpx.HTTPError, KeyError, IndexError, ValueError, TypeError) as exc:
            log.warning(
                "model moderation failed (%s at %s): %s; %s",
                self.config.model,
                self.config.base_url,
                type(exc).__name__,
                "refusing" if self.config.fail_closed else "passing the text unchecked (fail_closed: false)",
            )
            if self.config.fail_closed:
                return ModerationFinding("model_moderation", "the safety check is unavailable right now")
            return None
        safe, names = parse_guard_verdict(content, controversial_safe=self.config.controversial == "allow")
        if safe:
            return None
        return ModerationFinding(
            "model_moderation", f"content about {', '.join(names or ['unsafe content'])} is not allowed here"
        )
