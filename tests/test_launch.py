"""launch.py: argument handling, and attach mode started for real as a new user would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

from tests.support.paths import ROOT
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.threaded_server import free_port

sys.path.insert(0, str(ROOT))
import launch


def test_arguments_after_double_dash_go_to_vllm() -> None:
    args, passthrough = launch.parse_args(["--profile", "kimi-k2.5", "--", "--max-num-seqs", "8"])
    settings = launch.settings_from(args, passthrough)
    assert settings.profile_name == "kimi-k2.5"
    assert settings.vllm_args == ["--max-num-seqs", "8"]


def test_attach_mode_defaults_to_generic_profile() -> None:
    args, passthrough = launch.parse_args(["--llm-url", "http://127.0.0.1:9/v1"])
    settings = launch.settings_from(args, passthrough)
    assert settings.attach and settings.profile_name == "generic"


def test_attach_mode_serves_the_app_and_starts_no_vllm(upstream: ScriptedUpstream, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "RAILCHAT_DATA_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "launch.py", "--llm-url", upstream.base_url, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        health = _wait_for(f"http://127.0.0.1:{port}/healthz", proc)
        assert health == {"app": "ok", "upstream": "ok", "model": "scripted-model", "profile": "generic"}
        children = psutil.Process(proc.pid).children(recursive=True)
        assert not [c for c in children if "vllm" in " ".join(c.cmdline())]
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 200
        assert len(upstream.requests) == 1  # the warm-up request
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert "Attaching to" in output and "Starting vLLM" not in output


def _wait_for(url: str, proc: subprocess.Popen[str], timeout_s: float = 240) -> dict:
    # A guard against a hang, not a speed check (speed lives in bench/): on a busy 2-core machine the
    # app took up to 86 s to start while the moderation model warmed up beside it.
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"launch.py exited: {proc.stdout.read() if proc.stdout else ''}")
        try:
            response = httpx.get(url, timeout=2)
            if response.status_code == 200:
                return response.json()
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError("app did not come up")
