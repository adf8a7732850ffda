"""The house plan holds: one folder per job, data flowing one way, nothing below ``web/`` on Gradio or FastAPI.

Read from the imports themselves (the AST, imports inside functions and ``TYPE_CHECKING`` blocks included), so
an import hidden in a function cannot bring a cycle back.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "webapp"
ROOMS = ("turn", "guard", "media", "upstream", "store", "web", "runtime")
WEB_ONLY = ("gradio", "fastapi", "starlette", "uvicorn")


def room_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "webapp":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else ".".join(parts[:2])


def imports_of(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def room_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        here = room_of(module_name(path))
        assert here is not None
        for target in imports_of(path):
            there = room_of(target)
            if there is not None and there != here and there.split(".")[1:2] != [""]:
                graph.setdefault(here, set()).add(there)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*trail[trail.index(nxt) :], nxt] if nxt in trail else [*trail, nxt]
            if state.get(nxt) is None and (cycle := visit(nxt, [*trail, nxt])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(graph):
        if state.get(start) is None and (cycle := visit(start, [start])):
            return cycle
    return None


def test_every_room_exists() -> None:
    assert all((PACKAGE / room / "__init__.py").is_file() for room in ROOMS)


def test_no_import_cycle_between_rooms() -> None:
    assert find_cycle(room_graph()) is None


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


def test_data_flows_from_web_down() -> None:
    graph = room_graph()
    for room in ("turn", "guard", "media", "upstream", "store"):
        assert "web" not in graph.get(room, set()), f"{room} imports web"
        assert "turn" not in graph.get(room, set()) or room == "turn", f"{room} imports turn"
    assert "runtime" not in {
        t
        for room, targets in graph.items()
        if room != "webapp.__main__"
        for t in targets
        if room in ("turn", "guard", "media", "upstream", "store", "web")
    }


def test_only_web_imports_web_frameworks() -> None:
    offenders = [
        f"{module_name(path)} imports {target}"
        for path in PACKAGE.rglob("*.py")
        if room_of(module_name(path)) != "web"
        for target in imports_of(path)
        if target.split(".")[0] in WEB_ONLY
    ]
    assert offenders == []


def test_test_only_code_stays_out_of_the_package() -> None:
    offenders = [
        module_name(p) for p in PACKAGE.rglob("*.py") if any(i.startswith("tests") for i in imports_of(p))
    ]
    assert offenders == []


MAX_MODULE_LINES = 400  # a module a reader can hold in their head; beyond that it has more than one job


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {module_name(p): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert len(sizes) > 20  # the walk found the package
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


# A repo path named in prose: a top-level folder of this repo, then a file with an extension.
CITED_PATH = re.compile(
    r"(?<![\w./-])((?:webapp|tests|bench|docs|rails)/[\w/.-]*\w\.(?:py|ya?ml|md|json|toml))\b"
)
# The wheel's layout, not the checkout's: assets are packaged under webapp/ from the top-level folder.
CITED_ELSEWHERE = ("webapp/assets/",)


def cited_paths(text: str) -> Iterator[str]:
    for match in CITED_PATH.finditer(text):
        if not match.group(1).startswith(CITED_ELSEWHERE):
            yield match.group(1)


def test_every_file_the_code_and_docs_cite_exists() -> None:
    """Docstrings and docs that send a reader to a file the repo no longer has are worse than none."""
    texts = [*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("Makefile")]
    texts += [p for folder in ("webapp", "tests", "bench") for p in (ROOT / folder).rglob("*.py")]
    missing = {
        f"{path.relative_to(ROOT)}: {cited}"
        for path in texts
        for cited in cited_paths(path.read_text())
        if not (ROOT / cited).exists()
    }
    assert not missing, sorted(missing)


def test_the_citation_reader_finds_a_path_in_prose() -> None:
    assert list(cited_paths("checked in tests/store/test_store.py, see webapp/assets/style.css.")) == [
        "tests/store/test_store.py"
    ]
