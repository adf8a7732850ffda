"""Tool-call fragments become whole calls before anything of them is handed on."""

from __future__ import annotations

from webapp.turn.toolcalls import ToolCallAssembler
from webapp.upstream.client import Delta


def fragments(index: int, call_id: str, name: str, arguments: str, size: int = 5) -> list[Delta]:
    pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    return [Delta("tool_call", "", index, call_id, name)] + [Delta("tool_call", p, index) for p in pieces]


def test_a_call_is_handed_on_once_its_arguments_are_whole_json() -> None:
    assembler = ToolCallAssembler()
    ready = [r for d in fragments(0, "call_a", "get_weather", '{"city": "Oslo"}') for r in assembler.add(d)]
    assert len(ready) == 1
    assert (ready[0].call.call_id, ready[0].call.name, ready[0].fragment, ready[0].first) == (
        "call_a",
        "get_weather",
        '{"city": "Oslo"}',
        True,
    )
    assert assembler.finish() == []
    assert assembler.openai() == [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
        }
    ]


def test_an_unfinished_call_is_handed_on_when_the_next_begins_or_the_stream_ends() -> None:
    assembler = ToolCallAssembler()
    held = [r for d in fragments(0, "call_a", "f", '{"broken": ') for r in assembler.add(d)]
    assert held == []
    on_next = assembler.add(Delta("tool_call", "", 1, "call_b", "g"))
    assert [r.call.call_id for r in on_next] == ["call_a"]
    assert [r.call.call_id for r in assembler.finish()] == ["call_b"]  # no arguments at all: still a call


def test_what_a_model_adds_to_a_released_call_is_handed_on_as_more_arguments() -> None:
    assembler = ToolCallAssembler()
    first = [r for d in fragments(0, "call_a", "f", "{}") for r in assembler.add(d)]
    more = assembler.add(Delta("tool_call", " ", 0))
    assert [r.first for r in first] == [True] and [(r.fragment, r.first) for r in more] == [(" ", False)]


def test_a_call_without_an_id_gets_one() -> None:
    assembler = ToolCallAssembler()
    assembler.add(Delta("tool_call", "{}", 0, None, "f"))
    assert assembler.openai()[0]["id"].startswith("call_")
