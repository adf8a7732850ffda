"""Many writers at once, and a writer killed mid-stream: nothing is lost, on SQLite and PostgreSQL.

RAILCHAT_SOAK_SECONDS sets how long the 64 sessions keep writing (default 5; CI/bench may set 60).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from tests.support.paths import ROOT
from webapp.store import Store
from webapp.store.audit import verify_session
from webapp.store.engine import FairLock
from webapp.store.models import MESSAGES

SOAK_SECONDS = float(os.environ.get("RAILCHAT_SOAK_SECONDS", "5"))
WRITERS = 64
CHECKPOINTS = 3


def test_64_concurrent_sessions_lose_nothing(db_url: str) -> None:
    store = Store(db_url)
    start = threading.Barrier(WRITERS)
    deadline = 0.0

    def write_session(n: int) -> tuple[str, list[tuple[str, str]]]:
        nonlocal deadline
        session_id = store.create_session(owner=f"user{n}", client="api", model="m")
        if start.wait() == 0:
            deadline = time.monotonic() + SOAK_SECONDS
        while deadline == 0.0:
            time.sleep(0.001)
        turns: list[tuple[str, str]] = []
        while time.monotonic() < deadline or not turns:
            question = f"session {n} question {len(turns)}"
            store.add_message(session_id, role="user", content=question)
            answer_id = store.add_message(session_id, role="assistant", content="", status="streaming")
            answer = ""
            for chunk in range(CHECKPOINTS):
                answer += f"chunk {chunk} of {question}. "
                store.checkpoint(answer_id, content=answer, reasoning=f"step {chunk}")
            store.finish_message(answer_id, status="complete", content=answer + "done", reasoning="steps")
            turns.append((question, answer + "done"))
        return session_id, turns

    try:
        with ThreadPoolExecutor(WRITERS) as pool:
            results = list(pool.map(write_session, range(WRITERS)))
        written = 0
        for session_id, turns in results:
            stored = [(m.role, m.content, m.status) for m in store.messages(session_id)]
            expected = [
                row for q, a in turns for row in (("user", q, "complete"), ("assistant", a, "complete"))
            ]
            assert stored == expected
            assert verify_session(store, session_id).ok
            written += len(expected)
        with store.engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(MESSAGES)).scalar_one() == written
        print(
            f"\n{store.engine.dialect.name}: {WRITERS} sessions, {written} messages "
            f"({written // 2 * (3 + CHECKPOINTS)} writes) in {SOAK_SECONDS:.0f} s"
        )
    finally:
        store.close()


WRITER = """
import sys, time
from webapp.store import Store

store = Store(sys.argv[1])
session_id = store.create_session(owner="u", client="ui", model="m")
store.add_message(session_id, role="user", content="tell me a story")
answer_id = store.add_message(session_id, role="assistant", content="", status="streaming")
text = ""
for part in range(3):
    text += f"part{part} "
    store.checkpoint(answer_id, content=text, reasoning="thinking")
print(session_id, answer_id, flush=True)
while True:  # keeps streaming until killed
    text += "more "
    store.checkpoint(answer_id, content=text, reasoning="thinking")
    time.sleep(0.005)
"""


def test_writer_killed_mid_stream_leaves_an_interrupted_answer(db_url: str) -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, db_url],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = writer.stdout.readline()  # type: ignore[union-attr]
        assert line, writer.stderr.read()  # type: ignore[union-attr]
        session_id, answer_id = line.split()
        time.sleep(0.3)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL

    with Store(db_url) as restarted:
        assert restarted.mark_interrupted() == 1
        question, answer = restarted.messages(session_id)
        assert (question.role, question.content, question.status) == ("user", "tell me a story", "complete")
        assert answer.id == int(answer_id)
        assert answer.status == "interrupted"
        assert answer.content.startswith("part0 part1 part2 more ")
        assert answer.reasoning == "thinking"
        assert verify_session(restarted, session_id).ok


def test_fair_lock_serves_waiters_in_arrival_order() -> None:
    lock = FairLock()
    order: list[int] = []

    def wait_then_record(n: int) -> None:
        with lock:
            order.append(n)

    with lock:
        threads = []
        for n in range(5):
            thread = threading.Thread(target=wait_then_record, args=(n,))
            thread.start()
            threads.append(thread)
            while len(lock._waiters) < n + 1:  # queued before the next one starts
                time.sleep(0.001)
    for thread in threads:
        thread.join(timeout=10)
    assert order == [0, 1, 2, 3, 4]
    with lock:  # free again
        pass


OPEN_STORE = "import sys; from webapp.store import Store; Store(sys.argv[1]).close()"


def test_processes_starting_together_migrate_once(db_url: str) -> None:
    starters = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_STORE, db_url], cwd=ROOT, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    for starter in starters:
        _, errors = starter.communicate(timeout=120)
        assert starter.returncode == 0, errors
    with Store(db_url) as store:
        session_id = store.create_session(owner="u", client="ui", model="m")
        assert store.get_session(session_id) is not None
