"""Output rails over a streamed answer: each word is shown as soon as it passed with its context.

A chatter sees only text that passed. What is held back, and why (``holds``): the word still arriving
(it may be the start of a URL) and an unfinished link, tag or reference definition (a renderer could still
make it fetch something); everything before them is checked and released at once, so the first words show
while the model is still writing. A construct that never closes is released escaped.

Each release is judged with the context a renderer or a reader gives it:

- the URL allowlist judges the piece with the start of the line it continues, as a renderer would see it
  (``rendered``: CommonMark, HTML, CSS, linkification). Constructs are never released half-open, so that
  window holds everything the piece can complete. A piece without a character any link needs (most words)
  skips the parse: that keeps the per-delta cost to a regex search;
- moderation judges the piece with the sentence before it and the current sentence so far, so a sentence
  of abuse streamed word by word is blocked at the word that makes it abusive, before that word is shown.
  It is given that sentence, never the whole answer, and the moderator remembers the verdicts of sentences
  it has judged: per word only the new words cost much. A piece that ends a sentence is judged with the
  sentences before it too (``RECENT_CONTEXT``): what a sentence means can depend on earlier ones ("Saying
  X are vermin is wrong? No. It is the truth.", "... I disagree. They are terrorists."), and a sentence
  end is rare enough to afford it. While a sentence is unfinished only the cheap tiers
  judge it (rules, profanity); the costly one (an embedding) judges it once it ends, and the stream's last
  piece goes to ``moderate_end`` (every tier: its sentence will not grow);
- a sentence moderation blocks when it ends, and that may be reporting someone else's words (a quote, "he
  said ..."), waits for the next two sentences and is judged again with them: counter-speech often condemns
  a quote in a sentence after it ('"X are vermin." Nobody should have to read that.', or one later still,
  after a sentence of context), and a finished answer is read the same way (a unit with the sentence before
  it and the two after it). Nothing of it is shown while it waits; if those sentences have not ended within
  ``REPORT_HOLD`` characters, or they do not excuse the quote, or the stream ends, the answer is blocked;
- at the end, rails that must see the whole answer (a safety model) judge it through NeMo.

The filter holds no rail runner: it takes the checks it needs (``url_policy``, ``moderate``,
``check_whole``), so the pipeline decides which rails are configured.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from webapp.guard.checkpacer import CheckPacer
from webapp.guard.holds import Fence, escape_openings, mask_code, unfinished_start, word_end
from webapp.guard.rendered import html_urls, rendered_urls
from webapp.guard.urlpolicy import UrlPolicy, absolute_target
from webapp.guard.verdicts import RailOutcome

Channel = Literal["answer", "reasoning"]
CHANNELS: tuple[Channel, ...] = ("answer", "reasoning")

HOLD_LIMIT = 1000  # characters an unfinished construct may hold back before it is released escaped
LINE_CONTEXT = 400  # released characters of the current line a piece is judged with, at most
SENTENCE_CONTEXT = 400  # released characters moderation sees before a piece, at most
SHORT_SENTENCE = 40  # a sentence shorter than this so far is judged with the one before it
REPORT_HOLD = 400  # characters a blocked, possibly reported sentence waits for the next sentences to end
REPORT_SENTENCES = 2  # sentences it waits for: as many as a finished answer's reading sees after a unit
RECENT_CONTEXT = 1200  # released characters (whole sentences) a sentence's last piece is judged with
RECENT_SENTENCES = 12  # sentence starts remembered for that
FENCE_CONTEXT = 2000  # released characters of an open code block whose HTML a piece is judged with

# Characters without which a piece holds no link, image, tag, entity or linkifiable name.
_LINK_SIGNS = re.compile(r"[<>\[\]()&@:/\\=`%]|[^\s.]\.[^\s.]|[\u3002\uff0e\uff61]")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f][\"')\]*_]*\s+|\n\s*")
# A piece moderation must read: a word, or any character outside ASCII (letters drawn with symbols, "🅅🄴🅁🄼🄸🄽",
# are no \w but read as words).
_WORD = re.compile(r"\w|[^\x00-\x7f]")
_ENDS_SENTENCE = re.compile(r"(?:[.!?\u3002\uff01\uff1f][\"')\]*_]*\s+|\n\s*)\Z")


def sentence_end(text: str) -> int:
    """Where the last complete sentence of ``text`` ends; 0 if none ends in it."""
    end = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
    return end


def first_sentence_end(text: str) -> int:
    """Where the first complete sentence of ``text`` ends; 0 if none ends in it."""
    match = _SENTENCE_END.search(text)
    return match.end() if match else 0


def sentences_ended(text: str, start: int) -> int:
    """How many sentences end in ``text`` after ``start``."""
    return sum(1 for _ in _SENTENCE_END.finditer(text, start))


def _ends_sentence(text: str) -> bool:
    return _ENDS_SENTENCE.search(text) is not None


Moderate = Callable[[str], RailOutcome]
MayBeReported = Callable[[str], bool]
CheckWhole = Callable[[str, str], Awaitable[list[RailOutcome]]]
# Runs a check with its costly part elsewhere and gives its verdict
# (``webapp.guard.offload.Offload.check_embedding_elsewhere``).
Offload = Callable[[Moderate, str], Awaitable[RailOutcome]]


@dataclass
class FilterStep:
    released: dict[Channel, str] = field(default_factory=dict)  # passed text, append-only per channel
    events: list[RailOutcome] = field(default_factory=list)  # verdicts: a block, or the summary at the end
    block: RailOutcome | None = None  # the answer must stop: cancel upstream, retract, show refusal


@dataclass
class _Stream:
    """One channel: what was shown, what waits, and the context the next piece is judged with."""

    released: str = ""
    pending: str = ""
    fence: Fence = field(default_factory=Fence)  # at the start of the released text's last line
    fence_start: int = 0  # where the open fenced block began (its text is released without holds)
    line_start: int = 0  # where the released text's last line begins
    sentence_start: int = 0  # where the current sentence begins
    previous_sentence_start: int = 0
    # Moderation flagged the sentence so far: words wait until the sentence ends and is judged whole
    # ("What the hell," scores as abuse, "What the hell, that bug again?" does not).
    doubtful: bool = False
    # Moderation blocked a sentence that may report someone else's words: this much of ``pending`` waits for
    # the next sentence, which may condemn it, and is judged again with it (0: nothing waits).
    awaiting: int = 0
    sentence_starts: list[int] = field(default_factory=lambda: [0])  # the last few, oldest first

    def line_context(self) -> str:
        return self.released[max(self.line_start, len(self.released) - LINE_CONTEXT) :]

    def fence_context(self) -> str:
        """The open fenced block so far: inside it tags are not held, so one may span released lines."""
        return self.released[max(self.fence_start, len(self.released) - FENCE_CONTEXT) :]

    def sentence_context(self) -> str:
        """The current sentence so far; while it is short, with the sentence before it ("Women. They
        should..."). Moderation judges sentence by sentence, and its cost grows with the text it is given."""
        start = self.sentence_start if len(self.released) - self.sentence_start >= SHORT_SENTENCE else 0
        start = max(start, self.previous_sentence_start)
        return self.released[max(start, len(self.released) - SENTENCE_CONTEXT) :]

    def recent_context(self) -> str:
        """The sentences released before the current one, as many as fit ``RECENT_CONTEXT``, and it."""
        floor = len(self.released) - RECENT_CONTEXT
        start = next((s for s in self.sentence_starts if s >= floor), self.sentence_start)
        return self.released[min(start, self.sentence_start) :]

    def fence_opener(self, context: str) -> str:
        """The open fenced block's marker line when ``context`` (a suffix of the released text) starts inside
        the block: moderation then reads its lines as code, as a renderer shows them (``ps aux | grep x``)."""
        inside = self.fence.marker and len(self.released) - len(context) > self.fence_start
        return self.fence.marker + "\n" if inside else ""

    def release(self, piece: str, consumed: int) -> None:
        before = len(self.released)
        self.released += piece
        self.pending = self.pending[consumed:]
        last_newline = self.released.rfind("\n", before)
        if last_newline != -1:
            was_open = bool(self.fence.marker)
            self.fence = self.fence.after(self.released[self.line_start : last_newline])
            if self.fence.marker and not was_open:
                self.fence_start = self.line_start
            self.line_start = last_newline + 1
        for end in _SENTENCE_END.finditer(self.released, max(before - 8, self.sentence_start)):
            if end.end() > self.sentence_start:
                self.previous_sentence_start, self.sentence_start = self.sentence_start, end.end()
                self.sentence_starts.append(end.end())
        del self.sentence_starts[:-RECENT_SENTENCES]


@dataclass
class _Tally:
    """Allow verdicts are summed per rail, not kept per piece: one line per rail in the audit trail."""

    checks: int = 0
    ms: float = 0.0


class OutputFilter:
    def __init__(
        self,
        *,
        url_policy: UrlPolicy | None,
        moderate: Moderate | None,
        moderate_end: Moderate | None = None,
        check_whole: CheckWhole | None = None,
        may_be_reported: MayBeReported | None = None,
        hold_limit: int = HOLD_LIMIT,
        min_check_interval_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        offload: Offload | None = None,
        pacer: CheckPacer | None = None,
    ) -> None:
        """``offload``: how the checks of a piece that ends a sentence run (they may embed it, milliseconds
        the event loop would otherwise spend away from every other stream, so the embedding goes elsewhere);
        None: in line. Either way the piece is released only after its verdict."""
        self._url_policy = url_policy
        self._moderate = moderate
        # The stream's last piece ends its sentence for good: judged by this one (the full check) if given.
        self._moderate_end = moderate_end or moderate
        self._check_whole = check_whole
        # Whether a blocked sentence may be reporting someone else's words (then it waits for the next one).
        self._may_be_reported = may_be_reported
        self._hold_limit = hold_limit
        # Once the first words are shown, checks run at most this often: a check costs about the same for
        # one word as for three, and a fast model sends a word every few ms. 0: every word.
        self._min_check_interval_s = min_check_interval_s
        self._clock = clock
        self._offload = offload
        self._pacer = pacer
        if pacer is not None:
            pacer.join(self)
        self._last_check = float("-inf")
        self._streams: dict[Channel, _Stream] = {c: _Stream() for c in CHANNELS}
        self._tallies: dict[str, _Tally] = {}
        self._block: RailOutcome | None = None

    async def feed(self, channel: Channel, text: str) -> FilterStep:
        if self._block is not None:
            return FilterStep(block=self._block)
        stream = self._streams[channel]
        stream.pending += text
        now = self._clock()
        if stream.released and now - self._last_check < self._interval_s():
            return FilterStep()  # the next delta brings more words to judge in the same check
        released = ""
        while True:  # sentence by sentence, as if each had come in a check of its own
            piece, consumed = self._next_piece(stream, final=False)
            if piece:
                self._last_check = now
            step = await self._judge_and_release(channel, piece, consumed)
            if step.released:
                released += step.released[channel]
            if step.block is not None or not step.released or not consumed or not stream.pending:
                return FilterStep({channel: released} if released else {}, step.events, step.block)

    def _interval_s(self) -> float:
        floor = self._min_check_interval_s
        return floor if self._pacer is None else self._pacer.interval_s(floor)

    async def flush(self) -> FilterStep:
        """End of stream: release what waited (unfinished constructs escaped), then the whole-answer rails."""
        if self._pacer is not None:
            self._pacer.leave(self)
        if self._block is not None:
            return FilterStep(block=self._block)
        released: dict[Channel, str] = {}
        for channel in CHANNELS:
            piece, consumed = self._next_piece(self._streams[channel], final=True)
            step = await self._judge_and_release(channel, piece, consumed, final=True)
            if step.block is not None:
                return step
            released.update(step.released)
        events = self._summary()
        if self._check_whole is not None and any(s.released for s in self._streams.values()):
            whole = await self._check_whole(
                self._streams["answer"].released, self._streams["reasoning"].released
            )
            events += whole
            self._block = next((o for o in whole if o.blocked), None)
            if self._block is not None:
                return FilterStep(events=events, block=self._block)
        return FilterStep(released=released, events=events)

    def _next_piece(self, stream: _Stream, *, final: bool) -> tuple[str, int]:
        """The text that may be judged now (escaped where a construct is given up) and how much it consumes.

        A piece ends at the first sentence end in it: a sentence is judged as it ends, before the words after
        it, which could excuse it while they are unfinished ('"X are cockroaches," he said. That is a
        disgusting thing to' reads as condemned; "... to print" need not)."""
        pending = stream.pending
        cut = len(pending) if final else word_end(pending)
        if stream.doubtful and not final and len(pending) < SENTENCE_CONTEXT:
            cut = sentence_end(pending[:cut])
        if stream.awaiting and not final:
            if sentences_ended(pending[:cut], stream.awaiting) >= REPORT_SENTENCES:
                cut = sentence_end(pending[:cut])
            elif len(pending) - stream.awaiting < REPORT_HOLD:
                return "", 0  # the sentences after it have not ended yet
        elif not final:
            cut = first_sentence_end(pending[:cut]) or cut
        if cut == 0:
            return "", 0
        context = stream.line_context()
        window = context + pending[:cut]
        opening = unfinished_start(mask_code(window, stream.fence), len(context))
        stale_end = len(window) if final else min(len(window), len(context) + len(pending) - self._hold_limit)
        if opening is not None and opening < stale_end:
            # held too long (or the stream ended): what opened there can never complete, show it as text
            head = escape_openings(
                window[:stale_end], mask_code(window[:stale_end], stream.fence), opening, stale_end
            )
            grown = len(head) - stale_end
            window = head + window[stale_end:]
            opening = unfinished_start(mask_code(window, stream.fence), len(head))
            if opening is None:
                return window[len(context) :], cut
            return window[len(context) : opening], opening - len(context) - grown
        if opening is None:
            return window[len(context) :], cut
        return window[len(context) : opening], opening - len(context)

    async def _judge_and_release(
        self, channel: Channel, piece: str, consumed: int, *, final: bool = False
    ) -> FilterStep:
        stream = self._streams[channel]
        if not piece:
            # A stream that ended on a released word ("... They are vermin.\n": answers end in a line break)
            # still has its end judged with the whole channel, as a finished answer is.
            block = (
                await self._check_moderation(stream, "", final=True) if final and stream.released else None
            )
            return self._blocked(block) if block is not None else FilterStep()
        block = self._check_links(stream, piece)
        if block is None:
            block = await self._check_moderation(stream, piece, final=final)
            if block is not None and not final and self._waits(stream, piece, consumed):
                return FilterStep()
        stream.doubtful = False
        stream.awaiting = 0
        if block is not None:
            return self._blocked(block)
        stream.release(piece, consumed)
        return FilterStep(released={channel: piece})

    def _blocked(self, block: RailOutcome) -> FilterStep:
        self._block = block
        return FilterStep(events=[*self._summary(), block], block=block)

    def _waits(self, stream: _Stream, piece: str, consumed: int) -> bool:
        """Whether a piece moderation blocked waits for more text instead of blocking the answer: an
        unfinished sentence until it ends (the rest of it decides), a finished one that may report someone
        else's words until the next two sentences end (they may condemn them). Each waits once."""
        if stream.awaiting:
            return False
        if not _ends_sentence(piece):
            stream.doubtful = len(piece) < SENTENCE_CONTEXT
            return stream.doubtful
        sentence = stream.released[stream.sentence_start :] + piece
        if self._may_be_reported is not None and self._may_be_reported(sentence):
            stream.awaiting = consumed
            return True
        return False

    def _check_links(self, stream: _Stream, piece: str) -> RailOutcome | None:
        if self._url_policy is None or not _LINK_SIGNS.search(piece):
            return None
        start = time.perf_counter()
        urls = rendered_urls(stream.line_context() + piece, code_fence=stream.fence.marker)
        if stream.fence.marker:
            # if a renderer does not see this block as code (say, it sits in an HTML block), a tag
            # released line by line is judged whole here
            urls += [u for u in map(absolute_target, html_urls(stream.fence_context() + piece)) if u]
        reason = self._url_policy.first_violation(urls)
        return self._verdict("url_allowlist", reason, start)

    async def _check_moderation(self, stream: _Stream, piece: str, *, final: bool) -> RailOutcome | None:
        moderate = self._moderate_end if final else self._moderate
        # A piece that ends a sentence, or the stream, is judged even without a word ("| Jews | exterminate
        # |" ends on "|"): the sentence it ends was judged only by the cheap tiers while it streamed.
        closes = final or _ends_sentence(piece)
        if moderate is None or not (closes or _WORD.search(piece)):
            return None
        # A sentence ended in this piece (at its end or inside it): the check may embed that sentence, and
        # it is read with the recent sentences, as it would be had the words come one check each (under load
        # a piece holds several words, and "They are vermin." must still see who "they" are).
        embeds = closes or _SENTENCE_END.search(piece) is not None
        # The end of the stream is judged with the whole channel, as a finished answer is: a pronoun there
        # may stand for a group named farther back than the recent context ("They are vermin.").
        context = (
            stream.released if final else stream.recent_context() if embeds else stream.sentence_context()
        )
        text = stream.fence_opener(context) + context + piece
        if not _WORD.search(text):
            return None
        outcome = await self._offload(moderate, text) if embeds and self._offload else moderate(text)
        if outcome.blocked:
            return outcome
        self._tally(outcome.rail, outcome.latency_ms)
        return None

    def _verdict(self, rail: str, reason: str | None, start: float) -> RailOutcome | None:
        elapsed = (time.perf_counter() - start) * 1000
        if reason is not None:
            return RailOutcome("output", rail, "block", reason, elapsed)
        self._tally(rail, elapsed)
        return None

    def _tally(self, rail: str, ms: float) -> None:
        tally = self._tallies.setdefault(rail, _Tally())
        tally.checks += 1
        tally.ms += ms

    def _summary(self) -> list[RailOutcome]:
        return [
            RailOutcome("output", rail, "allow", f"{t.checks} streamed checks passed", t.ms)
            for rail, t in self._tallies.items()
        ]
