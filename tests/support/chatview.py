"""Reading a chat message the UI produced: its HTML as shown, and the text its copy button carries."""

from __future__ import annotations

import html
import re

_COPY_SOURCE = re.compile(r'<span class="copy-source" aria-hidden="true">(.*?)</span>', re.S)


def shown(message: dict) -> str:
    """A message's HTML without its copy button (which carries the text as it passed: ``copied``)."""
    return str(message["content"]).split('<div class="message-copy">')[0]


def copied(message: dict) -> str:
    found = _COPY_SOURCE.search(message["content"])
    assert found, "the message has no copy source"
    return html.unescape(found.group(1))
