"""Reviewer queries at scale: SQLite filled with 100,000 sessions / 1,000,000 messages.

Reports the p95 of the filtered session list (each filter, and a deep cursor page) and of the whole-session
view the Reviewer API serves, then the resident memory of a full streamed JSONL export sampled while it
runs. Targets: list and view p95 <= 200 ms; export memory flat (it does not grow with the rows written).

    python bench/bench_review.py [--sessions 100000] [--per-session 10] [--db PATH] [--reuse]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webapp.store import Store, review, review_export
from webapp.store.review import SessionFilter
from webapp.web.reviewer_api import jsonl_lines, session_detail

WORDS = "the a model answer question weather paris code python rails image link guard review chat".split()
RAILS = ("url_allowlist", "moderation")
T0 = datetime(2026, 9, 1, tzinfo=UTC)


def fill(store: Store, sessions: int, per_session: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    conn = store.engine.raw_connection()
    cur = conn.cursor()
    cur.execute("PRAGMA synchronous=OFF")
    message_id = 0
    started = time.perf_counter()
    for start in range(0, sessions, 2_000):
        srows, mrows, erows, crows = [], [], [], []
        for n in range(start, min(start + 2_000, sessions)):
            sid = f"s{n:07d}"
            created = T0 + timedelta(seconds=rng.randrange(90 * 86_400))
            updated = created + timedelta(minutes=per_session)
            deleted = updated.replace(tzinfo=None) if rng.random() < 0.03 else None
            srows.append(
                (
                    sid,
                    f"user:u{rng.randrange(2_000)}",
                    rng.choice(("ui", "ui", "api", "demo")),
                    " ".join(rng.choices(WORDS, k=4)),
                    "m1",
                    created.replace(tzinfo=None),
                    updated.replace(tzinfo=None),
                    deleted,
                    per_session,
                    "",
                    0,
                )
            )
            for seq in range(1, per_session + 1):
                message_id += 1
                role = "user" if seq % 2 else "assistant"
                roll = rng.random()
                status = (
                    "complete" if role == "user" or roll > 0.03 else ("blocked" if roll < 0.02 else "error")
                )
                at = (created + timedelta(minutes=seq)).replace(tzinfo=None)
                text = " ".join(rng.choices(WORDS, k=30))
                if message_id % 1_000 == 0:  # a rare word: 1,000 messages, in as many sessions
                    text += " zanzibar"
                mrows.append(
                    (
                        message_id,
                        sid,
                        seq,
                        role,
                        text,
                        "thinking " * 5 if role == "assistant" else "",
                        status,
                        "instant",
                        "m1",
                        at,
                        at,
                    )
                )
                if role == "assistant":
                    crows.append((message_id, 0, message_id - 1))
                    erows.append((sid, message_id, "output", "moderation", "allow", "", 1.0, at))
                    if status == "blocked":
                        erows.append((sid, message_id, "output", rng.choice(RAILS), "block", "r", 1.0, at))
        cur.executemany(
            "INSERT INTO sessions (id, owner, client, title, model, created_at, updated_at, deleted_at, "
            "message_count, chain_head, chain_length) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            srows,
        )
        cur.executemany(
            "INSERT INTO messages (id, session_id, seq, role, content, reasoning, status, mode, model, "
            "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            mrows,
        )
        cur.executemany("INSERT INTO context_records (answer_id, position, message_id) VALUES (?,?,?)", crows)
        cur.executemany(
            "INSERT INTO rail_events (session_id, message_id, stage, rail, decision, reason, latency_ms, created_at) "
            "VALUES (?,?,?,?,?,?,?,?)",
            erows,
        )
        conn.commit()
    cur.execute("ANALYZE")
    conn.commit()
    conn.close()
    print(f"filled {sessions:,} sessions / {message_id:,} messages in {time.perf_counter() - started:.0f} s")


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[18] if len(samples) >= 20 else max(samples)


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples), p95(samples)


def bench_queries(store: Store, sessions: int, runs: int) -> None:
    rng = random.Random(3)
    deep = review.list_sessions(store, SessionFilter(), limit=50)
    for _ in range(20):  # a cursor 1,000 sessions deep
        deep = review.list_sessions(store, SessionFilter(), limit=50, cursor=deep.next_cursor)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("list: no filter", lambda: review.list_sessions(store, SessionFilter())),
        (
            "list: owner",
            lambda: review.list_sessions(store, SessionFilter(owner=f"user:u{rng.randrange(2000)}")),
        ),
        ("list: client=demo", lambda: review.list_sessions(store, SessionFilter(client="demo"))),
        ("list: status=blocked", lambda: review.list_sessions(store, SessionFilter(status="blocked"))),
        ("list: status=error", lambda: review.list_sessions(store, SessionFilter(status="error"))),
        ("list: rail=moderation", lambda: review.list_sessions(store, SessionFilter(rail="moderation"))),
        (
            "list: last 7 days",
            lambda: review.list_sessions(store, SessionFilter(since=T0 + timedelta(days=83))),
        ),
        (
            "list: owner + status=blocked",
            lambda: review.list_sessions(
                store, SessionFilter(owner=f"user:u{rng.randrange(2000)}", status="blocked")
            ),
        ),
        (
            "list: page 21 (cursor)",
            lambda: review.list_sessions(store, SessionFilter(), limit=50, cursor=deep.next_cursor),
        ),
        ("view: one session whole", lambda: session_detail(store, f"s{rng.randrange(sessions):07d}")),
        ("list: q, common word (87% of msgs)", lambda: review.list_sessions(store, SessionFilter(q="paris"))),
        (
            "list: q, rare word (0.1% of msgs)",
            lambda: review.list_sessions(store, SessionFilter(q="zanzibar")),
        ),
        (
            "list: q, common-word phrase (0.8%)",
            lambda: review.list_sessions(store, SessionFilter(q="paris paris paris")),
        ),
        ("list: q, no match", lambda: review.list_sessions(store, SessionFilter(q="zebra-nowhere"))),
        (
            "list: q, rare word + owner",
            lambda: review.list_sessions(
                store, SessionFilter(q="zanzibar", owner=f"user:u{rng.randrange(2000)}")
            ),
        ),
    ]
    print(f"{'query':40} {'median ms':>10} {'p95 ms':>8}")
    for name, fn in cases:
        fn()  # warm the page cache
        median, high = timed(fn, runs)
        print(f"{name:40} {median:10.1f} {high:8.1f}")


def bench_export(store: Store) -> None:
    process = psutil.Process()
    samples: list[tuple[int, float]] = []
    written = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            samples.append((written[0], process.memory_info().rss / 2**20))
            time.sleep(0.25)

    before = process.memory_info().rss / 2**20
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    size = 0
    for line in jsonl_lines(review_export.export_rows(store, SessionFilter())):
        written[0] += 1
        size += len(line)
    done.set()
    sampler.join()
    seconds = time.perf_counter() - started
    print(f"export: {written[0]:,} rows, {size / 2**20:,.0f} MiB of JSONL in {seconds:.0f} s")
    print(f"export RSS: before {before:.0f} MiB; by rows written:")
    for fraction in (0.1, 0.25, 0.5, 0.75, 1.0):
        target = written[0] * fraction
        rss = next((r for n, r in samples if n >= target), samples[-1][1])
        print(f"  {fraction:>4.0%}: {rss:.0f} MiB")
    print(f"  peak {max(r for _, r in samples):.0f} MiB")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--per-session", type=int, default=10)
    parser.add_argument("--db", type=Path, help="SQLite file (default: a temporary one)")
    parser.add_argument("--reuse", action="store_true", help="the --db file is already filled")
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--no-export", action="store_true")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    path = args.db or Path(folder.name) / "bench.db"
    started = time.perf_counter()
    store = Store(f"sqlite:///{path}")  # brings a --reuse file up to the newest schema, indexing its text
    print(f"opened (migrations included) in {time.perf_counter() - started:.1f} s")
    if not args.reuse:
        fill(store, args.sessions, args.per_session)
    bench_queries(store, args.sessions, args.runs)
    if not args.no_export:
        bench_export(store)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
