"""Concurrent streams side by side: the model server alone, railchat (API and UI) and NeMo Guardrails' server.

    python -m bench load                      # 1, 8, 32, 64 streams; writes docs/benchmarks.{json,png,md}
                                              # (needs the bench extra: pip install -e '.[bench]')
    python -m bench load --soak-minutes 10    # also: 64 streams on railchat's API for 10 minutes, memory
    python -m bench load --soak-only --soak-minutes 10 --out /tmp/soak   # the soak alone, then:
    python -m bench load --soak-from /tmp/soak/benchmarks.json             # its figures in this run's report
    python -m bench load --levels 8 --systems direct,railchat-api --out /tmp/ab   # a check: its own folder
                                              # (a run of fewer levels or systems never writes docs/)

Every system answers the same workload from the same scripted upstream (``bench.upstream``: the answer
starts after 200 ms, then 64 one-word chunks 20 ms apart), in its own process, so the measured processes'
CPU is their own. Every turn gets a new answer (``bench.answers``), as from a real model: a guard that
remembers what it judged would find a repeated answer almost free. ``--answers repeat`` gives every turn the
same answer, as runs before 2026-12-01 10:00 did (the report says which ran):

- ``direct``: the upstream itself, what a client gets with no guard at all
- ``railchat-api``: ``launch.py --llm-url`` with the shipped rails and SQLite, ``POST /v1/chat/completions``
- ``railchat-ui``: the same app through the Gradio queue, as the browser calls it (first visible word)
- ``nemo-server``: ``nemoguardrails server`` with the same rails (rails/ plus a ``config.py`` that wires
  railchat's checks) and the upstream as its main model, asked the default way: with output rails it
  answers whole, so its first content is its last (its streaming mode checks 200-token chunks, which
  would hold this answer whole too, and in 0.24 wants rails that return NeMo's own outcome type)

Levels run system after system within each level, so a busy machine hits every system alike. CPU per turn
is the server's process CPU over the level divided by its turns.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import itertools
import json
import math
import os
import platform
import shlex
import shutil
import ssl
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from bench.answers import MODES, answer_text, question
from bench.clients import GradioSubmit, Turn, gradio_turn, openai_turn
from bench.extra import missing
from bench.procs import PYTHON, Server, free_port, start

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ("direct", "railchat-api", "railchat-ui", "nemo-server")
DEFAULT_LEVELS = "1,8,32,64"
DOCS = ROOT / "docs"
NEMO_CONFIG_PY = '''"""Wires railchat's rail functions into the benchmark's copy of rails/ for NeMo's server."""
from pathlib import Path


def init(app):
    from webapp.guard.rails import Guard

    guard = Guard.from_dir(Path({rails!r}))
    app.register_action_param("railchat_checks", guard.checks)
'''


@dataclass
class Level:
    system: str
    streams: int
    turns: list[Turn]
    wall_s: float
    cpu_s: float | None  # the server's CPU over the level (None: not measured)

    def summary(self) -> dict[str, Any]:
        firsts = sorted(t.first_s for t in self.turns if t.first_s is not None)
        totals = sorted(t.total_s for t in self.turns)
        errors = [t.error for t in self.turns if not t.complete]
        return {
            "system": self.system,
            "streams": self.streams,
            "turns": len(self.turns),
            "first_p50_ms": _ms(_pct(firsts, 50)),
            "first_p99_ms": _ms(_pct(firsts, 99)),
            "total_p50_ms": _ms(_pct(totals, 50)),
            "total_p99_ms": _ms(_pct(totals, 99)),
            "errors": len(errors),
            "error_samples": sorted(set(e or "" for e in errors))[:3],
            "bytes_per_turn": round(sum(t.received for t in self.turns) / max(1, len(self.turns))),
            "cpu_ms_per_turn": None if self.cpu_s is None else round(self.cpu_s * 1000 / len(self.turns), 1),
            "wall_s": round(self.wall_s, 2),
        }


def _pct(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    rank = max(0, math.ceil(pct / 100 * len(values)) - 1)
    return values[rank]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


TurnFn = Callable[[httpx.AsyncClient], Awaitable[Turn]]


def browser() -> httpx.AsyncClient:
    """One simulated user's client: its own connections and cookies, as a browser has (see ``run_level``)."""
    limits = httpx.Limits(max_connections=4)  # a turn holds one stream and, at its end, a join
    return httpx.AsyncClient(timeout=httpx.Timeout(120.0), limits=limits, verify=_tls())


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every simulated user: httpx builds one per client otherwise (29 ms of CPU, reading
    the CA bundle), and 64 of them held up the driver's loop for 1.9 s as a level started."""
    return httpx.create_ssl_context()


async def run_level(turn: TurnFn, streams: int, rounds: int) -> tuple[list[Turn], float]:
    """``streams`` users, each running ``rounds`` turns back to back; all start together.

    Each user is one browser, with its own connections and cookies. The app binds a tab's Gradio session to
    the browser id in its cookie, and a user's first event is issued that id: users sharing one cookie jar
    overwrote each other's ids between a join and its event stream, whose session Gradio then did not know
    (a 404 after the stream's 200: 5 of 64 UI turns lost at 32 streams, none of them the app's doing)."""
    turns: list[Turn] = []

    async def user(client: httpx.AsyncClient) -> None:
        async with client:
            for _ in range(rounds):
                turns.append(await turn(client))

    clients = [browser() for _ in range(streams)]  # before the clock, as browsers are open before they ask
    started = time.perf_counter()
    await asyncio.gather(*(user(client) for client in clients))
    return turns, time.perf_counter() - started


class Bench:
    def __init__(
        self, folder: Path, first_ms: float, chunks: int, gap_ms: float, answers: str = "distinct"
    ) -> None:
        self.folder = folder
        self.chunks = chunks
        self.answers = answers
        self.numbers = itertools.count(1)  # turn n asks for answer n: every turn of a run its own answer
        self.servers: dict[str, Server] = {}
        self.upstream_args = ["--first-ms", str(first_ms), "--chunks", str(chunks), "--gap-ms", str(gap_ms)]
        self.upstream_args += ["--answers", answers]

    def next_turn(self) -> tuple[str, str]:
        """The next turn's question and the answer it must get."""
        n = next(self.numbers)
        return question(n), answer_text(self.answers, self.chunks, n)

    def start(self, systems: list[str], ui_concurrency: int) -> None:
        port = free_port()
        self.servers["direct"] = start(
            "upstream",
            [PYTHON, "-m", "bench.upstream", "--port", str(port), *self.upstream_args],
            health=f"http://127.0.0.1:{port}/health",
            url=f"http://127.0.0.1:{port}",
            folder=self.folder,
        )
        llm_url = f"{self.servers['direct'].url}/v1"
        if {"railchat-api", "railchat-ui"} & set(systems):
            self.servers["railchat"] = self._railchat(llm_url, ui_concurrency)
        if "nemo-server" in systems:
            self.servers["nemo-server"] = self._nemo(llm_url)

    def _railchat(self, llm_url: str, ui_concurrency: int) -> Server:
        port = free_port()
        argv = [PYTHON, "launch.py", "--llm-url", llm_url, "--port", str(port)]
        argv += ["--data-dir", str(self.folder / "railchat")]
        env = {"RAILCHAT_CONCURRENT_TURNS": str(ui_concurrency), "RAILCHAT_QUEUE_SIZE": "256"}
        url = f"http://127.0.0.1:{port}"
        return start("railchat", argv, health=f"{url}/healthz", url=url, folder=self.folder, env=env)

    def _nemo(self, llm_url: str) -> Server:
        config_dir = self.folder / "nemo" / "railchat"
        config_dir.mkdir(parents=True)
        for name in ("rails.co", "actions.py"):
            shutil.copy(ROOT / "rails" / name, config_dir / name)
        config = yaml.safe_load((ROOT / "rails" / "config.yml").read_text())
        for stage in ("input", "output"):  # model moderation is off in the shipped config too
            flows = config["rails"][stage]["flows"]
            config["rails"][stage]["flows"] = [f for f in flows if "model moderation" not in f]
        config["models"] = [
            {
                "type": "main",
                "engine": "openai",
                "model": "bench-model",
                "parameters": {"base_url": llm_url, "api_key": "EMPTY"},
            }
        ]
        (config_dir / "config.yml").write_text(yaml.safe_dump(config))
        (config_dir / "config.py").write_text(NEMO_CONFIG_PY.format(rails=str(ROOT / "rails")))
        port = free_port()
        nemo = str(Path(PYTHON).with_name("nemoguardrails"))
        argv = [nemo, "server", "--config", str(config_dir), "--port", str(port), "--disable-chat-ui"]
        url = f"http://127.0.0.1:{port}"
        env = {"PYTHONPATH": str(ROOT), "NEMO_GUARDRAILS_NO_USAGE_STATS": "1"}
        return start(
            "nemo-server", argv, health=f"{url}/v1/rails/configs", url=url, folder=self.folder, env=env
        )

    async def turn_fn(self, system: str) -> tuple[TurnFn, Server]:
        if system == "direct":
            server = self.servers["direct"]
            url = f"{server.url}/v1/chat/completions"
            return (lambda client: openai_turn(client, url, *self.next_turn())), server
        if system == "railchat-api":
            server = self.servers["railchat"]
            url = f"{server.url}/v1/chat/completions"
            return (lambda client: openai_turn(client, url, *self.next_turn())), server
        if system == "railchat-ui":
            server = self.servers["railchat"]
            async with httpx.AsyncClient(timeout=30) as client:
                submit = await GradioSubmit.discover(client, server.url)
            return (lambda client: gradio_turn(client, submit, *self.next_turn())), server
        server = self.servers["nemo-server"]
        url = f"{server.url}/v1/chat/completions"
        extra = {"guardrails": {"config_id": "railchat", "context": {"image_urls": [], "bot_reasoning": ""}}}
        return (lambda client: openai_turn(client, url, *self.next_turn(), extra, stream=False)), server

    async def measure(self, system: str, streams: int, rounds: int) -> Level:
        turn, server = await self.turn_fn(system)
        cpu_before = server.cpu_s()
        turns, wall = await run_level(turn, streams, rounds)
        cpu = server.cpu_s() - cpu_before
        return Level(system, streams, turns, wall, cpu)

    async def warm_up(self, system: str) -> None:
        turn, _ = await self.turn_fn(system)
        await run_level(turn, 2, 2)

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()


def machine() -> dict[str, Any]:
    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(memory_gib, 1),
        "python": platform.python_version(),
        "os": platform.platform(),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="railchat-load-"))
    bench = Bench(folder, args.first_ms, args.chunks, args.gap_ms, args.answers)
    systems = args.systems.split(",")
    levels = [int(n) for n in args.levels.split(",")]
    result: dict[str, Any] = {
        "command": "python -m bench load "
        + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["load"] else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "load_average_before": os.getloadavg(),
        "workload": {
            "first_ms": args.first_ms,
            "chunks": args.chunks,
            "gap_ms": args.gap_ms,
            "answers": args.answers,
        },
        "levels": [],
    }
    try:
        bench.start(systems, args.ui_concurrency)
        for system in systems:
            await bench.warm_up(system)
        for server in bench.servers.values():
            server.settle()  # the moderation model loads in the background after start: not a turn's CPU
        if "railchat" in bench.servers:
            result["railchat_rss_mb_start"] = round(bench.servers["railchat"].rss_mb(), 1)
        for streams in levels if not args.soak_only else ():
            rounds = max(args.min_rounds, math.ceil(args.min_turns / streams))
            for system in systems:
                level = await bench.measure(system, streams, rounds)
                summary = level.summary()
                result["levels"].append(summary)
                print(_line(summary), flush=True)
        if "railchat" in bench.servers:
            result["railchat_rss_mb_end"] = round(bench.servers["railchat"].rss_mb(), 1)
        if args.soak_minutes:
            result["soak"] = await soak(bench, args.soak_streams, args.soak_minutes)
        elif args.soak_from:
            # memory flatness needs no quiet machine: the soak may run apart from the latency run
            earlier = json.loads(args.soak_from.read_text())
            result["soak"] = {**earlier["soak"], "from": {k: earlier[k] for k in ("command", "date")}}
    finally:
        bench.stop()
        result["load_average_after"] = os.getloadavg()
    return result


async def soak(bench: Bench, streams: int, minutes: float) -> dict[str, Any]:
    """``streams`` back-to-back API streams for ``minutes``; railchat's resident memory every 15 s."""
    turn, server = await bench.turn_fn("railchat-api")
    samples: list[tuple[float, float]] = []
    load_before = os.getloadavg()
    deadline = time.monotonic() + minutes * 60
    stop = asyncio.Event()

    async def sample() -> None:
        started = time.monotonic()
        while not stop.is_set():
            samples.append((round(time.monotonic() - started, 1), round(server.rss_mb(), 1)))
            try:
                await asyncio.wait_for(stop.wait(), 15)
            except TimeoutError:
                pass

    limits = httpx.Limits(max_connections=streams * 2 + 4)
    turns: list[Turn] = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(120.0), limits=limits) as client:

        async def user() -> None:
            while time.monotonic() < deadline:
                turns.append(await turn(client))

        sampler = asyncio.create_task(sample())
        await asyncio.gather(*(user() for _ in range(streams)))
        stop.set()
        await sampler
        caches = await moderation_caches(client, server.url)
    return {
        "streams": streams,
        "minutes": minutes,
        "turns": len(turns),
        "errors": sum(not t.complete for t in turns),
        "error_samples": sorted({t.error or "" for t in turns if not t.complete})[:3],
        "load_average_before": load_before,
        "rss_mb": samples,
        "moderation_caches": caches,
    }


async def moderation_caches(client: httpx.AsyncClient, url: str) -> dict[str, dict[str, float]]:
    """What the moderator's caches hold (their gauges at ``/metrics``): entries and MiB, per cache."""
    found: dict[str, dict[str, float]] = {}
    text = (await client.get(f"{url}/metrics")).text
    for line in text.splitlines():
        for kind, key in (("entries", "entries"), ("bytes", "mib"), ("limit_bytes", "limit_mib")):
            head = f'railchat_moderation_cache_{kind}{{cache="'
            if line.startswith(head):
                name, _, value = line[len(head) :].partition('"} ')
                scale = 1 if kind == "entries" else 2**20
                found.setdefault(name, {})[key] = round(float(value) / scale, 1)
    return found


def _line(s: dict[str, Any]) -> str:
    return (
        f"{s['system']:13} {s['streams']:3} streams  first p50 {s['first_p50_ms']} p99 {s['first_p99_ms']} ms  "
        f"total p50 {s['total_p50_ms']} ms  errors {s['errors']}/{s['turns']}  cpu/turn {s['cpu_ms_per_turn']} ms"
        + (f"  {s['bytes_per_turn']} B/turn" if s.get("bytes_per_turn") else "")
    )


def _partial_into_docs(args: argparse.Namespace) -> str | None:
    """Why this run may not write the committed table, or None.

    The generated part of docs/benchmarks.md, its JSON and its plot are one full run's: a run of one level or
    one system (a profile check, an A/B of a change) writing there silently replaces the whole table with a
    fragment, so such a run has to say where its report goes.
    """
    full = args.levels == DEFAULT_LEVELS and args.systems == ",".join(SYSTEMS) and not args.soak_only
    if full or args.out is not None:
        return None
    return "a partial run (levels, systems or --soak-only changed) does not overwrite docs/: pass --out DIR"


def main(argv: list[str] | None = None) -> int:
    from bench.report import write_report

    parser = argparse.ArgumentParser(
        prog="python -m bench load", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default=DEFAULT_LEVELS, help="concurrent streams, comma separated")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--min-turns", type=int, default=20, help="turns per system and level, at least")
    parser.add_argument("--min-rounds", type=int, default=2, help="turns per stream, at least")
    parser.add_argument("--first-ms", type=float, default=200)
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--gap-ms", type=float, default=20)
    parser.add_argument(
        "--answers",
        choices=MODES,
        default="distinct",
        help="a new answer every turn (as from a real model), or one answer repeated (the caches hide most of "
        "moderation's cost)",
    )
    parser.add_argument(
        "--ui-concurrency", type=int, default=64, help="RAILCHAT_CONCURRENT_TURNS for the run"
    )
    parser.add_argument("--soak-minutes", type=float, default=0)
    parser.add_argument("--soak-streams", type=int, default=64)
    parser.add_argument("--soak-only", action="store_true", help="only the soak (no levels)")
    parser.add_argument(
        "--soak-from",
        type=Path,
        help="a JSON written by an earlier --soak-only run: its soak goes in the report",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="where benchmarks.{json,png,md} go (default docs/, only for a run of every level and system)",
    )
    args = parser.parse_args(argv)
    if problem := missing(plot=True) or _partial_into_docs(args):
        print(f"python -m bench load: {problem}", file=sys.stderr)
        return 2
    args.out = args.out or DOCS
    result = asyncio.run(run(args))
    write_report(result, args.out)
    return 0 if all(level["errors"] == 0 for level in result["levels"]) else 1


if __name__ == "__main__":
    sys.exit(main())
