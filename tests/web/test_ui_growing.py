"""A streamed answer reaches Gradio as a string that only grows while its last paragraph does, so Gradio's
diff sends the new words ("append") instead of the whole answer again, and no update holds an unclosed tag."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import gradio as gr
from gradio.utils import diff

from tests.support.scripted_upstream import Script
from tests.support.service import make_service
from webapp.guard.urlpolicy import UrlPolicy
from webapp.web.ui import INSTANT, ChatMarkdown, ChatUI, UIState

# Prose with inline markup and a second paragraph: each word a delta, as a model streams it.
ANSWER = (
    "Take the **tram** from the old harbour to the `river market` and see the docs "
    "before you walk back along the quays in the evening.\n\nThe second paragraph starts here and keeps "
    "on growing word by word until the answer ends."
)


class _Balance(HTMLParser):
    """The open elements once a fragment is read: empty when every tag it opens is closed."""

    VOID = {"br", "img", "hr", "input", "path"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: Any) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open}"
        self.open.pop()


def balanced(fragment: str) -> bool:
    reader = _Balance()
    reader.feed(fragment)
    reader.close()
    return not reader.open


def test_a_growing_paragraph_is_left_open_and_nothing_else_changes() -> None:
    markdown = ChatMarkdown(UrlPolicy(["ok.example"]).allows)
    words = ANSWER.replace("the docs", "[the docs](https://ok.example/a)").split(" ")
    for n in range(1, len(words) + 1):
        text = " ".join(words[:n])
        whole, growing = markdown.render(text), markdown.render_growing(text)
        assert balanced(growing)
        head, _, tail = whole.rpartition("<p>")
        assert growing == head + "<p></p>" + tail.removesuffix("</p>\n")
    for text in ("- a\n- b", "```py\nx = 1", "Title\n===", "> quoted", "| a |\n|---|\n| b |"):
        assert markdown.render_growing(text) == markdown.render(text)  # only a last paragraph is left open


async def test_gradio_sends_a_growing_answer_as_appends(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    # A code span split over two updates renders as text and then as code (one more "replace"): how the
    # words fall into updates depends on timing, so the span arrives whole and the count cannot flake.
    deltas = re.findall(r"`[^`]*` ?|[^ ]+ ?", ANSWER)
    upstream.push(Script(answer=deltas, delay_s=0.05))
    chatbot = gr.Chatbot(render_markdown=False, sanitize_html=True)
    values = [
        chatbot.postprocess(view.history).model_dump() async for view in ui.turn("Hi", [], UIState(), INSTANT)
    ]
    answers = [value[1]["content"][0]["text"] for value in values if len(value) > 1]
    assert len(answers) > 6 and all(balanced(text) for text in answers)
    ops = [op for old, new in zip(values[:-1], values[1:-1], strict=False) for op in diff(old, new)]
    growing = [op for op in ops if op[1][:1] == [1]]  # the answer's message (the user's is message 0)
    replaced = [op for op in growing if op[0] == "replace"]
    assert growing and len(replaced) <= 1, replaced  # at most once: when the second paragraph begins
    assert sum(len(op[2]) for op in growing if op[0] != "add") < 2 * len(ANSWER)  # not ~ n^2 / 2
