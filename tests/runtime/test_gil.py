"""The GIL's switch interval is the setting's, or the interpreter's when the setting is 0."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from webapp.config import load_settings
from webapp.runtime.gil import set_switch_interval


@pytest.fixture(autouse=True)
def _restore_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


def test_the_interval_is_set_in_milliseconds() -> None:
    set_switch_interval(2.5)
    assert sys.getswitchinterval() == pytest.approx(0.0025)


def test_zero_keeps_the_interpreters_interval() -> None:
    sys.setswitchinterval(0.007)
    set_switch_interval(0)
    assert sys.getswitchinterval() == pytest.approx(0.007)


def test_the_default_is_shorter_than_pythons() -> None:
    assert 0 < load_settings().gil_switch_ms < 5


def test_the_launcher_applies_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    import webapp.launch
    import webapp.web.logs

    served: list[float] = []
    # only the interval is under test: the process-wide logging and signal handlers stay as they are
    monkeypatch.setattr(webapp.web.logs, "configure_logging", lambda _: None)
    monkeypatch.setattr(webapp.launch.signal, "signal", lambda *_: None)
    monkeypatch.setattr(webapp.launch, "tune_allocator", lambda **_: None)
    monkeypatch.setattr(webapp.launch, "serve", lambda *_: served.append(sys.getswitchinterval()) or 0)
    monkeypatch.setenv("RAILCHAT_GIL_SWITCH_MS", "3")
    assert webapp.launch.main(["--llm-url", "http://127.0.0.1:9/v1"]) == 0
    assert served == [pytest.approx(0.003)]
