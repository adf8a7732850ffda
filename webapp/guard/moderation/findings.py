"""What a moderation tier reports: the rule that fired and the reason the chatter is shown."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModerationFinding:
    rule: str  # "profanity", a category name from config, "model_moderation" or "moderation_error"
    reason: str  # shown to the chatter
