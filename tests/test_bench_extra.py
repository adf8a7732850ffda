"""The load and profile runs stop before measuring when the bench extra is missing, instead of after."""

import sys
from typing import Any

import pytest

from bench import load
from bench.extra import missing


def test_a_missing_module_or_profiler_is_named_with_the_install() -> None:
    assert missing(plot=True, find=lambda name: False) == (
        "matplotlib not installed (the bench extra): pip install -e '.[bench]' (or: make bench-load ARGS='...')"
    )
    both = missing(plot=True, profiler=True, find=lambda name: False, spy=lambda: None)
    assert both is not None and both.startswith("matplotlib and py-spy not installed")
    assert missing(plot=True, profiler=True, find=lambda name: True, spy=lambda: "/bin/py-spy") is None
    assert missing(find=lambda name: False, spy=lambda: None) is None  # asked for nothing


def test_load_without_matplotlib_stops_before_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs: list[Any] = []

    async def run(args: Any) -> dict[str, Any]:
        runs.append(args)
        return {"levels": []}

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what an install without the extra finds
    monkeypatch.setattr(load, "run", run)
    assert load.main(["--levels", "1", "--out", "/nonexistent"]) == 2
    assert runs == []
    assert "pip install -e '.[bench]'" in capsys.readouterr().err
