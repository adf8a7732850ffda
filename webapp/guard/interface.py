"""What the pipeline and the output filter may ask of the rails, and nothing more.

Two small protocols instead of one rail object that callers reach into: the output side (``StreamRails``)
and the whole of ``Rails`` for the pipeline. The output filter itself depends on no rail object:
``Rails.output_filter`` builds it with the checks it needs as plain callables. The NeMo Guardrails adapter
(``webapp.guard.rails.Guard``) implements both; a test or a benchmark can hand in anything that does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from webapp.guard.verdicts import RailOutcome

if TYPE_CHECKING:
    from webapp.guard.outputfilter import OutputFilter


class StreamRails(Protocol):
    """The output rails as the stream sees them."""

    async def check_output(self, answer: str, reasoning: str = "", user_text: str = "") -> list[RailOutcome]:
        """Every output rail over a whole answer, stopping at the first block."""
        ...

    @property
    def needs_whole_answer(self) -> bool:
        """True when a rail must see the complete answer (a model-based moderator), not only chunks."""
        ...


class Rails(StreamRails, Protocol):
    """The rails as the one-turn pipeline sees them."""

    async def check_input(self, text: str, image_urls: Sequence[str] = ()) -> list[RailOutcome]:
        """One outcome per rail that ran, in config order; the last one is the block, if any."""
        ...

    def allows_url(self, url: str) -> bool:
        """Whether the URL allowlist lets the app contact ``url`` (fetching an image a user linked)."""
        ...

    def output_filter(self, user_text: str = "") -> OutputFilter:
        """A new stateful filter for one streamed answer."""
        ...
