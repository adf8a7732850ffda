"""The per-session hash chain that lets reviewers prove a transcript was not edited.

Each message gets one link when it reaches a final status (user messages at insert, answers when they
finish): ``hash = sha256(prev_hash + canonical_json(message))``. Links are appended in the order messages
become final, which is seq order in a normal conversation but need not be (an answer can finish after the
next user message was stored), so every link records its ``chain_pos``. The session row keeps the newest
link and the chain length, which makes a deleted tail detectable. The first link's ``prev_hash`` is "".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, get_args

from webapp.store.records import FinalStatus

FINAL_STATUSES = frozenset(get_args(FinalStatus))
STATUSES = FINAL_STATUSES | {"streaming"}
GENESIS = ""


def canonical_json(
    *,
    seq: int,
    role: str,
    content: str,
    reasoning: str,
    status: str,
    attachments: Sequence[tuple[str, str]],
    tool_calls: list[dict[str, Any]] | None = None,
    tool_call_id: str | None = None,
) -> str:
    """Stable text of what a link covers. attachments: (sha256 of the original, sha256 of stored bytes).

    Tool calls and the call a tool result answers are covered when present; messages without them hash as
    they did before tool turns existed, so older chains still verify."""
    body: dict[str, Any] = {
        "seq": seq,
        "role": role,
        "content": content,
        "reasoning": reasoning,
        "status": status,
        "attachments": [list(pair) for pair in attachments],
    }
    if tool_calls:
        body["tool_calls"] = tool_calls
    if tool_call_id is not None:
        body["tool_call_id"] = tool_call_id
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link_hash(prev_hash: str, canonical: str) -> str:
    return hashlib.sha256((prev_hash + canonical).encode("utf-8")).hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
