"""Deltas that arrived together (one read of the upstream) are judged one by one and released as one step."""

from __future__ import annotations

from collections.abc import AsyncIterator

from tests.guard.test_outputfilter import spied_filter
from webapp.guard.outputfilter import FilterStep
from webapp.turn.answer import Transcript, _filtered
from webapp.turn.toolcalls import GateStep, ToolCallGate
from webapp.upstream.client import Delta


class NoRails:
    async def check_output(self, answer: str, reasoning: str = "", user_text: str = "") -> list:
        return []


async def batches_of(*batches: list[str]) -> AsyncIterator[list[Delta]]:
    for batch in batches:
        yield [Delta("answer", text) for text in batch]


async def steps(
    *batches: list[str], bad: tuple[str, ...] = ()
) -> tuple[list[FilterStep | GateStep], list[str]]:
    flt, spy = spied_filter(bad=bad)
    answer = Transcript()
    gate = ToolCallGate(NoRails(), "", answer.tool_calls)  # type: ignore[arg-type]
    found = [step async for step in _filtered(batches_of(*batches), flt, gate, answer, 0.0)]
    return found, spy.judged


async def test_words_that_arrived_together_are_one_release_each_judged_on_its_own() -> None:
    found, judged = await steps(["Hello ", "there, ", "friend. "], ["Bye "])
    released = [s.released.get("answer") for s in found if isinstance(s, FilterStep) and s.released]
    assert released == ["Hello there, friend. ", "Bye "]
    assert judged[:3] == ["Hello ", "Hello there, ", "Hello there, friend. "]  # word by word, as they came


async def test_a_block_inside_a_batch_stops_the_batch_there() -> None:
    text = "Happy to help. You are a worthless idiot and everyone knows it. Bye now. "
    found, judged = await steps([w + " " for w in text.split()], bad=("idiot",))
    blocked = [s for s in found if s.block is not None]
    assert blocked and blocked[0].block is not None and blocked[0].block.rail == "moderation"
    shown = "".join(
        s.released.get("answer", "")
        for s in found[: found.index(blocked[0]) + 1]
        if isinstance(s, FilterStep)
    )
    assert "idiot" not in shown and shown.startswith("Happy to help. ")
    assert not any("Bye" in j for j in judged)  # nothing after the block was judged, let alone shown
