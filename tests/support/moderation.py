"""The app's default moderation, fitted once for every test module that judges text with it.

Fitting reads the examples, embeds them (or their cached vectors) and fits the classifier: seconds each time,
and the result is the same for every module, so they share one.
"""

from __future__ import annotations

import functools
import re

from tests.support.paths import RAILS_DIR
from webapp.guard.checkpacer import CheckPacer
from webapp.guard.checks import RailChecks
from webapp.guard.moderation import ModerationConfig, Moderator
from webapp.guard.outputfilter import Channel, OutputFilter
from webapp.guard.yamlfile import load_yaml

MODERATION_CONFIG = load_yaml(RAILS_DIR / "config.yml")["custom_data"]["moderation"]


@functools.cache
def default_moderator() -> Moderator:
    moderator = Moderator(
        ModerationConfig.from_mapping(MODERATION_CONFIG, rails_dir=RAILS_DIR), rails_dir=RAILS_DIR
    )
    moderator.wait_ready(300)
    return moderator


async def streamed_blocked(
    checks: RailChecks, text: str, channel: Channel = "answer", *, chars: int | None = None
) -> bool:
    """Whether the output filter stopped ``text`` streamed word by word on ``channel`` (or in pieces of
    ``chars`` characters, as a tokenizer may cut it), checking as the app does (each growing piece as
    partial, the end in full)."""
    flt = OutputFilter(
        url_policy=None,
        moderate=lambda t: checks.moderation("output", [t], partial=True),
        moderate_end=lambda t: checks.moderation("output", [t]),
        may_be_reported=checks.moderator.may_be_reported,
    )
    pieces = (
        re.findall(r"\S+\s*|\s+", text)
        if chars is None
        else [text[i : i + chars] for i in range(0, len(text), chars)]
    )
    for piece in pieces:
        if (await flt.feed(channel, piece)).block is not None:
            return True
    return (await flt.flush()).block is not None


async def shown_before_block(
    checks: RailChecks,
    text: str,
    channel: Channel = "answer",
    *,
    in_flight: int = 1,
    min_check_ms: float = 0,
    word_ms: float = 20,
) -> str:
    """What the output filter showed of ``text``, streamed word by word (a word every ``word_ms`` on the
    filter's own clock), before it blocked it (all of it if it never did).
    ``min_check_ms`` and ``in_flight`` pace the checks as the app does (``stream_min_check_ms``, and a
    ``CheckPacer`` at 300 checks a second shared with ``in_flight - 1`` other answers)."""
    now = [0.0]
    pacer = CheckPacer(300) if min_check_ms else None
    flt = OutputFilter(
        url_policy=None,
        moderate=lambda t: checks.moderation("output", [t], partial=True),
        moderate_end=lambda t: checks.moderation("output", [t]),
        may_be_reported=checks.moderator.may_be_reported,
        min_check_interval_s=min_check_ms / 1000,
        clock=lambda: now[0],
        pacer=pacer,
    )
    # the other answers in flight: the pacer counts the filters someone holds, so they are held to the end
    others = [OutputFilter(url_policy=None, moderate=None, pacer=pacer) for _ in range(in_flight - 1)]
    shown = ""
    for piece in re.findall(r"\S+\s*|\s+", text):
        now[0] += word_ms / 1000
        step = await flt.feed(channel, piece)
        shown += "".join(step.released.values())  # a step may show a sentence and block the next one
        if step.block is not None:
            return shown
    step = await flt.flush()
    del others
    return shown if step.block is not None else shown + "".join(step.released.values())


async def assert_blocked_whole_and_streamed(checks: RailChecks, text: str) -> None:
    """The output rail blocks ``text`` both as one finished answer and streamed word by word."""
    assert checks.moderator.check(text, "output") is not None, f"passed whole: {text!r}"
    assert await streamed_blocked(checks, text), f"passed streamed: {text!r}"


async def assert_passes_whole_and_streamed(checks: RailChecks, text: str) -> None:
    """The output rail passes ``text`` both as one finished answer and streamed word by word."""
    finding = checks.moderator.check(text, "output")
    assert finding is None, f"blocked whole ({finding}): {text!r}"
    assert not await streamed_blocked(checks, text), f"blocked streamed: {text!r}"
