"""Where railchat's CPU goes under load: py-spy samples the app while the load benchmark's clients stream.

    python -m bench profile [--system railchat-api|railchat-ui] [--streams 32] [--seconds 30] [--native]
                            [--answers distinct|repeat] [--out DIR]

Writes py-spy's collapsed stacks (``profile.txt``, for flame graph tools) and prints the functions that
were on the stack in the largest share of busy samples (inclusive) and those that were running (self), with
the app's CPU per turn over the same window. Samples of a thread that was waiting (the event loop in
epoll, idle pool threads) are counted apart, not in the shares.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.answers import MODES
from bench.extra import missing, py_spy_path
from bench.load import Bench, browser

ROOT = Path(__file__).resolve().parent.parent


# Leaves where a sampled thread was waiting, not computing. py-spy without --native counts a thread blocked in
# C as active: the event loop's own frame is then mostly epoll_pwait (a --native profile at 1 and 16 streams:
# 20% of all samples in epoll_pwait, under 2% in the rest of uvloop's C code), and idle pool threads wait on
# their queue or condition.
WAITING = (
    "Runner.run (asyncio/runners.py",
    "Condition.wait (threading.py",
    "_worker (concurrent/futures/thread.py:81)",
    "Queue.get (queue.py",
    "Event.wait (threading.py",
)

LOOP_THREAD = "<module> (launch.py"  # the main thread runs uvicorn's event loop; workers start elsewhere


def summarise(collapsed: Path, top: int) -> str:
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = waiting = on_loop = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [f.split(" (")[0] + " (" + f.split(" (")[-1] for f in stack.split(";") if f]
        n = int(count)
        if frames and frames[-1].startswith(WAITING):
            waiting += n
            continue
        total += n
        on_loop += n if frames and frames[0].startswith(LOOP_THREAD) else 0
        for frame in set(frames):
            inclusive[frame] += n
        if frames:
            own[frames[-1]] += n
    lines = [f"{total} busy samples ({waiting} more were waiting: left out of the shares)"]
    lines += [f"{100 * on_loop / max(total, 1):.1f}% on the event loop's thread, the rest in worker threads"]
    lines += ["", "inclusive:"]
    lines += [f"{100 * n / total:5.1f}%  {frame}" for frame, n in inclusive.most_common(top)]
    lines += ["", "self:"]
    lines += [f"{100 * n / total:5.1f}%  {frame}" for frame, n in own.most_common(top)]
    return "\n".join(lines)


async def drive(bench: Bench, system: str, streams: int, seconds: float) -> int:
    turn, _ = await bench.turn_fn(system)
    deadline = time.monotonic() + seconds
    done = 0

    async def user() -> None:
        nonlocal done
        async with browser() as client:
            while time.monotonic() < deadline:
                await turn(client)
                done += 1

    await asyncio.gather(*(user() for _ in range(streams)))
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench profile", description=__doc__)
    parser.add_argument("--system", default="railchat-api", choices=["railchat-api", "railchat-ui"])
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--answers", choices=MODES, default="distinct", help="see python -m bench load --help"
    )
    parser.add_argument(
        "--native",
        action="store_true",
        help="C frames too (py-spy pauses the app per sample: CPU reads higher)",
    )
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="railchat-profile-")))
    args = parser.parse_args(argv)
    py_spy = py_spy_path()
    if py_spy is None:
        print(f"python -m bench profile: {missing(profiler=True)}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    bench = Bench(args.out, 200, 64, 20, args.answers)
    try:
        bench.start([args.system], ui_concurrency=max(64, args.streams))
        asyncio.run(drive(bench, args.system, 2, 3))  # warm-up
        app = bench.servers["railchat"]
        app.settle()  # the moderation model loads in the background after start: not a turn's CPU
        collapsed = args.out / "profile.txt"
        spy = subprocess.Popen(
            [py_spy, "record", "-p", str(app.process.pid), "-d", str(int(args.seconds)), "-r", "200"]
            + ["-f", "raw", "-o", str(collapsed)]
            + (["--native"] if args.native else ["--nonblocking"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        cpu_before = app.cpu_s()
        turns = asyncio.run(drive(bench, args.system, args.streams, args.seconds))
        cpu = app.cpu_s() - cpu_before
        spy.wait(timeout=60)
    finally:
        bench.stop()
    per_turn = cpu * 1000 / max(turns, 1)
    print(
        f"{turns} turns at {args.streams} streams, {args.answers} answers; app CPU {per_turn:.1f} ms per turn"
    )
    print(summarise(collapsed, args.top))
    print(f"\ncollapsed stacks: {collapsed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
