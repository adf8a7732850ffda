"""Checks that may embed run off the event loop's thread, release nothing before their verdict, and leave no
work behind a cancelled turn."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from webapp.guard.moderation.embedder import CachedEncoder, EmbeddingNeeded, shared_encoder
from webapp.guard.offload import Offload
from webapp.guard.outputfilter import OutputFilter
from webapp.guard.verdicts import RailOutcome


class _RecordingEncoder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.threads: list[int] = []

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        self.threads.append(threading.get_ident())
        return self.inner.encode(sentences)


async def test_the_guard_embeds_sentences_off_the_event_loop(
    guard: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard.checks.moderator.wait_ready(120)
    cached = shared_encoder()
    recording = _RecordingEncoder(cached._encoder)
    monkeypatch.setattr(cached, "_encoder", recording)
    moderator = guard.checks.moderator
    checked_on: set[int] = set()

    def check(*args: Any, **kwargs: Any) -> Any:
        checked_on.add(threading.get_ident())
        return type(moderator).check(moderator, *args, **kwargs)

    monkeypatch.setattr(moderator, "check", check)
    text = (
        "People in the harbour town of Quillomere mend their nets at dawn and sell the catch by noon. "
        "They say the tides of Quillomere keep the old stone pier alive in winter. You will like it"
    )
    filt = guard.output_filter()
    released = ""
    for piece in re.findall(r"\S+\s*", text):
        step = await filt.feed("answer", piece)
        assert step.block is None
        released += step.released.get("answer", "")
    released += (await filt.flush()).released.get("answer", "")
    assert released == text
    assert recording.threads, "the new sentences were embedded"
    assert threading.get_ident() not in recording.threads
    # The rules hold the GIL: in a worker they would make the loop wait for them. Only the model run moves.
    assert checked_on == {threading.get_ident()}


async def test_a_check_runs_in_line_and_asks_again_once_its_sentences_were_embedded_elsewhere() -> None:
    inner = _RecordingEncoder(_OneHot())
    cached = CachedEncoder(inner)
    runs: list[tuple[int, bool]] = []

    def check(text: str) -> str:
        try:
            cached.encode([text])
        except EmbeddingNeeded:
            runs.append((threading.get_ident(), False))
            raise
        runs.append((threading.get_ident(), True))
        return "verdict"

    offload = Offload()
    try:
        assert await offload.check_embedding_elsewhere(check, "a new sentence") == "verdict"
    finally:
        offload.close()
    here = threading.get_ident()
    assert runs == [(here, False), (here, True)]
    assert len(inner.threads) == 1 and inner.threads[0] != here
    assert cached.encode(["a new sentence"]).shape == (1, 384)  # remembered: no second model run
    assert len(inner.threads) == 1


class _OneHot:
    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        return np.eye(len(sentences), 384, dtype=np.float32)


def _allow(text: str) -> RailOutcome:
    return RailOutcome("output", "moderation", "allow", "", 0.0)


async def test_a_closing_check_runs_elsewhere_and_its_piece_waits_for_the_verdict() -> None:
    verdicts: asyncio.Queue[RailOutcome] = asyncio.Queue()
    sent: list[str] = []

    async def offload(moderate: Any, text: str) -> RailOutcome:
        sent.append(text)
        return await verdicts.get()

    filt = OutputFilter(url_policy=None, moderate=_allow, offload=offload)
    assert (await filt.feed("answer", "Some words ")).released == {"answer": "Some words "}  # in line
    feeding = asyncio.create_task(filt.feed("answer", "end here. "))
    for _ in range(10):
        await asyncio.sleep(0)
    assert sent == ["Some words end here. "] and not feeding.done()
    await verdicts.put(RailOutcome("output", "moderation", "block", "no", 0.0))
    step = await feeding
    assert step.block is not None and not step.released


async def test_a_cancelled_caller_waits_for_its_running_job_and_withdraws_a_queued_one() -> None:
    offload = Offload()
    gate, started, finished = threading.Event(), threading.Event(), []

    def running() -> str:
        started.set()
        gate.wait(30)
        finished.append("running")
        return "done"

    def queued() -> str:
        finished.append("queued")
        return "done"

    first = asyncio.create_task(offload.run(running))
    await asyncio.to_thread(started.wait, 30)
    second = asyncio.create_task(offload.run(queued))
    for _ in range(5):
        await asyncio.sleep(0)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    first.cancel()
    for _ in range(5):
        await asyncio.sleep(0)
    assert not first.done()  # still waiting for the job it started
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert finished == ["running"]  # it ended before the cancellation did; the queued one never ran
    offload.close()
