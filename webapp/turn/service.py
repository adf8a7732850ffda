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
import functools
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import AsyncExitStack, aclosing, nullcontext
from dataclasses import dataclass, replace
from typing import Any

from webapp.guard.interface import Rails
from webapp.guard.verdicts import RailOutcome, refusal_message, summarise_verdicts
from webapp.media.describe import describe_image
from webapp.store import MessageInfo, Store
from webapp.turn.admission import Admission, Refused
from webapp.turn.answer import AnswerStep, rail_events
from webapp.turn.checkpoints import Checkpoints
from webapp.turn.context import ContextBuilder, ContextResult, ContextTooLong
from webapp.turn.events import (
    ContextInfo,
    ImageInput,
    InputError,
    Notice,
    SessionReady,
    TurnDone,
    TurnEvent,
    TurnObserver,
    TurnRequest,
)
from webapp.turn.inputs import (
    check_history_size,
    check_tool_results,
    input_problem,
    rail_text,
    storable_request,
    store_history,
    store_input_and_read,
    system_prompt_for,
)
from webapp.turn.intake import ImageWorkers, PreparedInput, fetch_image_urls, problem_code
from webapp.turn.options import TurnOptions
from webapp.turn.prompt import to_context_messages
from webapp.turn.recheck import input_ids, recheck_history, usable_history
from webapp.turn.sessions import ChatSessions
from webapp.upstream.client import LLMClient, UpstreamError
from webapp.upstream.profiles import Profile

StoredInput = tuple[int, list[MessageInfo]]  # the user's message id, and the transcript read back with it
StoreFirst = Callable[[str], StoredInput]  # stores the user's message in a session (in the store's thread)

# ---- the pipeline --------------------------------------------------------------------------------------


@dataclass(kw_only=True)
class ChatService:
    store: Store
    guard: Rails
    llm: LLMClient
    profile: Profile
    served_model: str
    options: TurnOptions  # limits and switches, from Settings
    observer: TurnObserver | None = None  # metrics; sees every event and every rail verdict
    admission: Admission | None = None  # demo limits: asked once the user's message is stored

    @functools.cached_property
    def _checkpoints(self) -> Checkpoints:
        return Checkpoints(self.store, self.options.checkpoint_interval_s)

    @property
    def sessions(self) -> ChatSessions:
        """The owner's own sessions (list, reopen, delete), owner-checked in one place."""
        return ChatSessions(self.store)

    async def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        observing = self.observer.turn(request.client) if self.observer else nullcontext(_ignore)
        # `held` keeps what the admission lends the turn (a running slot) until the turn has ended.
        async with AsyncExitStack() as held:
            with observing as observe:
                async with aclosing(self._turn(request, held)) as events:
                    async for event in events:
                        observe(event)
                        yield event

    async def _turn(self, request: TurnRequest, held: AsyncExitStack) -> AsyncGenerator[TurnEvent, None]:
        check_history_size(request, self.options.max_message_chars)
        # Lone UTF-16 surrogates ("\ud800" in JSON) cannot be stored or sent: the message is kept with
        # U+FFFD in their place, and refused with a clear error.
        request, garbled = storable_request(request)
        # 1-2. Persist before anything can fail: the text first, then the images once fetched and prepared
        # (a new chat's text in the same thread hand-off as the chat). Retry answers the newest stored
        # message again instead: nothing new is stored for the user.
        text_only = not (request.retry or request.images or request.image_urls)
        problem = self._problem(request, garbled) if text_only else None
        store_first = functools.partial(store_input_and_read, self.store, request=request, problem=problem)
        first = store_first if text_only else None
        session_id, history_block, stored_input = await self._session_for(request, first)
        prepared: list[PreparedInput] = []
        transcript: list[MessageInfo] | None = None
        if stored_input is not None:
            user_id, transcript = stored_input
        elif request.retry:
            request, user_id, prepared = await self._stored_user_message(session_id, request)
        else:
            user_id, problem, prepared = await self._store_user_message(session_id, request, garbled)
        yield SessionReady(session_id, user_id)
        if problem:
            yield TurnDone("error", None, problem, kind="error", code=problem_code(problem, prepared))
            return
        refused = await self._admit(request, held)
        if refused is not None:
            await self._store_answer_error(session_id, user_id, str(refused), request)
            yield refused.done()
            return

        # 2. Images are prepared above. A model that cannot see them gets a description, or a clear refusal.
        descriptions: list[str] = []
        if prepared and not self.profile.images:
            if not self.options.describe_images:
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
                "(size, main colours, any QR code's text).",
                code="images_described",
            )

        # 3. Input rails: nothing reaches the model after a block. The new input is judged as new; stored
        # history the model would read is judged again (recheck.py), and what fails now is left out.
        verdicts = await self.guard.check_input(
            rail_text(request, descriptions, self.options.client_system_prompts),
            [u for u in request.image_urls if not u.startswith("data:")],
        )
        if history_block is not None:
            verdicts.append(history_block)
        self._store_verdicts(user_id, verdicts, held)
        # read once, for the recheck and the context: as it stood when the user's message was stored
        stored = (
            transcript if transcript is not None else await asyncio.to_thread(self.store.messages, session_id)
        )
        new = input_ids(stored, user_id, len(request.tool_results))
        rechecked = await recheck_history(self.guard, self.store, stored, new=new, images=self.profile.images)
        if rechecked.notice is not None:
            yield rechecked.notice
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
            request.max_tokens or self.options.default_max_tokens,
            self.options.max_tokens_cap,
            max_model_len // 2,
        )
        try:
            context = await self._build_context(
                stored, request, max_model_len, max_tokens, rechecked.left_out
            )
        except ContextTooLong as exc:
            await self._store_answer_error(session_id, user_id, str(exc), request)
            yield TurnDone("error", None, str(exc), kind="error", code="context_too_long")
            return
        yield ContextInfo(
            context.tokens, max_model_len, context.dropped, budget=context.budget, at_most=context.bounded
        )

        # 5-7. Stream, filter, persist.
        # aclosing: when the caller stops (UI stop button, API client gone) the inner stream is closed at
        # once, so the upstream request is cancelled and the answer stored as interrupted.
        answer = AnswerStep(
            store=self.store,
            llm=self.llm,
            guard=self.guard,
            profile=self.profile,
            served_model=self.served_model,
            checkpoints=self._checkpoints,
            observe_verdicts=self.observer.rails if self.observer is not None else _ignore_verdicts,
        )
        async with aclosing(answer.stream(session_id, request, context, max_tokens)) as events:
            async for event in events:
                yield event

    # -- steps --------------------------------------------------------------------------------------------

    async def _admit(self, request: TurnRequest, held: AsyncExitStack) -> Refused | None:
        if self.admission is None:
            return None
        try:
            await held.enter_async_context(self.admission(request))
        except Refused as refused:
            return refused
        return None

    async def _store_user_message(
        self, session_id: str, request: TurnRequest, garbled: bool = False
    ) -> tuple[int, str | None, list[PreparedInput]]:
        """Store what the user sent with images (text alone is stored by ``_session_for``); returns its id, what
        is wrong with it (if anything) and its images. The text is stored first (pending), then the images are
        attached with the final status: a failure or a cancellation while fetching or decoding loses nothing."""
        problem = self._problem(request, garbled)
        store_user = functools.partial(
            self.store.add_message, session_id, role="user", content=request.text, mode=request.mode
        )
        user_id = await asyncio.to_thread(store_user, status="streaming")
        try:
            prepared = await self._intake(request)
        except BaseException:
            await asyncio.shield(
                asyncio.to_thread(
                    self.store.finish_user_message,
                    user_id,
                    attachments=(),
                    status="interrupted",
                    error="the message's images were not processed",
                )
            )
            raise
        problem = problem or next((p.error for p in prepared if p.error), None)
        await asyncio.to_thread(
            self.store.finish_user_message,
            user_id,
            attachments=[p.attachment() for p in prepared],
            status="error" if problem else "complete",
            error=problem,
        )
        return user_id, problem, prepared

    def _problem(self, request: TurnRequest, garbled: bool) -> str | None:
        return input_problem(request, garbled, self.options.max_message_chars, self.options.max_images)

    async def _stored_user_message(
        self, session_id: str, request: TurnRequest
    ) -> tuple[TurnRequest, int, list[PreparedInput]]:
        """Retry: the newest message of the session as stored (text and images), to be answered again."""
        last = await asyncio.to_thread(self.sessions.last_user_message, request.owner, session_id)
        if last is None:
            raise InputError("Nothing to retry yet: send a message first.", code="nothing_to_retry")
        if last.status != "complete":
            raise InputError(last.error or "That message cannot be sent again.", code="invalid_request")
        usable = [a for a in last.attachments if a.data and not a.error]
        images = [ImageInput(a.data, name=f"image {n}") for n, a in enumerate(usable, start=1)]
        prepared = await self._prepare(images)
        return replace(request, text=last.content, images=images, image_urls=()), last.id, prepared

    async def _intake(self, request: TurnRequest) -> list[PreparedInput]:
        """Fetch allowlisted image URLs (the app fetches, never vLLM), then verify and prepare every image."""
        fetched = await fetch_image_urls(
            request.image_urls, allows=self.guard.allows_url, max_bytes=self.options.max_image_bytes
        )
        return await self._prepare([*request.images, *fetched])

    @functools.cached_property
    def _prepare(self) -> ImageWorkers:
        options = self.options
        pixels = self.profile.max_image_pixels
        return ImageWorkers(options.image_workers, pixels, options.max_image_bytes, options.image_clahe)

    async def _session_for(
        self, request: TurnRequest, first: StoreFirst | None = None
    ) -> tuple[str, RailOutcome | None, StoredInput | None]:
        """The session to continue, or a new one holding the client's resent history; and, stored by
        ``first`` in the same thread hand-off, the user's message with the transcript read back (the third
        value: every wait before the first word counts). Resent history passes the input rails before it is
        stored: if they block it, it is stored as blocked (reviewers see it, the model never does) and the turn
        is refused with that verdict."""
        if request.retry and not request.session_id:
            raise InputError("Nothing to retry yet: send a message first.", code="nothing_to_retry")
        if request.session_id:
            return await asyncio.to_thread(self._continue_session, request, request.session_id, first)
        history_block = None
        if request.history:
            resent = "\n\n".join(m.content for m in request.history if m.content)
            verdicts = await self.guard.check_input(resent)
            history_block = next((v for v in verdicts if v.blocked), None)
        first_text = request.history[0].content if request.history else request.text
        fallback = "Image chat" if request.images or request.image_urls else "Untitled"
        title = (first_text.strip().splitlines() or [fallback])[0][:80] or fallback

        def create() -> tuple[str, RailOutcome | None, StoredInput | None]:
            session_id = self.store.create_session(
                owner=request.owner, client=request.client, model=self.served_model, title=title
            )
            store_history(self.store, session_id, request, blocked=history_block)
            return session_id, history_block, first(session_id) if first is not None else None

        return await asyncio.to_thread(create)

    def _continue_session(
        self, request: TurnRequest, session_id: str, first: StoreFirst | None
    ) -> tuple[str, None, StoredInput | None]:
        """The owner's session, with ``first`` stored in it (blocking: one thread hand-off)."""
        info = self.sessions.owned(request.owner, session_id)
        if info is None:
            raise InputError("That chat session does not exist.", code="session_not_found")
        if request.tool_results:
            check_tool_results(request, self.store.messages(info.id))
        return info.id, None, first(info.id) if first is not None else None

    async def _build_context(
        self,
        history: Sequence[MessageInfo],
        request: TurnRequest,
        max_model_len: int,
        max_tokens: int,
        left_out: frozenset[int],
    ) -> ContextResult:
        builder = ContextBuilder(
            self._count_tokens,
            max_model_len=max_model_len,
            max_tokens=max_tokens,
            margin=self.options.context_margin,
            upper_bound=self.options.tokenize_near_limit_only,
            image_tokens=self.profile.image_tokens,
            image_cost=self.profile.image_cost,
        )
        return await builder.build(
            system_prompt_for(self.options.system_prompt, request, self.options.client_system_prompts),
            to_context_messages(usable_history(history, left_out), images=self.profile.images),
        )

    async def _max_model_len(self) -> int:
        try:
            return await self.llm.max_model_len(self.served_model) or self.options.fallback_max_model_len
        except UpstreamError:
            return self.options.fallback_max_model_len

    async def _count_tokens(self, messages: list[dict[str, Any]]) -> int:
        return await self.llm.count_tokens(self.served_model, messages)

    def _store_verdicts(self, message_id: int, outcomes: Sequence[RailOutcome], held: AsyncExitStack) -> None:
        """The input's verdicts, told to the metrics now and stored behind the turn: the rest of the turn
        (the context, the model's request) need not wait for their write, and the turn ends, however it
        ends, only once they are stored (shielded: a client that left does not cut an audit record)."""
        outcomes = summarise_verdicts(outcomes)
        if self.observer is not None:
            self.observer.rails(outcomes)
        written = asyncio.ensure_future(
            asyncio.to_thread(self.store.add_rail_events, message_id, rail_events(outcomes))
        )
        held.push_async_callback(asyncio.shield, written)

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


def _ignore(event: TurnEvent) -> None:
    pass


def _ignore_verdicts(outcomes: Sequence[RailOutcome]) -> None:
    pass
