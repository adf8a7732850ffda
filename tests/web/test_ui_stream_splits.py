"""What the chat page shows while a blocked answer streams, wherever the stream is cut (issue 14).

The output filter releases text word by word and holds only unfinished constructs; the UI renders every
released prefix (``render`` once settled, ``render_growing`` while Gradio streams the growing paragraph).
A cut the filter did not foresee would show a live link or image to a blocked host for one update, and the
browser loads an image at once. So the blocked corpus is streamed in two chunks cut at every offset and in
1-character chunks, on the answer and on the reasoning channel, and every rendered prefix is read back with
an HTML parser judged against the allowlist independently of the renderer's own check.
"""

from __future__ import annotations

import asyncio
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
import yaml

from tests.support.paths import TEST_DATA
from webapp.guard.outputfilter import Channel, OutputFilter
from webapp.guard.urlpolicy import UrlPolicy
from webapp.web.ui.markdown import ChatMarkdown

ALLOWED = ("en.wikipedia.org", "github.com", "docs.python.org")
ALLOWED_SUFFIX = ".example.com"
BLOCKED = [
    c
    for c in yaml.safe_load((TEST_DATA / "output_cases.yaml").read_text(encoding="utf-8"))
    if c["expect"] == "block" and c.get("rail") == "url_allowlist"
]


def allowed(url: str) -> bool:
    parts = urlsplit(url.strip())
    if not parts.scheme and not parts.netloc:
        return True  # a fragment or a path on this page
    host = (parts.hostname or "").rstrip(".")
    return parts.scheme in ("http", "https", "") and (host in ALLOWED or host.endswith(ALLOWED_SUFFIX))


class LiveTargets(HTMLParser):
    """Every URL the rendered HTML would follow or load, and any Mermaid block the page would run."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "srcset", "poster", "data", "action", "background") and value:
                self.found.append(value)
            if name == "class" and value and "mermaid" in value.split():
                self.found.append(f"mermaid:{tag}")


def blocked_targets(html: str) -> list[str]:
    parser = LiveTargets()
    parser.feed(html)
    parser.close()
    return [url for url in parser.found if not allowed(url)]


POLICY = UrlPolicy([*ALLOWED, "*" + ALLOWED_SUFFIX])


async def shown_prefixes(channel: Channel, chunks: list[str]) -> tuple[list[str], bool]:
    """Every released prefix of ``channel`` until the filter blocks, and whether it did. The URL rail alone:
    moderation only ever holds text longer, never releases more, and loading it would take most of this
    test's time."""
    flt = OutputFilter(url_policy=POLICY, moderate=None)
    shown, prefixes = "", []
    for step in [*[await flt.feed(channel, c) for c in chunks], await flt.flush()]:
        if step.released.get(channel):
            shown += step.released[channel]
            prefixes.append(shown)
        if step.block:
            return prefixes, True
    return prefixes, False


def splits(text: str) -> list[list[str]]:
    return [*([text[:i], text[i:]] for i in range(1, len(text))), list(text)]


@pytest.mark.parametrize("channel", ["answer", "reasoning"])
def test_no_rendered_prefix_of_a_blocked_answer_is_live(channel: Channel) -> None:
    markdown = ChatMarkdown(POLICY.allows)
    streams = 0
    live, unblocked = [], []
    for case in BLOCKED:
        text = case.get("reasoning") or case["answer"]  # the channel the payload was written in
        for chunks in splits(text):
            streams += 1
            prefixes, blocked = asyncio.run(shown_prefixes(channel, chunks))
            for prefix in prefixes:
                found = blocked_targets(markdown.render(prefix)) + blocked_targets(
                    markdown.render_growing(prefix)
                )
                if found:
                    live.append((case["why"], len(chunks), prefix, found))
            if not blocked:
                unblocked.append((case["why"], chunks))
    assert live == [], live[:3]
    assert unblocked == [], unblocked[:3]
    assert streams > 6000
