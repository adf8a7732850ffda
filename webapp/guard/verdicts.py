"""What a rail decides: one frozen verdict type shared by the rails, the pipeline, the store adapters and metrics.

Kept apart from the rail runner so that code which only reads verdicts (the output filter, metrics, the
NeMo actions in ``rails/``) does not import NeMo Guardrails or the rail runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Stage = Literal["input", "output"]
RailName = str  # "url_allowlist" | "moderation" | "model_moderation" | "guard_error"


@dataclass(frozen=True)
class RailOutcome:
    stage: Stage
    rail: RailName
    decision: Literal["allow", "block"]
    reason: str  # plain words a chatter can read; names the rule, never internals
    latency_ms: float

    @property
    def blocked(self) -> bool:
        return self.decision == "block"


def refusal_message(outcome: RailOutcome) -> str:
    """What the chatter sees instead of an answer."""
    return refusal_for(outcome.reason)


def refusal_for(reason: str) -> str:
    """The refusal wording, also for a stored block reopened later (only its reason is kept)."""
    return f"Sorry, I can't help with that: {reason}."


def summarise_verdicts(outcomes: Sequence[RailOutcome]) -> list[RailOutcome]:
    """One allow verdict per rail and stage (the chunks of a stream, counted and timed together); every block
    verdict as it was. Keeps the audit trail readable and the streaming path free of per-chunk writes."""
    blocks = [o for o in outcomes if o.blocked]
    allowed: dict[tuple[Stage, RailName], list[RailOutcome]] = {}
    for o in outcomes:
        if not o.blocked:
            allowed.setdefault((o.stage, o.rail), []).append(o)
    summaries = [
        group[0]
        if len(group) == 1
        else RailOutcome(
            stage,
            rail,
            "allow",
            f"{len(group)} chunks passed",
            sum(o.latency_ms for o in group),
        )
        for (stage, rail), group in allowed.items()
    ]
    return [*summaries, *blocks]
