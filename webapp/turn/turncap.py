"""How many API turns may run at once, per owner and in all.

A client that opens streamed answers and never reads them holds each turn for as long as it likes: its
upstream request (a slot of the model server), the pipeline and its buffers. Nothing else bounds how many
one client holds (the UI's turns wait in Gradio's queue; the API has none), so this count is what keeps one
API key from taking the model server and the app's memory from everyone else.

An admission (admission.py): the user's message is stored before it is asked, and a refused turn keeps its
message with the refusal as the answer. Counted in this process, as a turn lives in it: a crash or a restart
leaves nothing held.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from webapp.store.records import Client
from webapp.turn.admission import Refused
from webapp.turn.events import TurnRequest

RETRY_S = 5  # a held turn ends when its client reads or leaves: a short wait is the useful advice


@dataclass
class TurnCap:
    total: int
    per_owner: int | None  # None: one owner (the open loopback API), so only the total counts and is named
    clients: frozenset[Client] = frozenset({"api"})  # the UI's turns wait in Gradio's queue instead
    running: Counter[str] = field(default_factory=Counter, init=False)

    @asynccontextmanager
    async def __call__(self, request: TurnRequest) -> AsyncIterator[None]:
        if request.client not in self.clients:
            yield
            return
        self._take(request.owner)  # no await between the count and the take: no race on one event loop
        try:
            yield
        finally:
            self.running[request.owner] -= 1
            if self.running[request.owner] <= 0:
                del self.running[request.owner]  # owners come and go: keep only those holding a turn

    def _take(self, owner: str) -> None:
        if self.per_owner is not None and self.running[owner] >= self.per_owner:
            raise Refused(
                f"Too many answers in progress for this API key (at most {self.per_owner} at once): "
                "read or close one, then retry.",
                "too_many_turns",
                RETRY_S,
            )
        if self.running.total() >= self.total:
            raise Refused(
                f"The server is answering its most API requests at once ({self.total}). Retry shortly.",
                "server_busy",
                RETRY_S,
            )
        self.running[owner] += 1
