"""The vLLM process manager with a fake process, a fake health check and a fake clock: no vLLM, no sleeping."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from webapp.runtime.vllm_server import VLLMServer, VLLMStartError


class FakeChild:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.code: int | None = None
        self.signals: list[str] = []

    def poll(self) -> int | None:
        return self.code

    def terminate(self, grace_s: float) -> None:
        self.signals.append("term")
        if self.code is None:
            self.code = -15

    def kill(self) -> None:
        self.signals.append("kill")
        if self.code is None:
            self.code = -9


class Spawner:
    def __init__(self) -> None:
        self.children: list[FakeChild] = []

    def __call__(self, command: Sequence[str], env: dict[str, str], log_path: Path) -> FakeChild:
        child = FakeChild(1000 + len(self.children))
        self.children.append(child)
        return child


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def make_server(tmp_path: Path, spawner: Spawner, healthy: bool = True, clock: FakeClock | None = None):
    clock = clock or FakeClock()
    return VLLMServer(
        "model",
        served_model_name="model",
        port=9,
        log_path=tmp_path / "vllm.log",
        spawn=spawner,
        probe=lambda url: healthy,
        clock=clock,
        sleep=clock.sleep,
    )


def test_a_dead_vllm_is_restarted(tmp_path: Path) -> None:
    spawner = Spawner()
    server = make_server(tmp_path, spawner)
    server.start()
    assert server.check() is False  # alive: nothing to do
    spawner.children[0].code = 1
    messages: list[str] = []
    assert server.check(progress=messages.append) is True
    assert len(spawner.children) == 2 and server.is_running() and server.restarts == 1
    assert spawner.children[0].signals == ["kill"]  # leftover engine workers of the dead one are ended
    assert "exited (code 1)" in messages[0] and "back" in messages[-1]


def test_no_vllm_is_started_after_stop_began(tmp_path: Path) -> None:
    spawner = Spawner()
    server = make_server(tmp_path, spawner)
    server.start()
    spawner.children[0].code = 1

    def stop_while_reporting(message: str) -> None:
        # stop() arrives, from another thread, after the supervisor saw the crash and before it restarts.
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        stopper.join()

    assert server.check(progress=stop_while_reporting) is False
    assert len(spawner.children) == 1 and not server.is_running() and server.restarts == 0
    assert server.check() is False and len(spawner.children) == 1
    with pytest.raises(VLLMStartError):
        server.start()


def test_a_restart_that_won_the_race_is_stopped_by_stop(tmp_path: Path) -> None:
    spawner = Spawner()
    server = make_server(tmp_path, spawner)
    server.start()
    spawner.children[0].code = 1
    assert server.check() is True
    server.stop()
    assert [c.poll() for c in spawner.children] == [1, -15] and not server.is_running()


def test_stop_joins_the_supervisor_thread(tmp_path: Path) -> None:
    spawner = Spawner()
    server = make_server(tmp_path, spawner)
    server.start()
    watcher = server.supervise(interval_s=3600)  # would wait an hour; stop() wakes it
    assert watcher.is_alive()
    server.stop()
    assert not watcher.is_alive()
    assert spawner.children[0].signals == ["term"]


def test_end_supervision_leaves_vllm_running(tmp_path: Path) -> None:
    spawner = Spawner()
    server = make_server(tmp_path, spawner)
    server.start()
    watcher = server.supervise(interval_s=3600)
    server.end_supervision()
    watcher.join()
    assert server.is_running()
    server.stop()


def test_wait_ready_times_out_on_the_injected_clock(tmp_path: Path) -> None:
    spawner = Spawner()
    clock = FakeClock()
    server = make_server(tmp_path, spawner, healthy=False, clock=clock)
    server.start()
    with pytest.raises(VLLMStartError, match="did not become healthy in 30 s"):
        server.wait_ready(timeout_s=30)
    assert 30 < clock.now <= 31


def test_wait_ready_reports_a_vllm_that_exits_during_start_up(tmp_path: Path) -> None:
    spawner = Spawner()
    server = make_server(tmp_path, spawner, healthy=False)
    server.start()
    spawner.children[0].code = 2
    with pytest.raises(VLLMStartError, match="exited during start-up"):
        server.wait_ready()


def test_start_up_progress_shows_the_elapsed_time_and_never_a_cut_log_line(tmp_path: Path) -> None:
    spawner = Spawner()
    clock = FakeClock()
    server = make_server(tmp_path, spawner, healthy=False, clock=clock)
    server.start()
    with open(tmp_path / "vllm.log", "a") as log:
        log.write(
            "WARNING raise the fd limit to avoid fd limit errors like `OSError: [Errno 24] Too many open`\n"
        )
    lines: list[str] = []
    with pytest.raises(VLLMStartError):
        server.wait_ready(timeout_s=40, progress=lines.append)
    assert lines == ["  vLLM still starting (15 s)...", "  vLLM still starting (30 s)..."]
