"""Counting by an upper bound: a turn that surely fits skips the tokenizer; near the limit, counts are exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.turn.test_context import ChatMLTokenizer, assistant, builder, conversation, user
from webapp.turn.context import ContextBuilder, ContextMessage, TokenCache
from webapp.turn.tokencounts import text_tokens_at_most


def bounded_builder(
    tok: ChatMLTokenizer, max_model_len: int, cache: TokenCache | None = None
) -> ContextBuilder:
    made = builder(tok, max_model_len, cache=cache)
    made.upper_bound = True
    return made


async def test_new_messages_that_surely_fit_are_not_tokenized() -> None:
    tok = ChatMLTokenizer()
    history = conversation(2)
    result = await bounded_builder(tok, 10_000).build("be brief", history)
    tokenized = [m for call in tok.calls for m in call]
    assert {m["content"] for m in tokenized} == {"ok", "be brief"}  # only the probe and the system prompt
    assert result.bounded and result.message_ids == [m.message_id for m in history]
    assert result.tokens >= tok.sent_count(result)  # at most: never less than the truth


async def test_counts_a_tokenizer_gave_before_are_used_as_they_are() -> None:
    tok, cache = ChatMLTokenizer(), TokenCache()
    history = conversation(2)
    exact = await builder(tok, 10_000, cache=cache).build("be brief", history)
    newest = user(99, 5)
    again = await bounded_builder(tok, 10_000, cache=cache).build("be brief", [*history, newest])
    bound = again.tokens - exact.tokens
    probe = 4 + 1  # what the probe message costs: its template markers and its one word
    assert (
        again.bounded
        and bound == text_tokens_at_most({"role": "user", "content": newest.content}) + probe + 8
    )
    assert exact.message_ids + [99] == again.message_ids


async def test_near_the_limit_every_new_message_is_counted_and_trimmed_exactly() -> None:
    history = conversation(6)
    exact_tok, bounded_tok = ChatMLTokenizer(), ChatMLTokenizer()
    budget = exact_tok.true_count([{"role": "system", "content": "be brief"}]) + 60
    exact = await builder(exact_tok, budget + 100).build("be brief", history)
    bounded = await bounded_builder(bounded_tok, budget + 100).build("be brief", history)
    assert exact.dropped > 0 and not bounded.bounded
    assert (bounded.message_ids, bounded.tokens) == (exact.message_ids, exact.tokens)


async def test_tool_calls_and_tool_results_are_always_counted() -> None:
    tok = ChatMLTokenizer()
    call = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    history = [
        user(1, 3),
        ContextMessage(2, "assistant", "", tool_calls=call),
        ContextMessage(3, "tool", "sunny", tool_call_id="c1"),
        assistant(4, 3),
        user(5, 3),
    ]
    result = await bounded_builder(tok, 10_000).build(None, history)
    assert not result.bounded and {"sunny"} <= {m["content"] for call in tok.calls for m in call}


def test_the_bound_is_the_longer_spelling_in_bytes_and_none_for_what_a_template_renders_its_own_way() -> None:
    assert text_tokens_at_most({"role": "user", "content": "ok"}) == 2 + 2
    assert text_tokens_at_most({"role": "user", "content": "ﬁ"}) == 3 + 2  # 3 bytes; NFKC's "fi" is 2
    assert text_tokens_at_most({"role": "user", "content": "\ufdfa"}) == 33 + 2  # 3 bytes; NFKC: 18 letters
    parts = [{"type": "text", "text": "ab"}, {"type": "text", "text": "c"}]
    assert text_tokens_at_most({"role": "assistant", "content": parts}) == 2 + 2 + 1 + 2
    assert text_tokens_at_most({"role": "tool", "content": "x", "tool_call_id": "c"}) is None
    assert text_tokens_at_most({"role": "user", "content": [{"type": "image_url", "image_url": {}}]}) is None


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital of France.",
        "Grüße aus Köln, schönen Tag!",
        "東京は日本の首都です。",
        "emoji 🙂🙃🚀 and ZWJ 👩‍👩‍👧",
        "def f(x):\n    return {'a': [1, 2, 3]}  # code",
        "\ufdfa ﬁ ㎒ ½",
        "   many     spaces\n\n\n",
        "a",
    ],
)
def test_the_bound_holds_for_the_embedded_models_tokenizer(text: str, embedded_model: Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(embedded_model / "tokenizer.json"))
    tokens = len(tokenizer.encode(text, add_special_tokens=False).ids)
    bound = text_tokens_at_most({"role": "user", "content": text})
    assert bound is not None and tokens <= bound
