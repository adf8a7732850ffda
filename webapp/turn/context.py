"""Fit a conversation into the model's context window.

budget = max_model_len - max_tokens - margin. The system prompt and the newest user turn are always sent;
when the rest does not fit, old images go first (replaced by the text "[image omitted]"), oldest first,
then whole old turns, oldest first. Past reasoning is never sent: a ContextMessage has no place for it and
only "text" and "image_url" content parts are accepted.

Token counts come from the tokenizer (vLLM ``POST /tokenize`` with the chat ``messages`` form), one message
at a time, cached, so a turn only tokenizes what is new; with ``upper_bound``, not even that while an upper
bound of the new messages (``tokencounts``) proves they fit (``bounded``: counts are then at most). The sum
of per-message counts equals the count of the whole conversation for chat templates that render each message
on its own (ChatML, Kimi, Qwen, Llama 3): with ``T`` the tokenizer and ``x`` a probe message,

    overhead     = 2*T([x]) - T([x, x])         # BOS, generation prompt, any default system prompt
    cost(m)      = T([m]) - overhead            # the message's own tokens
    total        = T([system]) + sum(cost(m))   # or overhead + sum(cost(m)) without a system prompt

If the probe fails, the overhead is taken as 0, which over-counts (conservative). Image tokens are not
tokenized (that would make vLLM decode every image each turn): each image counts what ``image_cost`` says
for its prepared size (the profile's encoder arithmetic), or ``image_tokens`` (the per-image maximum) when
its size is unknown. Tool calls and tool results are part of a turn: they are counted with their message
and dropped with their turn, never apart from the call they answer. Without a tokenizer, or when it
fails, a message is estimated at ceil(UTF-8 bytes / 3) + 8 tokens, which over-counts ordinary text; such
results have ``exact=False``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from webapp.turn.tokencounts import SHARED_CACHE, TEMPLATE_SLACK, TokenCache, bounds_if_they_fit

log = logging.getLogger(__name__)

Tokenizer = Callable[[list[dict[str, Any]]], Awaitable[int]]
ImageCost = Callable[[int, int], int]  # (width, height) of a prepared image -> prompt tokens

IMAGE_MARKER = "[image omitted]"
CONTEXT_ROLES = frozenset({"system", "user", "assistant", "tool"})
PART_TYPES = frozenset({"text", "image_url"})
_PROBE = {"role": "user", "content": "ok"}
_ESTIMATE_PER_MESSAGE = 8  # role markers and separators of a chat template, generously
_ESTIMATE_OVERHEAD = 16
_TOKENIZE_CONCURRENCY = 8


@dataclass
class ContextMessage:
    """One stored message as the model may see it: OpenAI content, images as image_url parts."""

    message_id: int | None
    role: str
    content: str | list[dict[str, Any]]
    image_sizes: tuple[tuple[int, int], ...] = ()  # (width, height) of each image part, in order, if known
    tool_calls: list[dict[str, Any]] | None = None  # an assistant's calls, in OpenAI's shape
    tool_call_id: str | None = None  # a tool result: the call it answers

    def __post_init__(self) -> None:
        if self.role not in CONTEXT_ROLES:
            raise ValueError(f"unknown role {self.role!r}")
        if isinstance(self.content, list):
            for part in self.content:
                if part.get("type") not in PART_TYPES:
                    # Reasoning and anything else unknown must never reach the model.
                    raise ValueError(f"content part type {part.get('type')!r} cannot be sent to the model")

    @property
    def has_images(self) -> bool:
        return _image_count(self.content) > 0


@dataclass
class ContextResult:
    messages: list[dict[str, Any]]  # OpenAI chat messages to send, system prompt first
    message_ids: list[int]  # stored messages that were sent, in order
    tokens: int
    budget: int
    dropped: int  # history messages not sent
    images_dropped: int  # images not sent (dropped with their message or replaced by a marker)
    exact: bool = True  # False when a fallback estimate was used
    bounded: bool = False  # True when new messages were counted by an upper bound (tokens is then at most)


class ContextTooLong(Exception):
    """The newest message alone does not fit; the text is meant for the user."""

    def __init__(self, needed: int, limit: int, window: int | None = None) -> None:
        self.needed = needed
        self.limit = limit
        # The limit is the model's window less what is kept free for the answer: say so, or the two numbers
        # a chatter sees (window and limit) look like a contradiction.
        reserve = (
            f" (the model's {window:,}-token window less {window - limit:,} kept for the answer)"
            if window
            else ""
        )
        super().__init__(
            f"The newest message alone needs {needed:,} tokens, but the limit is {limit:,} tokens{reserve}. "
            "Shorten it or send fewer images."
        )


@dataclass
class _Entry:
    message: ContextMessage
    images: int
    cost: int
    degraded: bool = False


@dataclass
class _Counter:
    """Counts for one build; remembers whether any count was a guess."""

    exact: bool = True
    bounded: bool = False
    failed: bool = False  # after one failure the rest of the build estimates: a down server fails slowly
    semaphore: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(_TOKENIZE_CONCURRENCY))


class ContextBuilder:
    def __init__(
        self,
        tokenizer: Tokenizer | None,
        *,
        max_model_len: int,
        max_tokens: int,
        margin: int = 64,
        image_tokens: int = 256,
        image_cost: ImageCost | None = None,
        cache: TokenCache | None = None,
        cache_namespace: Hashable | None = None,
        upper_bound: bool = False,
    ) -> None:
        """cache_namespace separates counts of different tokenizers; default: the tokenizer itself (a bound
        method compares equal across accesses, so a builder made per turn still hits the cache).
        upper_bound: new messages that surely fit are not tokenized (see the module's docstring)."""
        self.upper_bound = upper_bound
        self.tokenizer = tokenizer
        self.max_model_len = max_model_len
        self.max_tokens = max_tokens
        self.budget = max_model_len - max_tokens - margin
        if self.budget <= 0:
            raise ValueError(
                f"no room for a prompt: max_model_len {max_model_len}, max_tokens {max_tokens}, "
                f"margin {margin}"
            )
        self.image_tokens = image_tokens
        self.image_cost = image_cost
        self.cache = SHARED_CACHE if cache is None else cache
        self.namespace = cache_namespace if cache_namespace is not None else _namespace_of(tokenizer)

    async def build(self, system_prompt: str | None, history: Sequence[ContextMessage]) -> ContextResult:
        for message in history:
            _check_no_reasoning(message)
        counter = _Counter()
        overhead = await self._overhead(counter)
        system = {"role": "system", "content": system_prompt} if system_prompt else None
        base = overhead if system is None else await self._system_cost(system, counter)
        entries = await self._entries(history, overhead, counter, room=self.budget - base)
        turns = _turns(entries)
        total = base + sum(e.cost for e in entries)
        if total > self.budget:
            newest = base + sum(e.cost for e in turns[-1]) if turns else base
            if newest > self.budget:
                raise ContextTooLong(newest, self.budget, self.max_model_len)
            total = await self._drop_old_images(turns[:-1], total, overhead, counter)
            while total > self.budget:
                total -= sum(e.cost for e in turns.pop(0))
        kept = [e for turn in turns for e in turn]
        messages = ([system] if system else []) + [_openai_message(e) for e in kept]
        kept_ids = {id(e) for e in kept}
        images_dropped = sum(e.images for e in entries if id(e) not in kept_ids or e.degraded)
        return ContextResult(
            messages=messages,
            message_ids=[e.message.message_id for e in kept if e.message.message_id is not None],
            tokens=total,
            budget=self.budget,
            dropped=len(entries) - len(kept),
            images_dropped=images_dropped,
            exact=counter.exact,
            bounded=counter.bounded,
        )

    async def _drop_old_images(
        self, old_turns: list[list[_Entry]], total: int, overhead: int, counter: _Counter
    ) -> int:
        for entry in (e for turn in old_turns for e in turn if e.images):
            if total <= self.budget:
                break
            form = _degraded_form(entry.message)
            key = (self.namespace, "degraded", _message_key(entry.message, form))
            cost = self.cache.get(key)
            if cost is None:
                cost = await self._count(form, key, overhead, counter)
            if cost < entry.cost:
                total += cost - entry.cost
                entry.cost, entry.degraded = cost, True
        return total

    async def _entries(
        self, history: Sequence[ContextMessage], overhead: int, counter: _Counter, room: int
    ) -> list[_Entry]:
        # Cache hits are looked up inline: a task per message would cost more than the whole warm build.
        forms = [_text_form(m) for m in history]
        keys = [(self.namespace, "text", _message_key(m, f)) for m, f in zip(history, forms, strict=False)]
        costs = [self.cache.get(k) for k in keys]
        images = [_image_count(m.content) for m in history]
        image_costs = [self._images_cost(m, n) for m, n in zip(history, images, strict=False)]
        missing = [i for i, cost in enumerate(costs) if cost is None]
        room -= sum(image_costs) + sum(c for c in costs if c is not None)
        bounds = self._bounds([forms[i] for i in missing], room)
        if missing:
            counter.bounded = bounds is not None
            counted = bounds or await asyncio.gather(
                *(self._count(forms[i], keys[i], overhead, counter) for i in missing)
            )
            for i, cost in zip(missing, counted, strict=False):
                costs[i] = cost
        return [
            _Entry(message, n, cast(int, text_cost) + image_cost)
            for message, n, text_cost, image_cost in zip(history, images, costs, image_costs, strict=False)
        ]

    def _bounds(self, forms: list[dict[str, Any]], room: int) -> list[int] | None:
        """Upper bounds of the new messages if they prove the fit (the probe's cost measures the markup)."""
        probe = self.cache.get((self.namespace, "probe")) if self.upper_bound and forms else None
        return None if probe is None else bounds_if_they_fit(forms, room, probe + TEMPLATE_SLACK)

    def _images_cost(self, message: ContextMessage, images: int) -> int:
        sized = message.image_sizes[:images] if self.image_cost is not None else ()
        known = sum(self.image_cost(w, h) for w, h in sized) if self.image_cost is not None else 0
        return known + (images - len(sized)) * self.image_tokens

    async def _system_cost(self, system: dict[str, Any], counter: _Counter) -> int:
        key = (self.namespace, "system", _digest(system))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        value = await self._tokenize([system], counter)
        if value is None:
            return _ESTIMATE_OVERHEAD + _estimate(system)
        self.cache.put(key, value)
        return value

    async def _overhead(self, counter: _Counter) -> int:
        key = (self.namespace, "overhead")
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        one = await self._tokenize([_PROBE], counter)
        if one is None:  # no tokenizer, or it is down: estimate now, probe again next time
            return _ESTIMATE_OVERHEAD
        try:  # some templates refuse two user messages in a row: then subtract nothing, over-count
            overhead = 2 * one - int(await cast(Tokenizer, self.tokenizer)([_PROBE, _PROBE]))
        except Exception:
            overhead = 0
        if not 0 <= overhead <= one:  # a template that does not add up: likewise
            overhead = 0
        self.cache.put(key, overhead)
        self.cache.put((self.namespace, "probe"), one - overhead)  # the template's markup, and a token or two
        return overhead

    async def _count(self, form: dict[str, Any], key: Hashable, overhead: int, counter: _Counter) -> int:
        whole = await self._tokenize([form], counter)
        if whole is None:
            return _estimate(form)
        value = max(whole - overhead, 0)
        self.cache.put(key, value)
        return value

    async def _tokenize(self, messages: list[dict[str, Any]], counter: _Counter) -> int | None:
        if self.tokenizer is None or counter.failed:
            counter.exact = False
            return None
        try:
            async with counter.semaphore:
                if counter.failed:
                    return None
                return int(await self.tokenizer(messages))
        except Exception as exc:  # an unreachable tokenizer must not stop the chat: estimate instead
            log.warning("tokenizer failed, estimating token counts: %s", exc)
            counter.exact, counter.failed = False, True
            return None


def _namespace_of(tokenizer: Tokenizer | None) -> Hashable:
    try:
        hash(tokenizer)
        return tokenizer
    except TypeError:
        return id(tokenizer)


def _check_no_reasoning(message: ContextMessage) -> None:
    if not isinstance(message, ContextMessage) or hasattr(message, "reasoning"):
        raise TypeError("history items must be ContextMessage, which carry no reasoning")
    if isinstance(message.content, list):
        for part in message.content:
            if part.get("type") not in PART_TYPES or "reasoning" in part or "reasoning_content" in part:
                raise ValueError("past reasoning must never be sent to the model")


def _turns(entries: Sequence[_Entry]) -> list[list[_Entry]]:
    """A turn starts at a user message; anything before the first one is a turn of its own."""
    turns: list[list[_Entry]] = []
    for entry in entries:
        if entry.message.role == "user" or not turns:
            turns.append([entry])
        else:
            turns[-1].append(entry)
    return turns


def _image_count(content: str | list[dict[str, Any]]) -> int:
    if isinstance(content, str):
        return 0
    return sum(1 for part in content if part.get("type") == "image_url")


def _text_form(message: ContextMessage) -> dict[str, Any]:
    """The message without its images, for the tokenizer (images are counted by image_cost)."""
    content = message.content
    if isinstance(content, list):
        # An image-only message becomes "" rather than [], which some servers refuse.
        content = [part for part in content if part.get("type") == "text"] or ""
    return _with_tools(message, content)


def _degraded_form(message: ContextMessage) -> dict[str, Any]:
    content = message.content
    if isinstance(content, list):
        content = [
            {"type": "text", "text": IMAGE_MARKER} if part.get("type") == "image_url" else part
            for part in content
        ]
    return _with_tools(message, content)


def _with_tools(message: ContextMessage, content: str | list[dict[str, Any]]) -> dict[str, Any]:
    # Built from role, content and the tool fields only, so nothing else a stored message carries can leak
    # into a request.
    form: dict[str, Any] = {"role": message.role, "content": content}
    if message.tool_calls:
        form["tool_calls"] = message.tool_calls
    if message.tool_call_id is not None:
        form["tool_call_id"] = message.tool_call_id
    return form


def _openai_message(entry: _Entry) -> dict[str, Any]:
    if entry.degraded:
        return _degraded_form(entry.message)
    return _with_tools(entry.message, entry.message.content)


def _message_key(message: ContextMessage, form: dict[str, Any]) -> Hashable:
    if message.message_id is None:
        return _digest(form)
    # Stored messages are immutable once final; the length is a cheap guard against a reused id.
    return (message.message_id, message.role, _text_length(form["content"]))


def _text_length(content: str | list[dict[str, Any]]) -> int:
    if isinstance(content, str):
        return len(content)
    return sum(len(part.get("text", "")) for part in content)


def _digest(form: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(form, sort_keys=True).encode("utf-8")).hexdigest()


def _estimate(form: dict[str, Any]) -> int:
    content = form["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    if form.get("tool_calls"):
        text += json.dumps(form["tool_calls"], ensure_ascii=False)
    return math.ceil(len(text.encode("utf-8")) / 3) + _ESTIMATE_PER_MESSAGE
