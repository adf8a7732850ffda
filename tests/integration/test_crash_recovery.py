"""The whole app killed mid-stream (SIGKILL, no clean-up), then restarted: nothing the user sent is lost and the
cut answer is marked interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.support.threaded_server import free_port
from tests.test_launch import ROOT, _wait_for
from webapp.store import Store


def start_app(upstream: ScriptedUpstream, data_dir: Path, port: int) -> subprocess.Popen[str]:
    env = {**os.environ, "RAILCHAT_DATA_DIR": str(data_dir), "RAILCHAT_CHECKPOINT_INTERVAL_S": "0.2"}
    return subprocess.Popen(
        [sys.executable, "launch.py", "--llm-url", upstream.base_url, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_app_killed_mid_stream_then_restarted_marks_the_answer_interrupted(
    upstream: ScriptedUpstream, tmp_path: Path
) -> None:
    port = free_port()
    app = start_app(upstream, tmp_path, port)
    _wait_for(f"http://127.0.0.1:{port}/healthz", app)
    upstream.push(Script(answer=["Once upon a time. "], endless=True, delay_s=0.02))
    received: list[str] = []

    def chat() -> None:
        body = {
            "model": "m",
            "stream": True,
            "messages": [{"role": "user", "content": "Tell me a long story"}],
        }
        try:
            with httpx.stream(
                "POST", f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=30
            ) as r:
                for line in r.iter_lines():
                    received.append(line)
        except httpx.HTTPError:
            pass  # the server dies under us: expected

    client = threading.Thread(target=chat, daemon=True)
    client.start()
    deadline = time.monotonic() + 20
    while sum(line.startswith("data:") for line in received) < 4:  # several chunks shown, checkpoints written
        assert time.monotonic() < deadline, received[-3:]
        time.sleep(0.1)
    time.sleep(0.5)
    app.send_signal(signal.SIGKILL)
    app.wait(10)
    client.join(10)

    db = f"sqlite:///{tmp_path / 'railchat.db'}"
    before = Store(db).list_sessions(include_deleted=True)
    assert [m.status for m in Store(db).messages(before[0].id)] == ["complete", "streaming"]

    app = start_app(upstream, tmp_path, port)
    try:
        _wait_for(f"http://127.0.0.1:{port}/healthz", app)
    finally:
        app.send_signal(signal.SIGTERM)
        app.communicate(timeout=30)
    messages = Store(db).messages(before[0].id)
    assert messages[0].role == "user" and messages[0].content == "Tell me a long story"
    assert messages[1].status == "interrupted"
    assert "Once upon a time." in messages[1].content  # the checkpointed part is kept
