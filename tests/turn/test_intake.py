"""Images are prepared on a few threads of their own, shared by every turn: decoding the largest image allowed
takes over 500 MB for a moment, so how many are decoded at once is what bounds the memory uploads can take."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.support.review_data import png
from tests.support.service import make_service
from webapp.media.images import PreparedImage
from webapp.turn import intake
from webapp.turn.events import ImageInput, TurnRequest


class CountingPrepare:
    """Stands in for the decoder: records each call's thread and how many ran at once. Each call waits until a
    second one has arrived (or a short while), so calls that could overlap do overlap."""

    def __init__(self, real: object) -> None:
        self.real = real
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.threads: set[str] = set()
        self.arrived = threading.Event()

    def __call__(self, raw: bytes, **limits: object) -> PreparedImage:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.threads.add(threading.current_thread().name)
            if self.running > 1:
                self.arrived.set()
        self.arrived.wait(timeout=0.2)
        try:
            return self.real(raw, **limits)  # type: ignore[operator]
        finally:
            with self.lock:
                self.running -= 1


@pytest.mark.parametrize("workers", [1, 2])
async def test_images_are_decoded_only_on_the_image_workers_and_never_more_at_once(
    store, guard, upstream, monkeypatch, workers: int
) -> None:
    counting = CountingPrepare(intake.prepare_image)
    monkeypatch.setattr(intake, "prepare_image", counting)
    service = make_service(store, guard, upstream, image_workers=workers)
    picture = ImageInput(png("red", (16, 16)), "red.png")

    async def turn() -> None:
        request = TurnRequest(owner="alice", text="What is this?", images=[picture])
        async for _ in service.run_turn(request):
            pass

    await asyncio.gather(*(turn() for _ in range(4)))
    assert counting.most == workers
    assert len(counting.threads) == workers
    assert all(name.startswith("images") for name in counting.threads)
