"""Steps 5-7 of a turn: stream the answer from the model server, pass it through the output rails, persist it.

Raw text is kept for reviewers and only what passed the rails is shown. A block stops the upstream request at
once and retracts what was shown; an upstream failure or a crash is stored as an error and told to the user;
a caller that goes away leaves the answer stored as interrupted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from webapp.guard.interface import Rails
from webapp.guard.outputfilter import FilterStep
from webapp.guard.verdicts import RailOutcome, refusal_message, summarise_verdicts
from webapp.store import ContextIn, RailEventIn, Store
from webapp.turn.checkpoints import Checkpoints
from webapp.turn.context import ContextResult
from webapp.turn.events import (
    AnswerDelta,
    FinalStatus,
    ReasoningDelta,
    Retract,
    TurnDone,
    TurnEvent,
    TurnRequest,
)
from webapp.turn.prompt import neutralise_tools
from webapp.turn.toolcalls import GateStep, ToolCallAssembler, ToolCallGate
from webapp.upstream.client import (
    Delta,
    ImagesNotSupported,
    LLMClient,
    StreamResult,
    UpstreamError,
    UpstreamUnavailable,
)
from webapp.upstream.profiles import Profile

if TYPE_CHECKING:
    from webapp.guard.outputfilter import Channel, OutputFilter

log = logging.getLogger(__name__)

ObserveVerdicts = Callable[[Sequence[RailOutcome]], None]


def rail_events(outcomes: Sequence[RailOutcome]) -> list[RailEventIn]:
    return [RailEventIn(o.stage, o.rail, o.decision, o.reason, o.latency_ms) for o in outcomes]


@dataclass(frozen=True)
class AnswerStep:
    """One answer's stream, built per turn from the service's current parts."""

    store: Store
    llm: LLMClient
    guard: Rails
    profile: Profile
    served_model: str
    checkpoints: Checkpoints  # shared by all answers: written behind the streams, one write per interval
    observe_verdicts: ObserveVerdicts  # tells metrics about the verdicts stored with the answer

    async def stream(
        self, session_id: str, request: TurnRequest, context: ContextResult, max_tokens: int
    ) -> AsyncGenerator[TurnEvent, None]:
        """Stream, filter and persist one answer; the last event is its `TurnDone`.

        Clean-up is shielded: a caller that goes away (cancellation) still leaves the answer stored with its
        status and rail verdicts, never "streaming".
        """
        sampling = self.profile.sampling_for(request.mode, request.sampling)
        row = AnswerRow(
            asyncio.ensure_future(
                asyncio.to_thread(
                    self.store.add_answer,
                    session_id,
                    context=ContextIn(tuple(context.message_ids), context.tokens, context.dropped),
                    mode=request.mode,
                    params={**sampling, "max_tokens": max_tokens},
                    model=self.served_model,
                )
            )
        )
        answer = Transcript()
        result = StreamResult()
        filt = self.guard.output_filter(user_text=request.text)
        gate = ToolCallGate(self.guard, request.text, answer.tool_calls)
        verdicts: list[RailOutcome] = []  # stored together at the end: no extra writes on the streaming path
        started = time.monotonic()
        status: FinalStatus = "interrupted"  # what a cancelled or crashed stream is left as
        done: TurnDone | None = None
        stream = self.llm.stream_batches(
            self.served_model,
            context.messages,
            sampling=sampling,
            # The client's tools and structured-output fields, checked by the adapter; the profile's thinking
            # switch last, so nothing a client sends can set it another way.
            extra_body={**_upstream_fields(request), **self.profile.request_extras(request.mode)},
            max_tokens=max_tokens,
            result=result,
        )
        try:
            async with aclosing(_filtered(stream, filt, gate, answer, started)) as steps:
                async for step in steps:
                    answer_id = await row.id()  # nothing is shown before the answer's row exists
                    for event in answer.release(step):
                        yield event
                    verdicts += step.events
                    if step.block is not None:
                        await stream.aclose()  # closes the HTTP stream: vLLM aborts the request at once
                        done = await self._blocked(answer_id, answer, step.block, started, verdicts)
                        yield Retract()
                        yield done
                        return
                    self.checkpoints.note(
                        answer_id, answer.raw_answer, answer.raw_reasoning, answer.shown_answer
                    )
            status = "complete"
            done = self._done("complete", await row.id(), answer, result, started)
        except UpstreamError as exc:
            status = "error"
            done = self._done(
                "error",
                await row.id(),
                answer,
                result,
                started,
                message=exc.user_message,
                code=upstream_error_code(exc),
            )
        except Exception:  # never a 500 or a hang: the answer is stored as an error and the user told
            log.exception("turn failed", extra={"session_id": session_id, "answer_id": row.known})
            status = "error"
            done = self._done(
                "error",
                await row.id(),
                answer,
                result,
                started,
                message="Something went wrong while answering. The message is saved; try again.",
                code="internal_error",
            )
        finally:
            await stream.aclose()
            if done is None or done.status != "blocked":
                await asyncio.shield(
                    self._finish(
                        row,
                        status,
                        answer,
                        result,
                        started,
                        error=done.message if done and status == "error" else None,
                        verdicts=verdicts,
                    )
                )
        yield done

    async def _blocked(
        self,
        answer_id: int,
        answer: Transcript,
        rail: RailOutcome,
        started: float,
        verdicts: list[RailOutcome],
    ) -> TurnDone:
        events = self._verdicts(answer_id, verdicts if rail in verdicts else [*verdicts, rail])
        # The blocked text stays stored for reviewers; the chatter saw only what passed, now retracted.
        await asyncio.to_thread(
            self.store.finish_message,
            answer_id,
            rail_events=events,
            status="blocked",
            content=answer.raw_answer,
            reasoning=answer.raw_reasoning,
            tool_calls=answer.tool_calls.openai() or None,  # blocked ones too: reviewers see what was stopped
            finish_reason="content_filter",
            shown_content="",
            error=rail.reason,
            ttft_ms=answer.ttft_ms,
            duration_ms=(time.monotonic() - started) * 1000,
        )
        return TurnDone(
            "blocked",
            answer_id,
            refusal_message(rail),
            kind="rail",
            rail=rail,
            finish_reason="content_filter",
            ttft_ms=answer.ttft_ms,
            duration_ms=(time.monotonic() - started) * 1000,
        )

    def _done(
        self,
        status: FinalStatus,
        answer_id: int,
        answer: Transcript,
        result: StreamResult,
        started: float,
        message: str = "",
        code: str | None = None,
    ) -> TurnDone:
        return TurnDone(
            status,
            answer_id,
            message,
            kind="ok" if status == "complete" else "error",
            finish_reason=result.finish_reason,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            ttft_ms=answer.ttft_ms,
            duration_ms=(time.monotonic() - started) * 1000,
            reasoning_s=answer.reasoning_s,
            code=code,
        )

    async def _finish(
        self,
        row: AnswerRow,
        status: FinalStatus,
        answer: Transcript,
        result: StreamResult,
        started: float,
        error: str | None,
        verdicts: Sequence[RailOutcome],
    ) -> None:
        """The final status, text and rail verdicts: one transaction (once the row exists: the whole of this
        is shielded, so a cancelled turn still waits for its row and finishes it)."""
        answer_id = await row.id()
        events = self._verdicts(answer_id, verdicts)
        await asyncio.to_thread(
            self.store.finish_message,
            answer_id,
            rail_events=events,
            status=status,
            content=answer.raw_answer,
            reasoning=answer.raw_reasoning,
            tool_calls=answer.tool_calls.openai() or None,
            finish_reason=result.finish_reason,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            ttft_ms=answer.ttft_ms,
            duration_ms=(time.monotonic() - started) * 1000,
            error=error,
            shown_content=answer.shown_answer,
        )

    def _verdicts(self, answer_id: int, verdicts: Sequence[RailOutcome]) -> list[RailEventIn]:
        """What is stored with the final answer (nothing more is checkpointed for it) and told to metrics."""
        self.checkpoints.forget(answer_id)
        summary = summarise_verdicts(verdicts)
        self.observe_verdicts(summary)
        return rail_events(summary)


async def _filtered(
    batches: AsyncIterator[list[Delta]],
    filt: OutputFilter,
    gate: ToolCallGate,
    answer: Transcript,
    started: float,
) -> AsyncGenerator[FilterStep | GateStep, None]:
    """The output rails' verdict on every delta as it arrives (text through the filter, tool calls through the
    gate), then on what was still held back at the end.

    Each delta is judged as it came, but what a batch (the deltas that arrived together) released is one step:
    one event per channel, one SSE write, one UI update, instead of one per word. A batch is what one read
    brought, so nothing waits for it to fill: when the app keeps up it is one delta, when it falls behind the
    words that queued up meanwhile go out together and it catches up.
    """
    async for batch in batches:
        text: FilterStep | None = None  # what the batch's text deltas released so far, one step
        for delta in batch:
            answer.add(delta, started)
            if delta.kind == "tool_call":
                if text is not None:
                    yield text
                    text = None
                step: FilterStep | GateStep = await gate.feed(delta)
                yield step
            else:
                text = _joined(text, await filt.feed(delta.kind, delta.text))
            if text is not None and text.block is not None:
                break  # nothing after a block is judged or shown
        if text is not None:
            yield text
    yield await filt.flush()
    yield await gate.flush()


def _joined(first: FilterStep | None, then: FilterStep) -> FilterStep:
    """Two consecutive filter steps as one: released text appended per channel, verdicts in order."""
    if first is None:
        return then
    released = dict(first.released)
    for channel, piece in then.released.items():
        released[channel] = released.get(channel, "") + piece
    return FilterStep(released=released, events=[*first.events, *then.events], block=then.block)


@dataclass
class Transcript:
    """Raw text as generated (for reviewers) and the part that passed the output rails (for chatters)."""

    raw_answer: str = ""
    raw_reasoning: str = ""
    shown_answer: str = ""
    ttft_ms: float | None = None
    reasoning_started: float | None = None
    reasoning_ended: float | None = None
    tool_calls: ToolCallAssembler = field(default_factory=ToolCallAssembler)  # fed by the gate, all of them

    def add(self, delta: Delta, started: float) -> None:
        now = time.monotonic()
        if self.ttft_ms is None:
            self.ttft_ms = (now - started) * 1000
        if delta.kind == "reasoning":
            self.raw_reasoning += delta.text
            self.reasoning_started = self.reasoning_started or now
            self.reasoning_ended = now
        elif delta.kind == "answer":
            self.raw_answer += delta.text

    @property
    def reasoning_s(self) -> float | None:
        if self.reasoning_started is None or self.reasoning_ended is None:
            return None
        return self.reasoning_ended - self.reasoning_started

    def release(self, step: FilterStep | GateStep) -> list[TurnEvent]:
        if isinstance(step, GateStep):
            return list(step.released)
        released: Mapping[Channel, str] = step.released
        events: list[TurnEvent] = []
        if released.get("reasoning"):
            events.append(ReasoningDelta(released["reasoning"]))
        if released.get("answer"):
            self.shown_answer += released["answer"]
            events.append(AnswerDelta(released["answer"]))
        return events


class AnswerRow:
    """The answer's row, written while the model server is asked for the answer.

    Under load the store's writes queue (SQLite takes one writer at a time: 64 turns starting together waited
    hundreds of ms for their writes), and the model's first words need not wait for one more: the request
    goes out at once, and the row is awaited before anything of the answer is shown or saved. Should the
    row's write fail, awaiting it raises that error, as writing it first did.
    """

    def __init__(self, write: asyncio.Future[int]) -> None:
        self._task = write  # under way: its arguments are checked where it is started (to_thread is typed)

    @property
    def known(self) -> int | None:
        """The row's id if it is written (for a log line), else None."""
        done = self._task.done() and not self._task.cancelled() and self._task.exception() is None
        return self._task.result() if done else None

    async def id(self) -> int:
        # shielded: a cancelled turn must not abandon its row's write halfway; the thread finishes it anyway
        return await asyncio.shield(self._task)


def _upstream_fields(request: TurnRequest) -> dict[str, Any]:
    fields = dict(request.upstream_fields)
    if "tools" in fields:  # rendered into the prompt by the chat template, like the user's text
        fields["tools"] = neutralise_tools(fields["tools"])
    return fields


def upstream_error_code(exc: UpstreamError) -> str:
    if isinstance(exc, ImagesNotSupported):
        return "images_not_supported"
    if isinstance(exc, UpstreamUnavailable):
        return "upstream_unavailable"
    if exc.status is not None and 400 <= exc.status < 500:
        return "upstream_rejected"  # e.g. the conversation is too long for the model
    return "upstream_error"
