"""Input and output rails: NeMo Guardrails runs the flows in ``rails/``, whose actions call ``RailChecks``.

NeMo is used only as a rail runner: no main model, no dialog rails, no embeddings. ``LLMRails`` is built
without an LLM and called with ``options={"rails": [...]}``; the flows only execute our actions and the
predefined refusal, so no model is ever called (the test suite checks ``llm_calls_count == 0`` and that
no socket leaves the machine). Streaming chunks run the same ``RailChecks`` directly (NeMo adds ~3-4 ms
per call); NeMo runs the input check and the final check of each answer.
"""

from __future__ import annotations

import os

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")  # must be set before nemoguardrails is imported

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemoguardrails import LLMRails, RailsConfig

from webapp.guard.moderation import ModelModerationConfig, ModelModerator, ModerationConfig, Moderator
from webapp.guard.outputfilter import OutputFilter
from webapp.guard.urlpolicy import UrlPolicy, find_urls
from webapp.guard.verdicts import RailName, RailOutcome, Stage


def _elapsed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


class RailChecks:
    """The rail functions. NeMo actions (rails/actions.py) and the streaming OutputFilter both call these."""

    def __init__(
        self, url_policy: UrlPolicy, moderator: Moderator, model_moderator: ModelModerator | None = None
    ) -> None:
        self.url_policy = url_policy
        self.moderator = moderator
        self.model_moderator = model_moderator

    def url_allowlist(
        self, stage: Stage, texts: Sequence[str], image_urls: Sequence[str] = ()
    ) -> RailOutcome:
        start = time.perf_counter()
        urls = [u for text in texts if text for u in find_urls(text)] + list(image_urls)
        reason = self.url_policy.first_violation(urls)
        if reason is None:
            return RailOutcome(
                stage, "url_allowlist", "allow", "all links are on the allowlist", _elapsed_ms(start)
            )
        return RailOutcome(stage, "url_allowlist", "block", reason, _elapsed_ms(start))

    def moderation(self, stage: Stage, texts: Sequence[str]) -> RailOutcome:
        start = time.perf_counter()
        for text in texts:
            finding = self.moderator.check(text, stage) if text else None
            if finding is not None:
                return RailOutcome(stage, "moderation", "block", finding.reason, _elapsed_ms(start))
        return RailOutcome(stage, "moderation", "allow", "no moderation rule matched", _elapsed_ms(start))

    async def model_moderation(self, stage: Stage, texts: Sequence[str], user_text: str = "") -> RailOutcome:
        start = time.perf_counter()
        if self.model_moderator is None:
            return RailOutcome(
                stage, "model_moderation", "allow", "model moderation is off", _elapsed_ms(start)
            )
        for text in texts:
            finding = await self.model_moderator.check(text, stage, user_text) if text else None
            if finding is not None:
                return RailOutcome(stage, "model_moderation", "block", finding.reason, _elapsed_ms(start))
        return RailOutcome(
            stage, "model_moderation", "allow", "the safety model found nothing", _elapsed_ms(start)
        )

    def stream_rails(self, flow_names: Sequence[str]) -> list[RailName]:
        """The cheap rails among the configured output flows, in config order, for per-chunk checks."""
        per_chunk = ("url_allowlist", "moderation")
        return [r for r in map(rail_of_flow, flow_names) if r in per_chunk]

    def run_sync(self, rail: RailName, stage: Stage, texts: Sequence[str]) -> RailOutcome:
        if rail == "url_allowlist":
            return self.url_allowlist(stage, texts)
        return self.moderation(stage, texts)


def rail_of_flow(flow_name: str) -> RailName:
    """Flows are named "railchat <rail words> <stage>", e.g. "railchat url allowlist output"."""
    words = flow_name.split()
    return "_".join(words[1:-1]) if len(words) > 2 and words[0] == "railchat" else flow_name


@dataclass(frozen=True)
class GuardSettings:
    url_allowlist: tuple[str, ...]
    allow_http: bool
    moderation: ModerationConfig
    model_moderation: ModelModerationConfig
    chunk_chars: int = 160  # release at least at this size (cut at whitespace) when no sentence ends
    max_hold_ms: int = 150  # or once text has waited this long

    @classmethod
    def from_custom_data(cls, data: Mapping[str, Any], url_allowlist: Sequence[str] | None) -> GuardSettings:
        return cls(
            url_allowlist=tuple(
                url_allowlist if url_allowlist is not None else data.get("url_allowlist", ())
            ),
            allow_http=bool(data.get("allow_http", False)),
            moderation=ModerationConfig.from_mapping(data.get("moderation")),
            model_moderation=ModelModerationConfig.from_mapping(data.get("model_moderation")),
            chunk_chars=int(data.get("stream_chunk_chars", 160)),
            max_hold_ms=int(data.get("stream_max_hold_ms", 150)),
        )


class Guard:
    def __init__(self, rails: LLMRails, checks: RailChecks, settings: GuardSettings) -> None:
        self._rails = rails
        self.checks = checks
        self.settings = settings
        self.url_policy = checks.url_policy
        self.input_flows: list[str] = list(rails.config.rails.input.flows)
        self.output_flows: list[str] = list(rails.config.rails.output.flows)

    @classmethod
    def from_dir(
        cls,
        rails_dir: Path,
        url_allowlist: Sequence[str] | None = None,
        *,
        model_transport: Any = None,  # an httpx transport, for tests of the model rail
    ) -> Guard:
        config = RailsConfig.from_path(str(rails_dir))
        settings = GuardSettings.from_custom_data(config.custom_data or {}, url_allowlist)
        if not settings.model_moderation.enabled:
            _drop_flows(config, "model_moderation")
        model = (
            ModelModerator(settings.model_moderation, model_transport)
            if settings.model_moderation.enabled
            else None
        )
        checks = RailChecks(
            UrlPolicy(settings.url_allowlist, allow_http=settings.allow_http),
            Moderator(settings.moderation),
            model,
        )
        rails = LLMRails(config)  # no llm: nothing in our flows asks for one
        rails.register_action_param("railchat_checks", checks)
        return cls(rails, checks, settings)

    async def check_input(self, text: str, image_urls: Sequence[str] = ()) -> list[RailOutcome]:
        """One outcome per rail that ran; NeMo stops at the first block, which is what the chatter sees."""
        messages: list[dict[str, Any]] = [
            {"role": "context", "content": {"image_urls": list(image_urls)}},
            {"role": "user", "content": text},
        ]
        return await self._run("input", messages, self.input_flows)

    async def check_output(self, answer: str, reasoning: str = "", user_text: str = "") -> list[RailOutcome]:
        """The whole-answer check through NeMo (OutputFilter.flush calls this)."""
        messages: list[dict[str, Any]] = [
            {"role": "context", "content": {"bot_reasoning": reasoning}},
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": answer},
        ]
        return await self._run("output", messages, self.output_flows)

    @property
    def needs_whole_answer(self) -> bool:
        """True when a rail must see the complete answer (the model-based moderator), not only chunks."""
        return self.checks.model_moderator is not None

    def output_filter(self, user_text: str = "") -> OutputFilter:
        """A new stateful filter for one answer; ``user_text`` gives the model rail its context."""
        return OutputFilter(self, user_text)

    async def aclose(self) -> None:
        if self.checks.model_moderator is not None:
            await self.checks.model_moderator.aclose()

    async def _run(
        self, stage: Stage, messages: list[dict[str, Any]], flows: Sequence[str]
    ) -> list[RailOutcome]:
        if not flows:
            return []
        start = time.perf_counter()
        try:
            response = await self._rails.generate_async(
                messages=messages, options={"rails": [stage], "log": {"activated_rails": True}}
            )
            outcomes = _outcomes_of(response)
        except Exception:
            outcomes = []
        if not any(o.blocked for o in outcomes) and len(outcomes) < len(flows):
            outcomes.append(
                RailOutcome(stage, "guard_error", "block", "the safety check failed", _elapsed_ms(start))
            )
        return outcomes


def _outcomes_of(response: Any) -> list[RailOutcome]:
    return [
        action.return_value
        for rail in response.log.activated_rails
        for action in rail.executed_actions
        if isinstance(action.return_value, RailOutcome)
    ]


def _drop_flows(config: RailsConfig, rail: RailName) -> None:
    for rails in (config.rails.input, config.rails.output):
        rails.flows = [f for f in rails.flows if rail_of_flow(f) != rail]
