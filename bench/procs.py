"""The processes a load benchmark talks to, started on free ports, and what they cost (CPU, memory).

CPU and resident memory are read from /proc for the process and everything it started, so a server that
forks workers is charged for them too.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(parents.get(current, []))
    return found


def _stat_fields(pid: int) -> list[str]:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()


@dataclass
class Server:
    """A benchmarked server process: where it listens, its log, and its cost so far."""

    name: str
    url: str  # base URL clients call
    process: subprocess.Popen[bytes]
    log: Path
    pids: list[int] = field(default_factory=list)

    def cpu_s(self) -> float:
        total = 0.0
        for pid in _tree(self.process.pid):
            try:
                fields = _stat_fields(pid)
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime
        return total

    def settle(self, *, busy_ms_per_s: float = 100, timeout_s: float = 60) -> float:
        """Wait until the process (and its children) is nearly idle, e.g. done loading a model in the
        background after its health check answered: that CPU is not a turn's. Returns the seconds waited."""
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            before = self.cpu_s()
            time.sleep(1.0)
            if (self.cpu_s() - before) * 1000 < busy_ms_per_s:
                break
        return time.monotonic() - started

    def rss_mb(self) -> float:
        total = 0
        for pid in _tree(self.process.pid):
            try:
                total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE
            except OSError:
                continue
        return total / 2**20

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(
    name: str, argv: list[str], *, health: str, url: str, folder: Path, env: dict[str, str] | None = None
) -> Server:
    """Start ``argv`` and wait until ``health`` answers 200 (at most two minutes on a busy machine)."""
    log = folder / f"{name}.log"
    process = subprocess.Popen(
        argv,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
        cwd=Path(__file__).resolve().parent.parent,
    )
    server = Server(name, url, process, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}; see {log}")
        try:
            if httpx.get(health, timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"{name} did not answer {health} within 120 s; see {log}")


PYTHON = sys.executable
