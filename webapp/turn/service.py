"""The one-turn pipeline. Reads top to bottom as seven steps:

1. persist the user message (and its images) before anything can fail
2. prepare images (verify by content, orient, strip, cap pixels, re-encode)
3. input rails: a block answers with a refusal and nothing reaches the model
4. context: exact token budget, oldest turns dropped first, no past reasoning
5. stream from the model server
6. output rails over answer and reasoning, in small chunks, before anything is shown
7. persist the answer as it streams, and finally with its status

The UI and the API are thin adapters that turn `TurnEvent`s into pixels or OpenAI chunks.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from webapp.guard.interface import Rails
from webapp.guard.verdicts import RailOutcome, Stage, refusal_message
from webapp.media.describe import describe_image
from webapp.media.fetch import decode_data_url, fetch_image
from webapp.media.images import ImageError, PreparedImage, prepare_image
from webapp.store import AttachmentIn, Store
from webapp.turn.context import ContextBuilder, ContextResult, ContextTooLong
from webapp.turn.events import (
    AnswerDelta,
    ContextInfo,
    FinalStatus,
    ImageInput,
    InputError,
    Notice,
    ReasoningDelta,
    Retract,
    SessionReady,
    TurnDone,
    TurnEvent,
    TurnObserver,
    TurnRequest,
)
from webapp.turn.prompt import to_context_messages
from webapp.turn.sessions import ChatSessions
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
    from webapp.guard.outputfilter import Channel, FilterStep, OutputFilter

log = logging.getLogger(__name__)

# ---- the pipeline --------------------------------------------------------------------------------------


@dataclass
class ChatService:
    store: Store
    guard: Rails
    llm: LLMClient
    profile: Profile
    served_model: str
    system_prompt: str | None = "You are a helpful assistant."
    default_max_tokens: int = 1024
    max_tokens_cap: int = 4096
    context_margin: int = 64
    max_message_chars: int = 100_000
    max_images: int = 4
    max_image_bytes: int = 20 * 2**20
    checkpoint_interval_s: float = 0.5
    image_clahe: bool = False
    describe_images: bool = True  # a text-only model gets a short description of each image instead
    fallback_max_model_len: int = 4096
    observer: TurnObserver | None = None  # metrics; sees every event and every rail verdict

    @property
    def sessions(self) -> ChatSessions:
        """The owner's own sessions (list, reopen, delete), owner-checked in one place."""
        return ChatSessions(self.store)

    async def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        observing = self.observer.turn(request.client) if self.observer else nullcontext(_ignore)
        with observing as observe:
            async with aclosing(self._turn(request)) as events:
                async for event in events:
                    observe(event)
                    yield event

    async def _turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        session_id = await self._session_for(request)
        # Bounded work on what the user sent, in memory, before it is stored: fetching allowlisted image URLs
        # (the app fetches, never vLLM) and decoding. Every failure is kept and stored with the message.
        images = [*request.images, *await self._fetch_image_urls(request.image_urls)]
        prepared = await asyncio.to_thread(self._prepare_images, images)  # off the event loop
        image_error = next((p.error for p in prepared if p.error), None)
        problem = self._validate(request) or image_error

        # 1. Persist before anything can fail.
        user_id = await asyncio.to_thread(
            self.store.add_message,
            session_id,
            role="user",
            content=request.text,
            status="error" if problem else "complete",
            mode=request.mode,
            attachments=[p.attachment() for p in prepared],
            error=problem,
        )
        yield SessionReady(session_id, user_id)
        if problem:
            yield TurnDone("error", None, problem, kind="error", code="invalid_request")
            return

        # 2. Images are prepared above. A model that cannot see them gets a description, or a clear refusal.
        descriptions: list[str] = []
        if images and not self.profile.images:
            if not self.describe_images:
                message = "The served model cannot see images. Send text only, or serve a vision model."
                await self._store_answer_error(session_id, user_id, message, request)
                yield TurnDone("error", None, message, kind="error", code="images_not_supported")
                return
            descriptions = [
                describe_image(p.image.data, f"image {n}").text
                for n, p in enumerate(prepared, start=1)
                if p.image is not None
            ]
            yield Notice(
                "The served model cannot see images: it was given a short description of each "
                "(size, main colours, any QR code's text)."
            )

        # 3. Input rails: nothing reaches the model after a block.
        verdicts = await self.guard.check_input(
            _rail_text(request, descriptions), [u for u in request.image_urls if not u.startswith("data:")]
        )
        await self._store_rail_events(user_id, verdicts)
        block = next((v for v in verdicts if v.blocked), None)
        if block is not None:
            refusal = refusal_message(block)
            answer_id = await asyncio.to_thread(
                self.store.add_message,
                session_id,
                role="assistant",
                content=refusal,
                status="blocked",
                mode=request.mode,
                model=self.served_model,
                error=block.reason,
            )
            yield TurnDone("blocked", answer_id, refusal, kind="rail", rail=block)
            return

        # 4. Context within the token budget.
        max_model_len = await self._max_model_len()
        # Leave at least half the window for the conversation, whatever a client asks for.
        max_tokens = min(
            request.max_tokens or self.default_max_tokens, self.max_tokens_cap, max_model_len // 2
        )
        try:
            context = await self._build_context(session_id, max_model_len, max_tokens)
        except ContextTooLong as exc:
            await self._store_answer_error(session_id, user_id, str(exc), request)
            yield TurnDone("error", None, str(exc), kind="error", code="context_too_long")
            return
        yield ContextInfo(context.tokens, max_model_len, context.dropped)

        # 5-7. Stream, filter, persist.
        # aclosing: when the caller stops (UI stop button, API client gone) the inner stream is closed at
        # once, so the upstream request is cancelled and the answer stored as interrupted.
        async with aclosing(self._stream_answer(session_id, request, context, max_tokens)) as events:
            async for event in events:
                yield event

    # -- steps --------------------------------------------------------------------------------------------

    async def _session_for(self, request: TurnRequest) -> str:
        if request.session_id:
            info = await asyncio.to_thread(self.sessions.owned, request.owner, request.session_id)
            if info is None:
                raise InputError("That chat session does not exist.", code="session_not_found")
            return info.id
        first_text = request.history[0][1] if request.history else request.text
        title = (first_text.strip().splitlines() or ["Image chat"])[0][:80] or "Image chat"
        session_id = await asyncio.to_thread(
            self.store.create_session,
            owner=request.owner,
            client=request.client,
            model=self.served_model,
            title=title,
        )
        for role, content in request.history:
            await asyncio.to_thread(
                self.store.add_message, session_id, role=role, content=content, mode=request.mode
            )
        return session_id

    def _validate(self, request: TurnRequest) -> str | None:
        if not request.text.strip() and not request.images and not request.image_urls:
            return "Your message is empty. Type something or attach an image."
        if len(request.text) > self.max_message_chars:
            return (
                f"Your message is too long ({len(request.text):,} characters; the limit is "
                f"{self.max_message_chars:,}). Shorten it or split it into parts."
            )
        if (count := len(request.images) + len(request.image_urls)) > self.max_images:
            return f"Too many images ({count}); at most {self.max_images} per message."
        return None

    def _prepare_images(self, images: Sequence[ImageInput]) -> list[_PreparedInput]:
        results = []
        for image in images:
            if image.error:
                results.append(_PreparedInput(image, None, f"{image.name}: {image.error}"))
                continue
            try:
                prepared = prepare_image(
                    image.data,
                    max_pixels=self.profile.max_image_pixels,
                    max_bytes=self.max_image_bytes,
                    clahe=self.image_clahe,
                )
            except ImageError as exc:
                results.append(_PreparedInput(image, None, f"{image.name}: {exc}"))
                continue
            results.append(_PreparedInput(image, prepared, None))
        return results

    async def _build_context(self, session_id: str, max_model_len: int, max_tokens: int) -> ContextResult:
        builder = ContextBuilder(
            self._count_tokens,
            max_model_len=max_model_len,
            max_tokens=max_tokens,
            margin=self.context_margin,
            image_tokens=self.profile.image_tokens,
            image_cost=self.profile.image_cost,
        )
        history = await asyncio.to_thread(self.store.messages, session_id)
        return await builder.build(
            self.system_prompt, to_context_messages(history, images=self.profile.images)
        )

    async def _max_model_len(self) -> int:
        try:
            return await self.llm.max_model_len(self.served_model) or self.fallback_max_model_len
        except UpstreamError:
            return self.fallback_max_model_len

    async def _count_tokens(self, messages: list[dict[str, Any]]) -> int:
        return await self.llm.count_tokens(self.served_model, messages)

    async def _stream_answer(
        self, session_id: str, request: TurnRequest, context: ContextResult, max_tokens: int
    ) -> AsyncGenerator[TurnEvent, None]:
        sampling = self.profile.sampling_for(request.mode, request.sampling)
        answer_id = await asyncio.to_thread(
            self.store.add_message,
            session_id,
            role="assistant",
            content="",
            status="streaming",
            mode=request.mode,
            params={**sampling, "max_tokens": max_tokens},
            model=self.served_model,
        )
        await asyncio.to_thread(
            self.store.record_context,
            answer_id,
            context.message_ids,
            tokens=context.tokens,
            dropped=context.dropped,
        )
        answer = _Transcript()
        result = StreamResult()
        filt = self.guard.output_filter(user_text=request.text)
        verdicts: list[RailOutcome] = []  # stored together at the end: no extra writes on the streaming path
        started = time.monotonic()
        status: FinalStatus = "interrupted"  # what a cancelled or crashed stream is left as
        done: TurnDone | None = None
        stream = self.llm.stream_chat(
            self.served_model,
            context.messages,
            sampling=sampling,
            extra_body=self.profile.request_extras(request.mode),
            max_tokens=max_tokens,
            result=result,
        )
        try:
            async with aclosing(_filtered(stream, filt, answer, started)) as steps:
                async for step in steps:
                    for event in answer.release(step.released):
                        yield event
                    verdicts += step.events
                    if step.block is not None:
                        await stream.aclose()  # closes the HTTP stream: vLLM aborts the request at once
                        done = await self._blocked(answer_id, answer, step.block, started, verdicts)
                        yield Retract()
                        yield done
                        return
                    await self._maybe_checkpoint(answer_id, answer)
            status = "complete"
            done = self._done("complete", answer_id, answer, result, started)
        except UpstreamError as exc:
            status = "error"
            done = self._done(
                "error",
                answer_id,
                answer,
                result,
                started,
                message=exc.user_message,
                code=upstream_error_code(exc),
            )
        except Exception:  # never a 500 or a hang: the answer is stored as an error and the user told
            log.exception("turn failed", extra={"session_id": session_id, "answer_id": answer_id})
            status = "error"
            done = self._done(
                "error",
                answer_id,
                answer,
                result,
                started,
                message="Something went wrong while answering. The message is saved; try again.",
                code="internal_error",
            )
        finally:
            await stream.aclose()
            if done is None or done.status != "blocked":
                await asyncio.shield(self._store_rail_events(answer_id, verdicts))
                await asyncio.shield(
                    self._finish(
                        answer_id,
                        status,
                        answer,
                        result,
                        started,
                        error=done.message if done and status == "error" else None,
                    )
                )
        yield done

    # -- helpers ------------------------------------------------------------------------------------------

    async def _blocked(
        self,
        answer_id: int,
        answer: _Transcript,
        rail: RailOutcome,
        started: float,
        verdicts: list[RailOutcome],
    ) -> TurnDone:
        await self._store_rail_events(answer_id, verdicts if rail in verdicts else [*verdicts, rail])
        # The blocked text stays stored for reviewers; the chatter saw only what passed, now retracted.
        await asyncio.to_thread(
            self.store.finish_message,
            answer_id,
            status="blocked",
            content=answer.raw_answer,
            reasoning=answer.raw_reasoning,
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
        answer: _Transcript,
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
        answer_id: int,
        status: FinalStatus,
        answer: _Transcript,
        result: StreamResult,
        started: float,
        error: str | None,
    ) -> None:
        await asyncio.to_thread(
            self.store.finish_message,
            answer_id,
            status=status,
            content=answer.raw_answer,
            reasoning=answer.raw_reasoning,
            finish_reason=result.finish_reason,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            ttft_ms=answer.ttft_ms,
            duration_ms=(time.monotonic() - started) * 1000,
            error=error,
            shown_content=answer.shown_answer,
        )

    async def _maybe_checkpoint(self, answer_id: int, answer: _Transcript) -> None:
        now = time.monotonic()
        if now - answer.last_checkpoint >= self.checkpoint_interval_s:
            answer.last_checkpoint = now
            await asyncio.to_thread(
                self.store.checkpoint, answer_id, content=answer.raw_answer, reasoning=answer.raw_reasoning
            )

    async def _store_rail_events(self, message_id: int, outcomes: Sequence[RailOutcome]) -> None:
        outcomes = summarise_verdicts(outcomes)

        def write() -> None:
            for o in outcomes:
                self.store.add_rail_event(
                    message_id,
                    stage=o.stage,
                    rail=o.rail,
                    decision=o.decision,
                    reason=o.reason,
                    latency_ms=o.latency_ms,
                )

        if self.observer is not None:
            self.observer.rails(outcomes)
        if outcomes:
            await asyncio.to_thread(write)

    async def _fetch_image_urls(self, urls: Sequence[str]) -> list[ImageInput]:
        fetched = []
        for number, url in enumerate(urls, start=1):
            if not url.startswith("data:") and not self.guard.allows_url(url):
                continue  # never contacted; the input rail refuses it by name
            name = (
                f"image {number}" if url.startswith("data:") else url if len(url) <= 60 else url[:57] + "..."
            )
            try:
                data = (
                    decode_data_url(url)
                    if url.startswith("data:")
                    else await fetch_image(
                        url,
                        allows=self.guard.allows_url,
                        max_bytes=self.max_image_bytes,
                        timeout_s=10.0,
                    )
                )
            except ImageError as exc:
                fetched.append(ImageInput(b"", name=name, error=str(exc)))
                continue
            fetched.append(ImageInput(data, name=name))
        return fetched

    async def _store_answer_error(
        self, session_id: str, user_id: int, message: str, request: TurnRequest
    ) -> None:
        await asyncio.to_thread(
            self.store.add_message,
            session_id,
            role="assistant",
            content="",
            status="error",
            mode=request.mode,
            model=self.served_model,
            error=message,
        )


async def _filtered(
    stream: AsyncIterator[Delta], filt: OutputFilter, answer: _Transcript, started: float
) -> AsyncGenerator[FilterStep, None]:
    """The output rails' verdict on every delta as it arrives, then on what was still held back at the end."""
    async for delta in stream:
        answer.add(delta, started)
        yield await filt.feed(delta.kind, delta.text)
    yield await filt.flush()


@dataclass(frozen=True)
class _PreparedInput:
    """One image the user sent, and what the image step made of it (or why it refused it)."""

    source: ImageInput
    image: PreparedImage | None
    error: str | None

    def attachment(self) -> AttachmentIn:
        # Stored either way: a refused image is evidence too (its hash, size and the reason).
        if self.image is None:
            data = self.source.data
            return AttachmentIn(
                sha256=hashlib.sha256(data).hexdigest(),
                mime="",
                size=len(data),
                width=0,
                height=0,
                data=b"",
                thumbnail=None,
                error=self.error,
            )
        image = self.image
        return AttachmentIn(
            sha256=image.original_sha256,
            mime=image.mime,
            size=image.original_size,
            width=image.width,
            height=image.height,
            data=image.data,
            thumbnail=image.thumbnail,
        )


@dataclass
class _Transcript:
    """Raw text as generated (for reviewers) and the part that passed the output rails (for chatters)."""

    raw_answer: str = ""
    raw_reasoning: str = ""
    shown_answer: str = ""
    ttft_ms: float | None = None
    reasoning_started: float | None = None
    reasoning_ended: float | None = None
    last_checkpoint: float = 0.0

    def add(self, delta: Delta, started: float) -> None:
        now = time.monotonic()
        if self.ttft_ms is None:
            self.ttft_ms = (now - started) * 1000
        if delta.kind == "reasoning":
            self.raw_reasoning += delta.text
            self.reasoning_started = self.reasoning_started or now
            self.reasoning_ended = now
        else:
            self.raw_answer += delta.text

    @property
    def reasoning_s(self) -> float | None:
        if self.reasoning_started is None or self.reasoning_ended is None:
            return None
        return self.reasoning_ended - self.reasoning_started

    def release(self, released: Mapping[Channel, str]) -> list[TurnEvent]:
        events: list[TurnEvent] = []
        if released.get("reasoning"):
            events.append(ReasoningDelta(released["reasoning"]))
        if released.get("answer"):
            self.shown_answer += released["answer"]
            events.append(AnswerDelta(released["answer"]))
        return events


def _ignore(event: TurnEvent) -> None:
    pass


def upstream_error_code(exc: UpstreamError) -> str:
    if isinstance(exc, ImagesNotSupported):
        return "images_not_supported"
    if isinstance(exc, UpstreamUnavailable):
        return "upstream_unavailable"
    if exc.status is not None and 400 <= exc.status < 500:
        return "upstream_rejected"  # e.g. the conversation is too long for the model
    return "upstream_error"


def _rail_text(request: TurnRequest, descriptions: Sequence[str] = ()) -> str:
    """Everything the model will read: resent history, the new message, and image descriptions (QR text!)."""
    return "\n\n".join([*(content for _, content in request.history), request.text, *descriptions])


def summarise_verdicts(outcomes: Sequence[RailOutcome]) -> list[RailOutcome]:
    """One allow verdict per rail and stage (the chunks of a stream, counted and timed together); every block
    verdict as it was. Keeps the audit trail readable and the streaming path free of per-chunk writes."""
    blocks = [o for o in outcomes if o.blocked]
    allowed: dict[tuple[Stage, str], list[RailOutcome]] = {}
    for o in outcomes:
        if not o.blocked:
            allowed.setdefault((o.stage, o.rail), []).append(o)
    summaries = [
        group[0]
        if len(group) == 1
        else RailOutcome(
            stage,
            rail,
            "allow",
            f"{len(group)} chunks passed",
            sum(o.latency_ms for o in group),
        )
        for (stage, rail), group in allowed.items()
    ]
    return [*summaries, *blocks]
