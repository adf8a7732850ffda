"""Context trimming: exact budgets, what is kept, what goes first, caching, fallbacks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.turn.context import (
    IMAGE_MARKER,
    ContextBuilder,
    ContextMessage,
    ContextResult,
    ContextTooLong,
    TokenCache,
)
from webapp.upstream.profiles import get_profile

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
IMAGE_TOKENS = 50


def words(content: str | list[dict[str, Any]]) -> int:
    if isinstance(content, str):
        return len(content.split())
    assert all(part["type"] == "text" for part in content), "images must not be sent to the tokenizer"
    return sum(len(part["text"].split()) for part in content)


class ChatMLTokenizer:
    """Counts like a ChatML template: generation prompt 3, a default system prompt (10) when the first
    message is not a system message, 4 per message for its markers, and one token per word."""

    def __init__(self) -> None:
        self.calls: list[list[dict[str, Any]]] = []

    async def __call__(self, messages: list[dict[str, Any]]) -> int:
        self.calls.append(messages)
        return self.true_count(messages)

    @staticmethod
    def true_count(messages: list[dict[str, Any]]) -> int:
        total = 3 + (0 if messages and messages[0]["role"] == "system" else 10)
        return total + sum(4 + words(m["content"]) for m in messages)

    def sent_count(self, result: ContextResult) -> int:
        """What the upstream would count for the messages actually sent, images included."""
        images = sum(
            1
            for m in result.messages
            if isinstance(m["content"], list)
            for p in m["content"]
            if p["type"] == "image_url"
        )
        text_only = [
            {
                "role": m["role"],
                "content": m["content"]
                if isinstance(m["content"], str)
                else [p for p in m["content"] if p["type"] == "text"],
            }
            for m in result.messages
        ]
        return self.true_count(text_only) + images * IMAGE_TOKENS


def text(n: int, word: str = "w") -> str:
    return " ".join([word] * n)


def user(message_id: int, n: int, images: int = 0) -> ContextMessage:
    if images:
        return ContextMessage(message_id, "user", [*([IMAGE] * images), {"type": "text", "text": text(n)}])
    return ContextMessage(message_id, "user", text(n))


def assistant(message_id: int, n: int) -> ContextMessage:
    return ContextMessage(message_id, "assistant", text(n))


def conversation(turns: int, words_each: int = 10) -> list[ContextMessage]:
    history = []
    for t in range(turns):
        history += [user(2 * t + 1, words_each), assistant(2 * t + 2, words_each)]
    return history + [user(2 * turns + 1, words_each)]


def builder(
    tokenizer: Any,
    max_model_len: int,
    max_tokens: int = 100,
    margin: int = 0,
    cache: TokenCache | None = None,
) -> ContextBuilder:
    return ContextBuilder(
        tokenizer,
        max_model_len=max_model_len,
        max_tokens=max_tokens,
        margin=margin,
        image_tokens=IMAGE_TOKENS,
        cache=TokenCache() if cache is None else cache,
    )


async def test_everything_fits_and_counts_are_exact() -> None:
    tok = ChatMLTokenizer()
    history = conversation(3)
    result = await builder(tok, 10_000).build("be brief", history)
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant"] * 1 + [
        "user",
        "assistant",
    ] * 2 + ["user"]
    assert result.message_ids == [m.message_id for m in history]
    assert (result.dropped, result.images_dropped, result.budget, result.exact) == (0, 0, 9_900, True)
    assert result.tokens == tok.sent_count(result)


async def test_counts_are_exact_without_a_system_prompt_too() -> None:
    tok = ChatMLTokenizer()
    result = await builder(tok, 10_000).build(None, conversation(2) + [])
    assert result.messages[0]["role"] == "user"
    assert result.tokens == tok.sent_count(result)


async def test_oldest_turns_go_first_and_the_newest_turn_stays() -> None:
    tok = ChatMLTokenizer()
    history = conversation(5)  # 11 messages of 14 tokens each, system 3+4+2
    result = await builder(tok, max_model_len=100 + 9 + 14 * 5).build("be brief", history)
    assert result.message_ids == [m.message_id for m in history[-5:]]
    assert result.dropped == 6
    assert result.tokens == tok.sent_count(result) <= result.budget
    assert result.messages[0] == {"role": "system", "content": "be brief"}


async def test_old_images_are_replaced_before_old_text_is_dropped() -> None:
    tok = ChatMLTokenizer()
    history = [user(1, 5, images=2), assistant(2, 5), user(3, 5, images=1)]
    everything = 9 + 3 * (4 + 5) + 3 * IMAGE_TOKENS
    result = await builder(tok, max_model_len=100 + everything - 1).build("be brief", history)
    assert result.dropped == 0
    assert result.images_dropped == 2
    assert result.messages[1]["content"] == [{"type": "text", "text": IMAGE_MARKER}] * 2 + [
        {"type": "text", "text": text(5)}
    ]
    assert result.messages[3]["content"][0] == IMAGE  # the newest turn keeps its image
    assert result.tokens == tok.sent_count(result) <= result.budget


async def test_newest_turn_that_cannot_fit_is_a_clear_error() -> None:
    tok = ChatMLTokenizer()
    with pytest.raises(ContextTooLong) as caught:
        await builder(tok, max_model_len=150).build("be brief", [assistant(1, 3), user(2, 60)])
    assert (caught.value.needed, caught.value.limit) == (9 + 64, 50)
    assert "73 tokens" in str(caught.value) and "50" in str(caught.value)


async def test_a_second_turn_only_tokenizes_what_is_new() -> None:
    tok = ChatMLTokenizer()
    cache = TokenCache()
    history = conversation(20)
    await builder(tok, 100_000, cache=cache).build("be brief", history)
    tok.calls.clear()
    history += [assistant(100, 7), user(101, 3)]
    # A new builder per turn, as the chat service makes: the tokenizer names the cache namespace.
    result = await builder(tok, 100_000, cache=cache).build("be brief", history)
    assert sorted(words(c[0]["content"]) for c in tok.calls) == [3, 7]
    assert result.tokens == tok.sent_count(result)


async def test_different_tokenizers_do_not_share_counts() -> None:
    cache = TokenCache()
    first, second = ChatMLTokenizer(), ChatMLTokenizer()
    await builder(first, 10_000, cache=cache).build(None, conversation(1))
    await builder(second, 10_000, cache=cache).build(None, conversation(1))
    assert len(second.calls) == len(first.calls) > 0


async def test_without_a_tokenizer_the_estimate_over_counts() -> None:
    tok = ChatMLTokenizer()
    history = [user(1, 30), assistant(2, 30), user(3, 30)]
    result = await builder(None, 10_000).build("be brief", history)
    assert not result.exact
    assert result.tokens >= tok.sent_count(result)
    assert result.tokens >= sum(len(str(m["content"])) for m in result.messages) / 3


async def test_a_failing_tokenizer_falls_back_to_estimates_after_one_try() -> None:
    calls = 0

    async def broken(messages: list[dict[str, Any]]) -> int:
        nonlocal calls
        calls += 1
        raise ConnectionError("vLLM is restarting")

    tok = ChatMLTokenizer()
    result = await builder(broken, 10_000).build("be brief", conversation(20))
    assert not result.exact and result.dropped == 0
    assert result.tokens >= tok.sent_count(result)
    assert calls == 1


async def test_template_refusing_the_probe_makes_counts_conservative() -> None:
    tok = ChatMLTokenizer()

    async def strict(messages: list[dict[str, Any]]) -> int:
        roles = [m["role"] for m in messages if m["role"] != "system"]
        if any(a == b for a, b in zip(roles, roles[1:], strict=False)):
            raise ValueError("Conversation roles must alternate user/assistant/user/assistant")
        return await tok(messages)

    result = await builder(strict, 10_000).build(None, conversation(3))
    assert result.exact
    assert result.tokens >= tok.sent_count(result)


def test_reasoning_cannot_enter_the_history() -> None:
    with pytest.raises(ValueError):
        ContextMessage(1, "assistant", [{"type": "reasoning", "text": "secret thought"}])
    with pytest.raises(ValueError):
        ContextMessage(1, "function", "x")
    assert ContextMessage(1, "user", [IMAGE]).has_images and not ContextMessage(1, "user", "text").has_images


def test_a_budget_that_leaves_no_room_is_refused() -> None:
    with pytest.raises(ValueError):
        ContextBuilder(None, max_model_len=1000, max_tokens=990, margin=64)


# property tests -------------------------------------------------------------------------------------------

turn_strategy = st.tuples(st.integers(0, 40), st.integers(0, 2), st.integers(0, 40))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(turn_strategy, min_size=0, max_size=12),
    newest=st.tuples(st.integers(0, 60), st.integers(0, 2)),
    system=st.one_of(st.none(), st.integers(1, 20)),
    max_model_len=st.integers(120, 1200),
)
def test_trimming_invariants(
    turns: list[tuple[int, int, int]], newest: tuple[int, int], system: int | None, max_model_len: int
) -> None:
    history: list[ContextMessage] = []
    for question, images, answer in turns:
        history += [user(len(history) + 1, question, images), assistant(len(history) + 2, answer)]
    history.append(user(len(history) + 1, *newest))
    tok = ChatMLTokenizer()
    system_prompt = text(system, "s") if system else None
    context = builder(tok, max_model_len)
    try:
        result = asyncio.run(context.build(system_prompt, history))
    except ContextTooLong as exc:
        alone = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + [
            {"role": "user", "content": history[-1].content}
        ]
        assert exc.needed == tok.sent_count(ContextResult(alone, [], 0, 0, 0, 0)) > context.budget
        return
    sent_ids = result.message_ids
    # budget respected, and the count is the upstream's exact count
    assert result.tokens == tok.sent_count(result) <= result.budget
    # system first, newest turn kept, and what is kept is the newest part of the history, in order
    if system_prompt:
        assert result.messages[0] == {"role": "system", "content": system_prompt}
    assert sent_ids[-1] == history[-1].message_id
    assert result.messages[-1]["content"] == history[-1].content
    assert sent_ids == [m.message_id for m in history[len(history) - len(sent_ids) :]]
    assert result.dropped == len(history) - len(sent_ids)
    first_sent = result.messages[1 if system_prompt else 0]
    assert sent_ids[0] == history[-1].message_id or first_sent["role"] == "user"
    # nothing but role and content is sent: no reasoning can ride along
    assert all(set(m) == {"role", "content"} for m in result.messages)
    # old images go before old text: once a turn was dropped, no older image is left
    old = result.messages[(1 if system_prompt else 0) : -1]
    if result.dropped:
        assert not any(
            isinstance(m["content"], list) and any(p["type"] == "image_url" for p in m["content"])
            for m in old
        )
    images_in = sum(images for _, images, _ in turns) + newest[1]
    images_out = sum(
        1
        for m in result.messages
        if isinstance(m["content"], list)
        for p in m["content"]
        if p["type"] == "image_url"
    )
    assert images_out + result.images_dropped == images_in


async def test_image_only_messages_are_counted_without_an_empty_content_list() -> None:
    tok = ChatMLTokenizer()
    history = [ContextMessage(1, "user", [IMAGE]), assistant(2, 3), ContextMessage(3, "user", [IMAGE, IMAGE])]
    result = await builder(tok, 10_000).build(None, history)
    assert all(call[0]["content"] != [] for call in tok.calls)
    assert result.exact and result.tokens == tok.sent_count(result)


@pytest.mark.parametrize("system_prompt", [None, "You are a helpful assistant."])
async def test_counts_are_exact_with_the_real_smollm2_chat_template(
    system_prompt: str | None, embedded_model: Path
) -> None:
    """As vLLM's /tokenize computes it: chat template (it injects a default system prompt), then tokenizer."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(embedded_model)

    def count(messages: list[dict[str, Any]]) -> int:
        ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        return len(ids["input_ids"] if hasattr(ids, "keys") else ids)

    async def vllm_like(messages: list[dict[str, Any]]) -> int:
        return count(messages)

    phrases = ["the quick brown fox", "résumé naïve", "東京 🙂", "code: `x = 1`\n\n- item", "<|im_end|>?"]
    history = [
        ContextMessage(i + 1, "user" if i % 2 == 0 else "assistant", " ".join(phrases[: 1 + i % 5]) * (i + 1))
        for i in range(15)
    ]
    full = await builder(vllm_like, 100_000).build(system_prompt, history)
    assert full.tokens == count(full.messages)
    trimmed = await builder(vllm_like, full.tokens // 2 + 100, margin=0).build(system_prompt, history)
    assert trimmed.dropped > 0
    assert trimmed.tokens == count(trimmed.messages) <= trimmed.budget


async def test_an_image_of_known_size_costs_what_the_encoder_makes_of_it() -> None:
    kimi = get_profile("kimi-k2.5")
    small = ContextMessage(1, "user", [IMAGE, {"type": "text", "text": "what?"}], image_sizes=((32, 24),))
    unsized = ContextMessage(1, "user", [IMAGE, {"type": "text", "text": "what?"}])
    tok = ChatMLTokenizer()

    def build() -> ContextBuilder:
        return ContextBuilder(
            tok,
            max_model_len=4096,
            max_tokens=512,
            image_tokens=kimi.image_tokens,
            image_cost=kimi.image_cost,
            cache=TokenCache(),
        )

    text_only = await build().build(None, [ContextMessage(1, "user", "what?")])
    fits = await build().build(None, [small])
    assert fits.tokens == text_only.tokens + 2  # 32x24 px: two 28x28 squares
    with pytest.raises(ContextTooLong):  # size unknown: the encoder's maximum, 4,096, does not fit
        await build().build(None, [unsized])


async def test_big_old_images_are_trimmed_by_their_real_cost() -> None:
    kimi = get_profile("kimi-k2.5")
    big = ContextMessage(1, "user", [IMAGE, {"type": "text", "text": "look"}], image_sizes=((1024, 768),))
    small = ContextMessage(3, "user", [IMAGE, {"type": "text", "text": "and this"}], image_sizes=((56, 56),))
    history = [big, assistant(2, 5), small]
    result = await ContextBuilder(
        ChatMLTokenizer(),
        max_model_len=1300,
        max_tokens=300,
        margin=0,
        image_tokens=kimi.image_tokens,
        image_cost=kimi.image_cost,
        cache=TokenCache(),
    ).build(None, history)
    # The old 1,036-token image goes (replaced by a marker); the newest, 4 tokens, stays.
    assert result.images_dropped == 1 and result.dropped == 0
    assert IMAGE_MARKER in json.dumps(result.messages[0]) and result.messages[2]["content"][0] == IMAGE


async def test_tool_calls_and_results_are_sent_and_dropped_with_their_turn() -> None:
    call = [
        {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"c": "Oslo"}'}}
    ]
    history = [
        user(1, 300),
        ContextMessage(2, "assistant", "", tool_calls=call),
        ContextMessage(3, "tool", "Sunny, 20 C", tool_call_id="call_1"),
        assistant(4, 300),
        user(5, 10),
        ContextMessage(6, "assistant", "", tool_calls=call),
        ContextMessage(7, "tool", "Rain", tool_call_id="call_1"),
    ]
    tok = ChatMLTokenizer()
    everything = await builder(tok, 10_000).build(None, history)
    assert everything.messages[1] == {"role": "assistant", "content": "", "tool_calls": call}
    assert everything.messages[2] == {"role": "tool", "content": "Sunny, 20 C", "tool_call_id": "call_1"}
    trimmed = await builder(tok, everything.tokens + 100 - 200).build(None, history)
    assert trimmed.message_ids == [5, 6, 7]  # the old turn went whole: no result without its call
