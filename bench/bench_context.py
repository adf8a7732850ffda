"""How long context trimming takes for a long session once the token cache is warm.

    python bench/bench_context.py [--messages 1000] [--repeat 50]

Target: <= 5 ms for 1,000 messages (the tokenizer is a stand-in; warm builds never call it).
Prints the median and worst warm build and exits 1 if the median misses the target.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp.turn.context import ContextBuilder, ContextMessage, TokenCache

TARGET_MS = 5.0
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 4000}}


async def word_tokenizer(messages: list[dict[str, Any]]) -> int:
    total = 3
    for m in messages:
        content = m["content"]
        text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
        total += 4 + len(text.split())
    return total


def session(n: int) -> list[ContextMessage]:
    history = []
    for i in range(n):
        words = " ".join(f"word{j}" for j in range(40 + i % 60))
        if i % 2 == 0:
            content: str | list[dict[str, Any]] = words
            if i % 10 == 0:
                content = [IMAGE, {"type": "text", "text": words}]
            history.append(ContextMessage(i + 1, "user", content))
        else:
            history.append(ContextMessage(i + 1, "assistant", words))
    if history[-1].role != "user":
        history.append(ContextMessage(n + 1, "user", "and now?"))
    return history


async def run(messages: int, repeat: int) -> list[float]:
    history = session(messages)
    cache = TokenCache()
    # A budget that forces trimming: roughly half of the session fits.
    builder = ContextBuilder(word_tokenizer, max_model_len=40_000, max_tokens=1024, cache=cache)
    cold_start = time.perf_counter()
    first = await builder.build("You are a helpful assistant.", history)
    cold_ms = (time.perf_counter() - cold_start) * 1000
    print(
        f"cold: {cold_ms:.1f} ms ({len(cache)} cached counts); sent {len(first.message_ids)} of "
        f"{len(history)} messages, {first.tokens} tokens of {first.budget}, "
        f"{first.images_dropped} images dropped"
    )
    timings = []
    for _ in range(repeat):
        builder = ContextBuilder(word_tokenizer, max_model_len=40_000, max_tokens=1024, cache=cache)
        start = time.perf_counter()
        await builder.build("You are a helpful assistant.", history)
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    timings = asyncio.run(run(args.messages, args.repeat))
    median = statistics.median(timings)
    print(
        f"warm trim of {args.messages} messages: median {median:.2f} ms, max {max(timings):.2f} ms "
        f"(target <= {TARGET_MS} ms)"
    )
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
