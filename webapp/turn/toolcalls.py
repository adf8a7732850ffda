"""Tool calls as they stream: fragments collected per call, each call handed on only once it is complete.

The output rails must judge a call whole (a URL can be split over fragments), and the client must see
nothing of a call that is blocked, so no fragment is passed on before its call is complete: its arguments
parse as JSON, the next call has begun, or the stream has ended. What a model adds to a call after that
(it should not) is judged again with the whole call and handed on as one more fragment.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from webapp.guard.toolcalls import check_tool_call
from webapp.guard.verdicts import RailOutcome
from webapp.turn.events import ToolCallDelta
from webapp.upstream.client import Delta

if TYPE_CHECKING:
    from webapp.guard.interface import StreamRails


@dataclass
class ToolCall:
    index: int
    call_id: str
    name: str
    arguments: str = ""
    handed_on: bool = False  # the client has seen this call (its id and name)
    released: int = 0  # how much of `arguments` the client has been given

    def openai(self) -> dict[str, Any]:
        """The call in OpenAI's message shape, as stored and as sent back to the model."""
        return {
            "id": self.call_id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @property
    def complete(self) -> bool:
        try:
            json.loads(self.arguments)
        except (ValueError, RecursionError):
            return False
        return True


@dataclass(frozen=True)
class ReadyCall:
    """A complete call (or what was added to a released one) that may now be judged and handed on."""

    call: ToolCall
    fragment: str  # the part of the arguments not yet handed on
    first: bool  # the client has not seen this call yet (send id and name with it)


class ToolCallAssembler:
    def __init__(self) -> None:
        self.calls: dict[int, ToolCall] = {}

    def add(self, delta: Delta) -> list[ReadyCall]:
        """Take one fragment; return the calls that became complete with it."""
        ready = [self._ready(c) for c in self.calls.values() if c.index != delta.index and self._pending(c)]
        call = self.calls.get(delta.index)
        if call is None:
            call = ToolCall(delta.index, delta.call_id or f"call_{uuid.uuid4().hex[:24]}", delta.name or "")
            self.calls[delta.index] = call
        elif delta.name and not call.name:
            call.name = delta.name
        call.arguments += delta.text
        if call.complete and self._pending(call):
            ready.append(self._ready(call))
        return ready

    def finish(self) -> list[ReadyCall]:
        """End of the stream: every call not yet handed on is as complete as it will get."""
        return [self._ready(c) for c in self.calls.values() if self._pending(c)]

    def openai(self) -> list[dict[str, Any]]:
        return [self.calls[i].openai() for i in sorted(self.calls)]

    @staticmethod
    def _pending(call: ToolCall) -> bool:
        return not call.handed_on or call.released < len(call.arguments)

    @staticmethod
    def _ready(call: ToolCall) -> ReadyCall:
        ready = ReadyCall(call, call.arguments[call.released :], first=not call.handed_on)
        call.handed_on, call.released = True, len(call.arguments)
        return ready


@dataclass
class GateStep:
    """What one tool-call fragment (or the end of the stream) let through: like the output filter's step."""

    released: list[ToolCallDelta] = field(default_factory=list)
    events: list[RailOutcome] = field(default_factory=list)
    block: RailOutcome | None = None


class ToolCallGate:
    """Tool calls through the output rails: each call is judged whole before any of it is handed on."""

    def __init__(
        self, rails: StreamRails, user_text: str = "", assembler: ToolCallAssembler | None = None
    ) -> None:
        self.rails = rails
        self.user_text = user_text
        self.assembler = assembler if assembler is not None else ToolCallAssembler()

    async def feed(self, delta: Delta) -> GateStep:
        return await self._judge(self.assembler.add(delta))

    async def flush(self) -> GateStep:
        return await self._judge(self.assembler.finish())

    async def _judge(self, ready: list[ReadyCall]) -> GateStep:
        step = GateStep()
        for item in ready:
            verdicts = await check_tool_call(self.rails, item.call.name, item.call.arguments, self.user_text)
            step.events += verdicts
            step.block = next((v for v in verdicts if v.blocked), None)
            if step.block is not None:
                return step
            call = item.call
            step.released.append(
                ToolCallDelta(call.index, call.call_id, call.name, item.fragment, item.first)
            )
        return step
