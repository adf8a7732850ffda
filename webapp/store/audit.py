"""Verify the hash chain of a stored session: every link re-computed from what is stored now.

``webapp.store.chain`` says what a link covers; the command line (``python -m webapp.audit``) prints the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webapp.store import MessageInfo, SessionInfo, Store
from webapp.store.chain import FINAL_STATUSES, GENESIS, canonical_json, link_hash, sha256_hex


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    first_broken_seq: int | None = None
    reason: str = ""


def verify_session(store: Store, session_id: str) -> VerifyResult:
    session = store.get_session(session_id)
    if session is None:
        return VerifyResult(False, None, f"no session {session_id!r}")
    return verify_loaded(session, store.messages(session_id))


def verify_loaded(session: SessionInfo, messages: Sequence[MessageInfo]) -> VerifyResult:
    """The same check over a session already read (the Reviewer API reads it once for both)."""
    problem = _check_messages(messages) or _check_links(messages)
    if problem is not None:
        return problem
    linked = [m for m in messages if m.hash is not None]
    head = max(linked, key=lambda m: m.chain_pos or 0).hash if linked else GENESIS
    if session.chain_length != len(linked) or session.chain_head != head:
        after = max((m.seq for m in messages), default=0) + 1
        return VerifyResult(False, after, "the chain's recorded end does not match: messages were removed")
    return VerifyResult(True)


def _check_messages(messages: Sequence[MessageInfo]) -> VerifyResult | None:
    for expected_seq, m in enumerate(messages, start=1):
        if m.seq != expected_seq:
            return VerifyResult(False, expected_seq, f"message seq {expected_seq} is missing")
        if m.status in FINAL_STATUSES and m.hash is None:
            return VerifyResult(False, m.seq, f"final message ({m.status}) has no hash")
        if m.status not in FINAL_STATUSES and m.hash is not None:
            return VerifyResult(False, m.seq, f"message in status {m.status!r} has a hash")
        for a in m.attachments:
            if sha256_hex(a.data) != a.data_sha256:
                return VerifyResult(False, m.seq, f"attachment {a.position} bytes were changed")
    return None


def _check_links(messages: Sequence[MessageInfo]) -> VerifyResult | None:
    prev = GENESIS
    linked = sorted((m for m in messages if m.hash is not None), key=lambda m: m.chain_pos or 0)
    for position, m in enumerate(linked, start=1):
        if m.chain_pos != position:
            return VerifyResult(False, m.seq, f"chain position {position} is missing")
        if m.prev_hash != prev:
            return VerifyResult(False, m.seq, "does not link to the previous message")
        pairs = [(a.sha256, a.data_sha256) for a in m.attachments]
        payload = canonical_json(
            seq=m.seq,
            role=m.role,
            content=m.content,
            reasoning=m.reasoning,
            status=m.status,
            attachments=pairs,
            tool_calls=m.tool_calls,
            tool_call_id=m.tool_call_id,
        )
        if link_hash(prev, payload) != m.hash:
            return VerifyResult(
                False, m.seq, "content, reasoning, status, attachments or tool calls were changed"
            )
        prev = m.hash
    return None
