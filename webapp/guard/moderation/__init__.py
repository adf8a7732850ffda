"""Content moderation that needs no model hub, in tiers from cheap to costly.

1. Category rules (``rails/config.yml``): readable regular expressions over shared word lists, run on
   normalised text unit by unit, aware of negation and counter-speech (``patterns.py``, ``text.py``).
2. Profanity: alt-profanity-check, a linear model shipped in its wheel (``profanity.py``).
3. Semantic: a small classifier over all-MiniLM-L6-v2 sentence embeddings, the model taken from PyPI
   wheels, fitted at start from labelled examples; gated and cached so a streamed answer stays cheap
   (``semantic.py``, ``embedder.py``).
An optional guard model served by vLLM (Llama Guard 3, Qwen3Guard) is a separate rail (``guardmodel.py``).

One module, one job: the settings (``config.py``), the tiers run over a text (``moderator.py``), the
speller's word lists gathered at start (``vocabulary.py``); this package only names what the rest of the
app uses.
"""

from __future__ import annotations

from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.findings import ModerationFinding
from webapp.guard.moderation.guardmodel import (
    LLAMA_GUARD_CATEGORIES,
    ModelModerationConfig,
    ModelModerator,
    parse_guard_verdict,
)
from webapp.guard.moderation.moderator import Moderator
from webapp.guard.moderation.patterns import CategoryRule

__all__ = [
    "LLAMA_GUARD_CATEGORIES",
    "CategoryRule",
    "ModelModerationConfig",
    "ModelModerator",
    "ModerationConfig",
    "ModerationFinding",
    "Moderator",
    "parse_guard_verdict",
]
