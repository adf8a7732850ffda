"""The bench extra (``pip install -e '.[bench]'``, which ``make bench`` and ``make bench-load`` run) checked
before a run that needs it: the load run takes minutes and draws its plot last, so a missing matplotlib
found there loses the run's picture after every figure was measured."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

INSTALL = "pip install -e '.[bench]' (or: make bench-load ARGS='...')"


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def py_spy_path() -> str | None:
    """py-spy on PATH or beside this interpreter (a venv's bin/ need not be on PATH)."""
    beside = Path(sys.executable).with_name("py-spy")
    return shutil.which("py-spy") or (str(beside) if beside.exists() else None)


def missing(
    *,
    plot: bool = False,
    profiler: bool = False,
    find: Callable[[str], bool] = has_module,
    spy: Callable[[], str | None] = py_spy_path,
) -> str | None:
    """What the run cannot do without the extra, as a message naming the install; None when all is there."""
    lacking = []
    if plot and not find("matplotlib"):
        lacking.append("matplotlib")
    if profiler and spy() is None:
        lacking.append("py-spy")
    if not lacking:
        return None
    return f"{' and '.join(lacking)} not installed (the bench extra): {INSTALL}"
