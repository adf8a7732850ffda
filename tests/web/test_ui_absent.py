"""Packages Gradio tries per event update are looked up once when missing, and left alone when installed."""

import importlib.util
import sys

import pytest
from gradio.utils import MatplotlibBackendMananger

from webapp.web.ui.absent import remember_absent


def test_a_missing_package_is_marked_absent_and_an_installed_one_left_alone() -> None:
    modules: dict[str, object] = {}
    looked_up: list[str] = []

    def find_spec(name: str) -> object | None:
        looked_up.append(name)
        return object() if name == "installed" else None

    assert remember_absent(["missing", "installed"], find_spec=find_spec, modules=modules) == ["missing"]
    assert modules == {"missing": None}
    assert remember_absent(["missing"], find_spec=find_spec, modules=modules) == []
    assert looked_up == ["missing", "installed"]  # a name already in the table is not searched again


def test_gradio_update_wrapper_no_longer_searches_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("matplotlib") is not None:
        pytest.skip("matplotlib is installed here: its import is cached and nothing is searched")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # so that the test's undo removes it again
    monkeypatch.delitem(sys.modules, "matplotlib")
    searched: list[str] = []

    class Recorder:
        @staticmethod
        def find_spec(name: str, path: object = None, target: object = None) -> None:
            searched.append(name)

    monkeypatch.setattr(sys, "meta_path", [Recorder, *sys.meta_path])
    with MatplotlibBackendMananger():
        pass
    assert searched == ["matplotlib", "matplotlib"]  # Gradio's import on enter and on exit, both searched
    searched.clear()
    remember_absent(find_spec=lambda name: None)
    with MatplotlibBackendMananger():
        pass
    assert searched == []
    assert sys.modules["matplotlib"] is None
