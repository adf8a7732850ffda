"""The rail functions, registered by name.

A flow in ``rails/config.yml`` is named "railchat <rail words> <stage>" and runs the action of that rail;
the name is how the app knows which rails may run on every streamed chunk (cheap, synchronous) and which
only on a whole answer (a model call). A flow naming a rail that is not registered here is refused when
the rails are loaded: running some other rail in its place would pass text its author meant to stop.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

from webapp.guard.moderation import ModelModerator, Moderator
from webapp.guard.rendered import rendered_urls
from webapp.guard.urlpolicy import UrlPolicy, find_urls
from webapp.guard.verdicts import RailName, RailOutcome, Stage

RailKind = Literal["per_chunk", "whole_answer"]

# Every rail a flow may name, and where it can run. "per_chunk" rails also see the whole answer.
REGISTERED_RAILS: dict[RailName, RailKind] = {
    "url_allowlist": "per_chunk",
    "moderation": "per_chunk",
    "model_moderation": "whole_answer",
}


class UnknownRail(ValueError):
    """The rails config names a rail the app does not have: a start-up error, never a silent substitute."""


def rail_of_flow(flow_name: str) -> RailName:
    """Flows are named "railchat <rail words> <stage>", e.g. "railchat url allowlist output"."""
    words = flow_name.split()
    return "_".join(words[1:-1]) if len(words) > 2 and words[0] == "railchat" else flow_name


def registered_rail(flow_name: str) -> RailName:
    rail = rail_of_flow(flow_name)
    if rail not in REGISTERED_RAILS:
        known = ", ".join(sorted(REGISTERED_RAILS))
        raise UnknownRail(
            f"the rails config names flow {flow_name!r}: no rail {rail!r} is registered ({known})"
        )
    return rail


def _elapsed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


class RailChecks:
    """The rail functions. NeMo actions (rails/actions.py) and the streaming checks both call these."""

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
        # model output is judged as a renderer would show it; input as text (it is never rendered as HTML)
        finder = rendered_urls if stage == "output" else find_urls
        urls = [u for text in texts if text for u in finder(text)] + list(image_urls)
        reason = self.url_policy.first_violation(urls)
        if reason is None:
            return RailOutcome(
                stage, "url_allowlist", "allow", "all links are on the allowlist", _elapsed_ms(start)
            )
        return RailOutcome(stage, "url_allowlist", "block", reason, _elapsed_ms(start))

    def moderation(self, stage: Stage, texts: Sequence[str], *, partial: bool = False) -> RailOutcome:
        """``partial``: a streamed answer that is still growing (see ``Moderator.check``)."""
        start = time.perf_counter()
        for text in texts:
            finding = self.moderator.check(text, stage, partial=partial) if text else None
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
