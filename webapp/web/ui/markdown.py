"""Markdown -> HTML for the chat, rendered on the server with every link and image judged by the URL policy.

The Chatbot gets finished HTML (``render_markdown=False``), so what the browser shows is exactly what this
CommonMark parser (markdown-it-py) made of the text: raw HTML is escaped, and a link, autolink, bare URL or
image whose target the rails would block stays plain text - in answers, reasoning, refusals and the user's
own bubbles alike. markdown-it's ``validateLink`` hook is the one gate; the URL judgement itself is the
guard's ``UrlPolicy`` (passed in as ``allows``), never repeated here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

# The same copy button Gradio's own markdown renderer puts on code blocks; the Chatbot's click handler
# copies the text of the button's parent.
COPY_BUTTON = "".join(
    [
        '<button title="copy" class="copy_code_button" type="button"><span class="copy-text">',
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 15 15" aria-hidden="true" width="15" height="15">',
        '<path fill="currentColor" d="M12.728 4.545v8.182H4.545V4.545zm0 -0.909H4.545a0.909 0.909 0 0 0 ',
        "-0.909 0.909v8.182a0.909 0.909 0 0 0 0.909 0.909h8.182a0.909 0.909 0 0 0 0.909 -0.909V4.545a0.909 ",
        '0.909 0 0 0 -0.909 -0.909"/><path fill="currentColor" d="M1.818 8.182H0.909V1.818a0.909 0.909 0 0 1 ',
        '0.909 -0.909h6.364v0.909H1.818Z"/></svg></span>',
        '<span class="check"><svg xmlns="http://www.w3.org/2000/svg" width="17" height="17" viewBox="0 0 17 17" ',
        'aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.3">',
        '<path d="m13.813 4.781 -7.438 7.438 -3.188 -3.188"/></svg></span></button>',
    ]
)


# A fence's language becomes the class ``language-<word>``, and only a plain word does. The class attribute is a
# list split on any HTML whitespace: a language cut at spaces only ("```a<TAB>mermaid") let the model name
# classes of its own, and Gradio's page runs Mermaid over every ``.mermaid`` element, whose labels keep HTML
# (an ``<img>`` to any host, its URL spelled in Mermaid's own ``#58;`` entities that no rail reads).
_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.\-]{1,40}")


class ChatMarkdown:
    """Renders chat text; ``allows(url)`` decides which link and image targets may stay live."""

    def __init__(self, allows: Callable[[str], bool]) -> None:
        self.allows = allows
        md = MarkdownIt("commonmark", {"html": False, "linkify": True, "breaks": True})
        md.enable(["table", "strikethrough", "linkify"])
        md.validateLink = self._validate  # type: ignore[method-assign]
        md.add_render_rule("link_open", _link_open)
        md.add_render_rule("fence", _code_block)
        md.add_render_rule("code_block", _code_block)
        self._md = md

    def _validate(self, url: str) -> bool:
        return self.allows(url)

    def render(self, text: str) -> str:
        return self._md.render(text)

    def render_growing(self, text: str) -> str:
        """``render(text)``, except that a last block that is a paragraph is left out of its ``<p>``.

        Gradio sends a streamed message as an "append" only when the new string starts with the one sent
        before; HTML that ends in ``</p>`` never does, so the whole answer went again for every update. The
        growing paragraph's inline HTML is balanced on its own (markdown-it closes each inline tag it opens),
        so the page never gets an unclosed tag, and while only that paragraph grows each update extends the
        string before it. An empty ``<p></p>`` goes before it: its margins (which collapse with the block's
        before it, as a paragraph's do) keep the growing text where the paragraph will stand once closed.
        Nothing else differs from ``render``: same parse, same escaping, same link judgement.
        """
        env: EnvType = {}
        tokens = self._md.parse(text, env)
        renderer, options = self._md.renderer, self._md.options
        if len(tokens) < 3 or [t.type for t in tokens[-3:]] != [*_PARAGRAPH] or tokens[-3].level:
            return renderer.render(tokens, options, env)
        head, inline = (
            renderer.render(tokens[:-3], options, env),
            renderer.render(tokens[-2:-1], options, env),
        )
        return f"{head}<p></p>{inline}"


_PARAGRAPH = ("paragraph_open", "inline", "paragraph_close")


def _link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # Off-site links open in a new tab and tell the other site nothing about this page.
    tokens[idx].attrSet("target", "_blank")
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


def _code_block(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    token = tokens[idx]
    words = token.info.split()
    language = words[0] if words and _LANGUAGE.fullmatch(words[0]) else ""
    css = f' class="language-{language}"' if language else ""
    return f'<div class="code_wrap">{COPY_BUTTON}<pre><code{css}>{html.escape(token.content)}</code></pre></div>\n'
