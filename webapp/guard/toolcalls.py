"""Output rails over a model's tool calls: a call is judged whole, by the same rules as text, before any of
it leaves the app.

A tool call is text the model wrote for a program to act on: an agent may fetch the URL in its arguments or
show them to a user. So its name and arguments pass every output rail a whole answer passes (URL allowlist,
moderation, the safety model when one is configured). Arguments are JSON: they are judged as sent and
decoded, so a URL spelled with JSON escapes (`https:\\/\\/evil.example`, `\\u002e`) is judged as the program
will read it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from webapp.guard.verdicts import RailOutcome

if TYPE_CHECKING:
    from webapp.guard.interface import StreamRails


def tool_call_texts(name: str, arguments: str) -> list[str]:
    """What a rail reads of one call: its name, its arguments as sent, and every decoded key and string."""
    texts = [name, arguments]
    try:
        decoded = json.loads(arguments)
    except (ValueError, RecursionError):
        return texts
    texts.extend(_strings(decoded))
    return [t for t in texts if t]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


async def check_tool_call(
    rails: StreamRails, name: str, arguments: str, user_text: str = ""
) -> list[RailOutcome]:
    """Every output rail over one complete call (name, arguments as sent and decoded), stopping at the
    first block: the same check a whole answer gets."""
    return await rails.check_output("\n".join(tool_call_texts(name, arguments)), "", user_text)
