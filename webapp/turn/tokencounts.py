"""What the context builder knows of token counts without asking the tokenizer: counts it was told before (a
process-wide cache), and an upper bound of a message's tokens, so a turn that surely fits skips `/tokenize`.

Counting a new message exactly is a round trip to the model server every turn (6% of the app's CPU at 16
streams, and a few milliseconds before the first word). Most turns are nowhere near the context limit, and for
them a bound proves the fit: the exact count is only needed near the limit, where the oldest turns must go.

Why the bound holds: the tokenizers chat models ship (byte-level BPE: GPT-2, Llama 3, Qwen, Kimi, SmolLM2;
SentencePiece with byte fallback: Llama 2, Mistral, Gemma) give every token at least one byte of the text, so a
text has at most as many tokens as UTF-8 bytes, plus one for SentencePiece's leading word marker. A tokenizer
that normalises first (NFKC) may lengthen text (one ligature becomes several letters), so the longer of the
two spellings counts. The chat template's own tokens around a message are measured, not guessed: the
builder's probe message costs its template markup plus at least one token of its two-letter text, and each
message gets that plus a slack for role names of other lengths. Messages a template renders in its own way
(tool calls and tool results) are not bounded: they are always counted.
"""

from __future__ import annotations

import unicodedata
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

BOUNDED_ROLES = frozenset({"system", "user", "assistant"})
TEMPLATE_SLACK = 8  # tokens a role's markup may take beyond the probe's (a longer role name, a separator)
PER_PART = 2  # a leading word marker, and a separator where a template joins text parts


class TokenCache:
    """A bounded LRU of per-message token counts, shared by all builders of the process."""

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, int] = OrderedDict()

    def get(self, key: Hashable) -> int | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: Hashable, value: int) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


SHARED_CACHE = TokenCache()


def text_tokens_at_most(form: dict[str, Any]) -> int | None:
    """At most how many tokens the text of a chat message (its text form: no images) takes, without the
    template's markup; None where no bound is claimed."""
    if form.get("role") not in BOUNDED_ROLES or form.get("tool_calls") or "tool_call_id" in form:
        return None
    content = form.get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list) and all(p.get("type") == "text" for p in content):
        texts = [str(p.get("text", "")) for p in content]
    else:
        return None
    return sum(_bytes_at_most(text) + PER_PART for text in texts)


def _bytes_at_most(text: str) -> int:
    raw = len(text.encode("utf-8"))
    if text.isascii():
        return raw  # NFKC leaves ASCII as it is
    return max(raw, len(unicodedata.normalize("NFKC", text).encode("utf-8")))


def bounds_if_they_fit(forms: list[dict[str, Any]], room: int, markup: int) -> list[int] | None:
    """Each message's bound (its text's, plus `markup` for the template around it) if every one has a bound
    and together they fit in `room` tokens; else None (count them)."""
    bounds = []
    for form in forms:
        text = text_tokens_at_most(form)
        if text is None:
            return None
        bounds.append(text + markup)
    return bounds if sum(bounds) <= room else None
