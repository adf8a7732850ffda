"""The moderation embedder runs in ONNX Runtime, which (1.29 and later) uploads telemetry from Linux as well
unless told not to before its first session. Nothing may leave the machine that nobody asked for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.egress import EgressLog
from tests.support.paths import ROOT

CHILD = """
import os, time
os.environ.pop("ORT_DISABLE_TELEMETRY", None)
from webapp.guard.moderation.embedder import MiniLMEncoder
MiniLMEncoder.from_packages().encode(["a sentence to embed"])
time.sleep(15)  # without the opt-out, ONNX Runtime asked the proxy to reach Microsoft ~8 s after its session
"""


def test_embedding_a_sentence_sends_nothing_off_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORT_DISABLE_TELEMETRY", raising=False)
    with EgressLog().install(monkeypatch) as egress:
        subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, check=True, timeout=180)
    assert egress.attempts == []
