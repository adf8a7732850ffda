"""Output rails over a streamed answer: hold text back until it passed, release it in small chunks.

Text is released at a sentence or line end, or once about ``chunk_chars`` characters wait, always cut
after whitespace so a URL is never split. An unfinished markdown link/image or HTML tag at the end is
held until it closes. Each chunk is checked together with the tail of what was already released, so a
link split across chunks is judged whole. Chunks run the rail actions directly (cheap); ``flush`` checks
the held-back tail, and runs NeMo's output rails over the whole answer when a whole-answer rail is set.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from webapp.guard.verdicts import RailOutcome

if TYPE_CHECKING:
    from webapp.guard.interface import StreamRails

Channel = Literal["answer", "reasoning"]
CHANNELS: tuple[Channel, ...] = ("answer", "reasoning")

# How much already-released text each chunk is re-checked with: constructs split by a cut are seen whole.
CONTEXT_CHARS = 600
# An unclosed "<tag" or "[link" further back than this is taken as plain text ("a < b"), not held forever.
HOLD_LIMIT = 1000

_NATURAL_END = re.compile(r"(?:[.!?:;](?:[\"')\]]*)[ \t]+|\n)")
_TAG_START = re.compile(r"<[A-Za-z!/]|<[a-zA-Z][a-zA-Z0-9+.\-]*:")


@dataclass(frozen=True)
class ReleaseOptions:
    """How long passed text may wait for a better cut (from the rails config)."""

    chunk_chars: int  # release at least at this size (cut at whitespace) when no sentence ends
    max_hold_ms: int  # or once text has waited this long


@dataclass
class FilterStep:
    released: dict[Channel, str] = field(default_factory=dict)  # passed text, append-only per channel
    events: list[RailOutcome] = field(default_factory=list)  # verdicts made in this step (allows too)
    block: RailOutcome | None = None  # the answer must stop: cancel upstream, retract, show refusal


def _open_construct_start(chunk: str) -> int | None:
    """Where an unfinished link/image/tag begins in ``chunk``, if one is still open at its end."""
    starts: list[int] = []
    lt = chunk.rfind("<")
    if lt != -1 and ">" not in chunk[lt:] and _TAG_START.match(chunk, lt):
        starts.append(lt)
    bracket = chunk.rfind("[")
    if bracket != -1:
        tail = chunk[bracket:]
        close = tail.find("]")
        unclosed_target = "](" in tail and ")" not in tail[tail.find("](") :]
        link_may_follow = (
            close != -1 and tail[close + 1 :].strip() == "" and not tail[close + 1 :].startswith("\n")
        )
        if close == -1 or unclosed_target or link_may_follow:
            starts.append(bracket - 1 if bracket > 0 and chunk[bracket - 1] == "!" else bracket)
    starts = [s for s in starts if len(chunk) - s <= HOLD_LIMIT]
    return min(starts) if starts else None


def cut_point(pending: str, chunk_chars: int, overdue: bool = False) -> int:
    """How much of ``pending`` may be checked and released now (0: keep waiting).

    ``overdue``: text has waited longer than the hold time, so any whitespace is a good enough cut.
    """
    ends = [m.end() for m in _NATURAL_END.finditer(pending)]
    cut = ends[-1] if ends else 0
    if cut == 0 and (overdue or len(pending) >= chunk_chars):
        spaces = [m.end() for m in re.finditer(r"\s+", pending)]
        cut = spaces[-1] if spaces else 0
    if cut == 0:
        return 0
    held = _open_construct_start(pending[:cut])
    return cut if held is None else held


def _context(released: str) -> str:
    tail = released[-CONTEXT_CHARS:]
    if len(released) > CONTEXT_CHARS:
        # start on a word boundary: a clipped "kipedia.org" would look like a different host
        space = re.search(r"\s", tail)
        tail = tail[space.end() :] if space else ""
    return tail


class OutputFilter:
    def __init__(self, rails: StreamRails, user_text: str = "", *, options: ReleaseOptions) -> None:
        self._rails = rails
        self._user_text = user_text
        self._chunk_chars = options.chunk_chars
        # A slow model must not leave a chatter staring at nothing: release what passed after this long.
        self._max_hold_s = options.max_hold_ms / 1000
        self._pending_since: dict[Channel, float] = {c: 0.0 for c in CHANNELS}
        self._pending: dict[Channel, str] = {c: "" for c in CHANNELS}
        self._released: dict[Channel, str] = {c: "" for c in CHANNELS}
        self._block: RailOutcome | None = None

    @property
    def blocked(self) -> RailOutcome | None:
        return self._block

    async def feed(self, channel: Channel, text: str) -> FilterStep:
        if self._block is not None:
            return FilterStep(block=self._block)
        now = time.monotonic()
        if not self._pending[channel]:
            self._pending_since[channel] = now
        self._pending[channel] += text
        overdue = now - self._pending_since[channel] >= self._max_hold_s
        cut = cut_point(self._pending[channel], self._chunk_chars, overdue)
        if cut == 0:
            return FilterStep()
        chunk = self._pending[channel][:cut]
        step = self._check(channel, chunk)
        if step.block is None:
            self._release(channel, cut)
            step.released = {channel: chunk}
        return step

    def _check(self, channel: Channel, chunk: str) -> FilterStep:
        """The streaming rails over ``chunk`` plus the tail already released (so split links are seen whole)."""
        window = _context(self._released[channel]) + chunk
        events = self._rails.check_chunk(window)
        block = next((o for o in events if o.blocked), None)
        if block is not None:
            self._block = block
        return FilterStep(events=events, block=block)

    async def flush(self) -> FilterStep:
        """End of stream: check what is still held back, then release it.

        Whole-answer rails (a model-based moderator) run through NeMo over the complete answer and
        reasoning. Without one, the streaming rails have already seen every character, so only the held-back
        tail is checked: running NeMo again over the same text with the same actions would only add latency.
        """
        if self._block is not None:
            return FilterStep(block=self._block)
        if self._rails.needs_whole_answer:
            return await self._flush_whole()
        events: list[RailOutcome] = []
        released: dict[Channel, str] = {}
        for channel in CHANNELS:
            tail = self._pending[channel]
            if not tail:
                continue
            step = self._check(channel, tail)
            events += step.events
            if step.block is not None:
                return FilterStep(events=events, block=step.block)
            released[channel] = tail
            self._release(channel, len(tail))
        return FilterStep(released=released, events=events)

    async def _flush_whole(self) -> FilterStep:
        answer = self._released["answer"] + self._pending["answer"]
        reasoning = self._released["reasoning"] + self._pending["reasoning"]
        if not answer and not reasoning:
            return FilterStep()
        events = await self._rails.check_output(answer, reasoning, self._user_text)
        block = next((o for o in events if o.blocked), None)
        if block is not None:
            self._block = block
            return FilterStep(events=events, block=block)
        released: dict[Channel, str] = {}
        for channel in CHANNELS:
            if self._pending[channel]:
                released[channel] = self._pending[channel]
                self._release(channel, len(self._pending[channel]))
        return FilterStep(released=released, events=events)

    def _release(self, channel: Channel, cut: int) -> None:
        self._released[channel] += self._pending[channel][:cut]
        self._pending[channel] = self._pending[channel][cut:]
        self._pending_since[channel] = time.monotonic()
