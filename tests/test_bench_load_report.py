"""Only a full load run writes the committed table: a one-level check must not replace it with a fragment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bench.load
import bench.report


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Where a run that got past its checks wrote its report; nothing is served or measured."""
    written: list[Path] = []

    async def run(args: Any) -> dict[str, Any]:
        return {"levels": []}

    monkeypatch.setattr(bench.load, "missing", lambda **_: None)
    monkeypatch.setattr(bench.load, "run", run)
    monkeypatch.setattr(bench.report, "write_report", lambda result, out: written.append(out))
    return written


@pytest.mark.parametrize("argv", [["--levels", "8"], ["--systems", "direct,railchat-api"], ["--soak-only"]])
def test_a_partial_run_refuses_to_write_the_docs(
    argv: list[str], ran: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.load.main(argv) == 2
    assert ran == []
    assert "pass --out DIR" in capsys.readouterr().err


def test_a_partial_run_writes_where_it_is_told(ran: list[Path], tmp_path: Path) -> None:
    assert bench.load.main(["--levels", "8", "--out", str(tmp_path)]) == 0
    assert ran == [tmp_path]


def test_a_full_run_writes_the_docs(ran: list[Path]) -> None:
    assert bench.load.main([]) == 0
    assert ran == [bench.load.DOCS]
