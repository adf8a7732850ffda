"""Stored history passes the rails again on every turn, and one stale verdict does not end the chat.

Text that passed once is not trusted for ever: the allowlist may have been narrowed or a rail added since, so
everything the model would read from the store is checked again before each turn. If the whole history were
judged as one text, a single message that fails today (or a false positive) would block every later turn of
the chat. So a failing history is judged message by message; a message that fails alone is left out of what
the model reads, from now on, with a verdict stored on it (stage ``history``: reviewers see why; the chain
of stored messages is not rewritten), and the chatter is told. The turn goes on with the rest.

Each message is judged by the rails meant for its author: what the user, a tool or a client wrote passes the
input rails; an answer this app produced passed the output rails when it streamed and is judged by them
again (the URL allowlist as it is today, output moderation), not by input rules written for users. An answer
a client resent as history was never the app's output, so it counts as client text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace

from webapp.guard.interface import Rails
from webapp.guard.verdicts import RailOutcome
from webapp.store import MessageInfo, RailEventIn, Store
from webapp.turn.events import Notice
from webapp.turn.inputs import model_read_text
from webapp.turn.prompt import to_context_messages

HISTORY_STAGE = "history"  # the stage of a verdict that left a stored message out of later contexts
LEFT_OUT = "left out"  # the status the context builder sees for such a message (never stored)


@dataclass(frozen=True)
class HistoryCheck:
    left_out: frozenset[int]  # ids of stored messages the model no longer reads
    notice: Notice | None  # what the chatter is told, when this turn left something out


def usable_history(
    history: Sequence[MessageInfo], left_out: frozenset[int] = frozenset()
) -> list[MessageInfo]:
    """The stored messages with those left out (now or on an earlier turn) marked so the context skips them;
    an exchange whose question or answer is left out is skipped whole."""
    return [replace(m, status=LEFT_OUT) if m.id in left_out or was_left_out(m) else m for m in history]


def was_left_out(message: MessageInfo) -> bool:
    return any(e.stage == HISTORY_STAGE and e.decision == "block" for e in message.rail_events)


def written_by_app(message: MessageInfo) -> bool:
    """An answer this app streamed through the output rails (a client's resent answer has no model)."""
    return message.role == "assistant" and message.model is not None


def input_ids(stored: Sequence[MessageInfo], input_id: int, inputs: int = 1) -> frozenset[int]:
    """The ids of this turn's input: its last ``inputs`` stored messages up to ``input_id``."""
    earlier = [m.id for m in stored if m.id <= input_id]
    return frozenset(earlier[-max(1, inputs) :])


async def recheck_history(
    guard: Rails, store: Store, stored: Sequence[MessageInfo], *, new: frozenset[int], images: bool
) -> HistoryCheck:
    """Judge what the model would read of the stored session, except this turn's input (``new``: it is
    checked as new input)."""
    by_id = {m.id: m for m in stored if m.id not in new}
    read = [
        (by_id[c.message_id], model_read_text(c))
        for c in to_context_messages(usable_history(stored), images=images)
        if c.message_id in by_id
    ]
    answers = [(m, t) for m, t in read if written_by_app(m)]
    inputs = [(m, t) for m, t in read if not written_by_app(m)]
    if not await _blocks(guard, inputs, answer=False) and not await _blocks(guard, answers, answer=True):
        return HistoryCheck(frozenset(), None)
    culprits: dict[int, RailOutcome] = {}
    for message, text in read:
        block = await _blocks(guard, [(message, text)], answer=written_by_app(message))
        if block is not None:
            culprits[message.id] = block
    if culprits:
        events = [
            (i, RailEventIn(HISTORY_STAGE, b.rail, "block", b.reason, b.latency_ms))
            for i, b in culprits.items()
        ]
        await asyncio.to_thread(_store_events, store, events)
        left_out = frozenset(culprits)
    else:  # only the messages together fail: leave all of them out of this turn, mark none of them
        left_out = frozenset(m.id for m, _ in read)
    return HistoryCheck(left_out, _notice(len(left_out), next(iter(culprits.values()), None)))


async def _blocks(
    guard: Rails, messages: Sequence[tuple[MessageInfo, str]], *, answer: bool
) -> RailOutcome | None:
    text = "\n\n".join(t for _, t in messages if t)
    if not text:
        return None
    verdicts = await (guard.check_output(text) if answer else guard.check_input(text))
    return next((v for v in verdicts if v.blocked), None)


def _store_events(store: Store, events: Sequence[tuple[int, RailEventIn]]) -> None:
    for message_id, event in events:
        store.add_rail_events(message_id, [event])


def _notice(count: int, block: RailOutcome | None) -> Notice:
    which = "An earlier message" if count == 1 else f"{count} earlier messages"
    why = f" ({block.reason})" if block is not None else ""
    return Notice(
        f"{which} of this chat no longer pass{'es' if count == 1 else ''} the safety rails{why}: "
        "left out of what the model reads. The chat goes on without it.",
        code="history_left_out",
    )
