"""The app's default moderation, fitted once for every test module that judges text with it.

Fitting reads the examples, embeds them (or their cached vectors) and fits the classifier: seconds each time,
and the result is the same for every module, so they share one.
"""

from __future__ import annotations

import functools

import yaml

from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import ModerationConfig, Moderator

MODERATION_CONFIG = yaml.safe_load((RAILS_DIR / "config.yml").read_text())["custom_data"]["moderation"]


@functools.cache
def default_moderator() -> Moderator:
    moderator = Moderator(ModerationConfig.from_mapping(MODERATION_CONFIG), rails_dir=RAILS_DIR)
    moderator.wait_ready(300)
    return moderator
