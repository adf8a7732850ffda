"""The seam where a deployment decides whether a turn may run now (demo limits, quotas, a busy server).

ChatService asks it right after the user's message is stored, so a refused message is never lost: the
visitor sees why and when to retry, and reviewers see the message with the refusal stored as its answer.
An admission is an async context manager so it can also hold something for the whole turn (a slot
among the turns running at once) and give it back however the turn ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from webapp.turn.events import InputError, TurnDone, TurnRequest


class Refused(InputError):
    """Not now: a message for the user, a code for the API, and when to retry (None: do not)."""

    def __init__(self, message: str, code: str, retry_after_s: int | None = None) -> None:
        super().__init__(message, code=code)
        self.retry_after_s = retry_after_s

    def done(self) -> TurnDone:
        """The turn's end: an error with the refusal's message, code and when to retry."""
        return TurnDone(
            "error", None, str(self), kind="error", code=self.code, retry_after_s=self.retry_after_s
        )


class Admission(Protocol):
    def __call__(self, request: TurnRequest) -> AbstractAsyncContextManager[None]:
        """Enter before the turn runs (raise Refused to refuse it); exit when it has ended."""
        ...


@dataclass(frozen=True)
class Both:
    """Two admissions, the first asked first: a turn runs only if both let it, and holds both until it ends."""

    first: Admission
    then: Admission

    @asynccontextmanager
    async def __call__(self, request: TurnRequest) -> AsyncIterator[None]:
        async with self.first(request), self.then(request):
            yield


def chain(first: Admission | None, then: Admission) -> Admission:
    """``then`` after whatever admission is installed already (None: none yet)."""
    return then if first is None else Both(first, then)
