"""Start railchat: co-launch vLLM (or attach to a running server) and serve the guarded chat app.

`python launch.py` in a source checkout, the `railchat` command when installed; the same flags either way.

python launch.py                                  # the embedded default model (SmolLM2, from a PyPI wheel)
python launch.py --profile kimi-k2.5              # Kimi K2.5 on 8 GPUs
python launch.py --llm-url http://127.0.0.1:8000/v1   # attach to an existing OpenAI-compatible server
python launch.py -- --max-num-seqs 8              # anything after -- goes to `vllm serve` unchanged
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from webapp.config import Settings, load_settings
from webapp.runtime.gil import set_switch_interval
from webapp.runtime.memory import tune_allocator
from webapp.upstream.profiles import PROFILES, Profile, get_profile

if TYPE_CHECKING:
    from webapp.runtime.vllm_server import VLLMServer


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    passthrough: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1 :]
    return build_parser().parse_args(argv), passthrough


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="launch.py", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        help="model profile (default: smollm2-cpu, the embedded model; generic when attaching)",
    )
    p.add_argument("--model", help="model id or path; overrides the profile's model")
    p.add_argument("--tensor-parallel-size", type=int)
    p.add_argument("--llm-url", help="attach to this OpenAI base URL (including /v1); no co-launch")
    p.add_argument("--llm-api-key")
    p.add_argument("--served-model", help="model name on the server (default: first id from /v1/models)")
    p.add_argument("--vllm-port", type=int, help="port for the co-launched vLLM (default 8000)")
    p.add_argument("--host")
    p.add_argument("--port", type=int)
    p.add_argument("--db", help="SQLAlchemy URL (default sqlite:///<data dir>/railchat.db)")
    p.add_argument("--rails", type=Path, help="NeMo Guardrails config folder (default rails/)")
    p.add_argument("--auth-file", type=Path)
    p.add_argument("--share", action="store_true", default=None)
    p.add_argument("--demo", action="store_true", default=None)
    p.add_argument(
        "--invite-only", action="store_true", default=None, help="demo: visitors need an invite link"
    )
    p.add_argument("--config", type=Path, help="TOML settings file")
    p.add_argument("--data-dir", type=Path)
    return p


def settings_from(args: argparse.Namespace, passthrough: list[str]) -> Settings:
    flags = {k: v for k, v in vars(args).items() if k != "config"}
    if passthrough:
        flags["vllm_args"] = passthrough
    return load_settings(args.config, **flags)


def say(message: str) -> None:
    print(f"[railchat {time.strftime('%H:%M:%S')}] {message}", flush=True)


def colaunch(settings: Settings, profile: Profile) -> VLLMServer:
    from webapp.runtime.vllm_server import VLLMServer, has_nvidia_gpu

    model = settings.model or profile.model
    args = profile.vllm_serve_args(model, settings.tensor_parallel_size)[1:] + settings.vllm_args
    if profile.embedded and not settings.model:
        # The embedded default, on any machine: it comes from a PyPI wheel, never from a model hub.
        from webapp.runtime.modelprep import prepare_embedded_model

        model = str(prepare_embedded_model(settings.models_dir, progress=say))
    elif profile.tensor_parallel_size > 1 and not has_nvidia_gpu():
        say(
            f"warning: profile {profile.name} expects {profile.tensor_parallel_size} GPUs and none is visible."
        )
    served_name = Path(model).name if Path(model).exists() else model
    server = VLLMServer(
        model,
        args,
        served_model_name=served_name,
        port=settings.vllm_port,
        log_path=settings.data_dir / "logs" / "vllm.log",
    )
    say(f"Starting vLLM for {served_name} on port {settings.vllm_port} (log: {server.log_path})")
    server.start()
    try:
        waited = server.wait_ready(progress=say)
    except BaseException:
        server.stop()
        raise
    say(f"vLLM is ready after {waited:.0f} s (resident memory {resident_mib(server.pid):,.0f} MiB).")
    return server


def resident_mib(pid: int | None) -> float:
    """Resident memory of a process and its children (vLLM runs its engine in child processes)."""
    if pid is None:
        return 0.0
    try:
        import psutil

        parent = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [parent, *parent.children(recursive=True)]) / 2**20
    except Exception:
        return 0.0


async def prepare_upstream(base_url: str, api_key: str, wanted: str | None) -> str:
    """Find the served model, then send one tiny request so the first user does not pay the cold start."""
    from webapp.upstream.client import LLMClient, StreamResult

    client = LLMClient(base_url, api_key)  # short-lived: its connections belong to this event loop
    try:
        model = wanted or await client.first_model()
        started = time.monotonic()
        try:
            async for _ in client.stream_chat(
                model,
                [{"role": "user", "content": "Hi"}],
                sampling={"temperature": 0.0},
                extra_body={},
                max_tokens=4,
                result=StreamResult(),
            ):
                pass
            say(f"Warm-up request answered in {time.monotonic() - started:.1f} s.")
        except Exception as exc:  # the app still serves; each turn reports the upstream state
            say(f"warning: warm-up request failed: {exc}")
        return model
    finally:
        await client.aclose()


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    # uvicorn shuts down gracefully, then re-raises the signal it caught; turning it into SystemExit
    # lets main()'s finally stop vLLM instead of the process dying with vLLM orphaned.
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    from webapp.web.logs import configure_logging

    args, passthrough = parse_args(sys.argv[1:] if argv is None else argv)
    settings = settings_from(args, passthrough)
    tune_allocator(arenas=settings.malloc_arenas, trim_every_s=settings.malloc_trim_s)  # before any thread
    set_switch_interval(settings.gil_switch_ms)
    configure_logging(settings)
    profile = get_profile(settings.profile_name)
    t0 = time.monotonic()
    server = None
    if settings.attach:
        assert settings.llm_url is not None
        base_url, api_key = settings.llm_url, settings.llm_api_key
        say(f"Attaching to {base_url} (no vLLM is started).")
    else:
        server = colaunch(settings, profile)
        base_url, api_key = server.base_url, "EMPTY"
    try:
        return serve(settings, profile, base_url, api_key, server, t0)
    except KeyboardInterrupt:
        return 0
    finally:
        if server is not None:
            say("Stopping vLLM...")
            server.stop()
            say("vLLM stopped.")


def serve(
    settings: Settings, profile: Profile, base_url: str, api_key: str, server: VLLMServer | None, t0: float
) -> int:
    from webapp.web.app import Upstream, build_service, create_app, run_app

    served = asyncio.run(prepare_upstream(base_url, api_key, settings.served_model))
    service = build_service(settings, Upstream(base_url, api_key), served_model=served, profile=profile)
    if server is not None:
        server.supervise(progress=say)
    app = create_app(settings, service)
    say(
        f"railchat ready after {time.monotonic() - t0:.0f} s: http://{settings.host}:{settings.port}/ "
        f"(model {served}, profile {profile.name})"
    )
    if settings.share:
        from webapp.web.share import share_in_background

        share_in_background(settings.host, settings.port, say=say)
    freeze_startup_heap()
    run_app(app, settings)
    return 0


def freeze_startup_heap() -> None:
    """Keep what start-up built (modules, the rails, models, the Gradio apps) out of every later garbage
    collection. The heap is millions of objects that live as long as the process, and each full collection
    walked all of them: on the UI path, which allocates plenty per streamed yield, 39% of the app's busy CPU
    at 16 streams was the collector (a --native py-spy profile). Collected first, so nothing frozen is garbage.
    """
    gc.collect()
    gc.freeze()


def cli() -> None:
    """The `railchat` console script."""
    sys.exit(main())


if __name__ == "__main__":
    cli()
