"""The rails as NeMo Guardrails configures them (``rails/``): the adapter the pipeline calls.

NeMo is used only as a rail runner: no main model, no dialog rails, no embeddings. The flows in
``rails/config.yml`` and ``rails.co`` name the rails and their order; the actions in ``rails/actions.py``
call ``RailChecks``. Flows that are plain action calls (all of railchat's) run their registered actions
directly in config order (``webapp.guard.flows``: same verdicts, without the Colang runtime's ~4 ms per
turn); any other flow makes its stage run through ``LLMRails.generate_async`` as configured. Streamed
chunks run the cheap rails straight from ``RailChecks``.
"""

from __future__ import annotations

import os

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")  # must be set before nemoguardrails is imported

import logging
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemoguardrails import LLMRails, RailsConfig

from webapp.guard.checkpacer import CheckPacer
from webapp.guard.checks import REGISTERED_RAILS, RailChecks, rail_of_flow, registered_rail
from webapp.guard.flows import ActionFlow, ActionRunner, plain_flows
from webapp.guard.moderation import ModelModerationConfig, ModelModerator, ModerationConfig, Moderator
from webapp.guard.offload import Offload
from webapp.guard.outputfilter import OutputFilter
from webapp.guard.urlpolicy import UrlPolicy
from webapp.guard.verdicts import RailName, RailOutcome, Stage
from webapp.guard.yamlfile import load_yaml

log = logging.getLogger(__name__)


def _elapsed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


@dataclass(frozen=True)
class GuardSettings:
    url_allowlist: tuple[str, ...]
    allow_http: bool
    moderation: ModerationConfig
    model_moderation: ModelModerationConfig
    hold_chars: int = 1000  # an unfinished link/tag longer than this is released escaped
    min_check_ms: int = 100  # after the first words, streamed checks run at most this often
    checks_per_s: float = 300  # and all answers in flight together at most about this often (CheckPacer)

    @classmethod
    def from_custom_data(
        cls, data: Mapping[str, Any], url_allowlist: Sequence[str] | None, *, rails_dir: Path | None = None
    ) -> GuardSettings:
        return cls(
            url_allowlist=tuple(
                url_allowlist if url_allowlist is not None else data.get("url_allowlist", ())
            ),
            allow_http=bool(data.get("allow_http", False)),
            moderation=ModerationConfig.from_mapping(data.get("moderation"), rails_dir=rails_dir),
            model_moderation=ModelModerationConfig.from_mapping(data.get("model_moderation")),
            hold_chars=int(data.get("stream_hold_chars", 1000)),
            min_check_ms=int(data.get("stream_min_check_ms", 100)),
            checks_per_s=float(data.get("stream_checks_per_s", 300)),
        )


class Guard:
    """Implements ``webapp.guard.interface.Rails`` over a loaded NeMo Guardrails config.

    ``checks``, ``settings`` and the flow lists are public for tests and diagnostics; the pipeline and the
    output filter use only the ``Rails`` methods.
    """

    def __init__(
        self, rails: LLMRails, checks: RailChecks, settings: GuardSettings, *, nemo_runtime: bool = False
    ) -> None:
        self._rails = rails
        self.checks = checks
        self.settings = settings
        self.url_policy = checks.url_policy
        self.input_flows: list[str] = list(rails.config.rails.input.flows)
        self.output_flows: list[str] = list(rails.config.rails.output.flows)
        for flow in self.input_flows + self.output_flows:
            registered_rail(flow)  # an unknown rail is a start-up error
        self._chunk_rails: list[RailName] = [
            r for r in map(rail_of_flow, self.output_flows) if REGISTERED_RAILS[r] == "per_chunk"
        ]
        self._needs_whole_answer = any(
            REGISTERED_RAILS[rail_of_flow(f)] == "whole_answer" for f in self.output_flows
        )
        # None: the stage runs through NeMo's Colang runtime (a flow that is not a plain action call, or
        # ``nemo_runtime``: the reference the direct runner is tested and benchmarked against).
        stages: dict[Stage, list[str]] = {"input": self.input_flows, "output": self.output_flows}
        self._plain: dict[Stage, list[ActionFlow] | None] = {
            stage: None if nemo_runtime else plain_flows(flows, rails.config.flows, stage)
            for stage, flows in stages.items()
        }
        dispatcher = rails.runtime.action_dispatcher
        self._runner = ActionRunner(dispatcher.registered_actions, rails.runtime.registered_action_params)
        self._offload = Offload(name="rails")  # a check that ends a sentence may embed it: off the loop
        self._pacer = CheckPacer(settings.checks_per_s)  # shared by every answer this guard filters
        for flows in self._plain.values():
            self._runner.check(flows or [])

    @classmethod
    def from_dir(
        cls,
        rails_dir: Path,
        url_allowlist: Sequence[str] | None = None,
        *,
        model_transport: Any = None,  # an httpx transport, for tests of the model rail
        nemo_runtime: bool = False,
        cache_dir: Path | None = None,  # the moderation examples' embeddings are kept here between starts
    ) -> Guard:
        load_yaml(rails_dir / "config.yml")  # NeMo's loader keeps the last of a key written twice: refuse it
        config = RailsConfig.from_path(str(rails_dir))
        settings = GuardSettings.from_custom_data(
            config.custom_data or {}, url_allowlist, rails_dir=rails_dir
        )
        if not settings.model_moderation.enabled:
            _drop_flows(config, "model_moderation")
        model = (
            ModelModerator(settings.model_moderation, model_transport)
            if settings.model_moderation.enabled
            else None
        )
        checks = RailChecks(
            UrlPolicy(settings.url_allowlist, allow_http=settings.allow_http),
            Moderator(settings.moderation, rails_dir=rails_dir, cache_dir=cache_dir),
            model,
        )
        rails = LLMRails(config)  # no llm: nothing in our flows asks for one
        rails.register_action_param("railchat_checks", checks)
        return cls(rails, checks, settings, nemo_runtime=nemo_runtime)

    # -- the Rails interface ------------------------------------------------------------------------------

    async def check_input(self, text: str, image_urls: Sequence[str] = ()) -> list[RailOutcome]:
        variables = {"user_message": text, "image_urls": list(image_urls)}
        return await self._run("input", variables, self.input_flows)

    async def check_output(self, answer: str, reasoning: str = "", user_text: str = "") -> list[RailOutcome]:
        variables = {"user_message": user_text, "bot_message": answer, "bot_reasoning": reasoning}
        return await self._run("output", variables, self.output_flows)

    @property
    def needs_whole_answer(self) -> bool:
        return self._needs_whole_answer

    def allows_url(self, url: str) -> bool:
        return self.url_policy.allows(url)

    def output_filter(self, user_text: str = "") -> OutputFilter:
        """A filter for one streamed answer, with the configured per-chunk rails and the whole-answer ones."""

        async def check_whole(answer: str, reasoning: str) -> list[RailOutcome]:
            return await self.check_output(answer, reasoning, user_text)

        def moderate(text: str) -> RailOutcome:
            # the filter asks again as words arrive: the sentence at the end may be unfinished, so only the
            # rules judge it word by word; the semantic tier embeds each sentence once it ends
            return self.checks.moderation("output", [text], partial=True)

        def moderate_end(text: str) -> RailOutcome:
            # the answer's last piece: its sentence will not grow, every tier judges it whole
            return self.checks.moderation("output", [text])

        moderation = "moderation" in self._chunk_rails
        return OutputFilter(
            url_policy=self.url_policy if "url_allowlist" in self._chunk_rails else None,
            moderate=moderate if moderation else None,
            moderate_end=moderate_end if moderation else None,
            check_whole=check_whole if self._needs_whole_answer else None,
            may_be_reported=self.checks.moderator.may_be_reported if moderation else None,
            hold_limit=self.settings.hold_chars,
            min_check_interval_s=self.settings.min_check_ms / 1000,
            offload=self._offload.check_embedding_elsewhere,
            pacer=self._pacer,
        )

    async def aclose(self) -> None:
        self._offload.close()
        if self.checks.model_moderator is not None:
            await self.checks.model_moderator.aclose()

    # -- running a stage -----------------------------------------------------------------------------------

    async def _run(self, stage: Stage, variables: dict[str, Any], flows: Sequence[str]) -> list[RailOutcome]:
        """Fails closed: a rail that raised or gave no verdict ends the stage with a ``guard_error`` block,
        logged for operators by exception type and place (the message may quote the user's text)."""
        if not flows:
            return []
        start = time.perf_counter()
        plain = self._plain[stage]
        raised = False
        try:
            if plain is not None:
                outcomes = await self._runner.run(plain, variables)
            else:
                outcomes = await self._run_nemo(stage, variables)
        except Exception as exc:
            _log_failure(stage, exc)
            outcomes, raised = [], True
        if any(o.blocked for o in outcomes) or len(outcomes) >= len(flows):
            return outcomes
        if not raised:  # an action returned something other than a verdict, or NeMo skipped one
            log.error("the %s rails gave %d verdicts for %d flows", stage, len(outcomes), len(flows))
        failure = RailOutcome(stage, "guard_error", "block", "the safety check failed", _elapsed_ms(start))
        return [*outcomes, failure]

    async def _run_nemo(self, stage: Stage, variables: Mapping[str, Any]) -> list[RailOutcome]:
        response = await self._rails.generate_async(
            messages=nemo_messages(stage, variables),
            options={"rails": [stage], "log": {"activated_rails": True}},
        )
        return [
            action.return_value
            for rail in response.log.activated_rails
            for action in rail.executed_actions
            if isinstance(action.return_value, RailOutcome)
        ]


def nemo_messages(stage: Stage, variables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The turn's variables as the message list NeMo computes the same variables from."""
    if stage == "input":
        return [
            {"role": "context", "content": {"image_urls": variables["image_urls"]}},
            {"role": "user", "content": variables["user_message"]},
        ]
    return [
        {"role": "context", "content": {"bot_reasoning": variables["bot_reasoning"]}},
        {"role": "user", "content": variables["user_message"]},
        {"role": "assistant", "content": variables["bot_message"]},
    ]


def _log_failure(stage: Stage, exc: BaseException) -> None:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    log.error("the %s rails failed (%s at %s); the turn is refused", stage, type(exc).__name__, where)


def _drop_flows(config: RailsConfig, rail: RailName) -> None:
    for rails in (config.rails.input, config.rails.output):
        rails.flows = [f for f in rails.flows if rail_of_flow(f) != rail]
