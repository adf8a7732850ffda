"""What a browser showing model output could fetch or follow: the URLs of the answer as rendered.

A pattern list over raw text misses what a renderer builds from structure: a reference definition whose
destination sits on the next line, one inside a block quote, an attribute split by a thousand spaces.
Gradio's Chatbot renders with marked (GitHub-flavoured markdown, whose autolinks turn ``www.`` names,
http(s) URLs and e-mail addresses into links) and keeps the raw HTML its sanitiser allows (img, style,
svg, meta, link...); API clients render with whatever they like. So an answer is judged by every view a
renderer could take of it, and a URL any view finds is judged by the allowlist:

- CommonMark structure (markdown-it-py, with link validation and normalisation off so every destination
  is seen as written): links, images, reference definitions, autolinks;
- HTML (html.parser decodes entities as a browser does): every URL-bearing attribute, ``srcset`` lists,
  ``<meta>`` refresh targets, CSS ``url()``, ``image-set()`` and ``@import`` in ``style`` attributes and
  ``<style>``, and comment bodies too (browsers end ``<!-->`` at once, html.parser does not);
- text: URLs with a scheme anywhere (code included: a non-markdown client may linkify them), and in prose
  (outside code) what a linkifier guesses: ``//host``, ``www.`` names, e-mail addresses and bare names
  under any root-zone TLD except a few that are common file extensions (``setup.py``, ``README.md``).
  Emphasis markers come off first, as the parser takes them off before linkify sees the text: in
  ``_evil.com_`` the underscore is markup, in ``foo_evil.com`` part of a word that is no link.

A scheme-relative ``//host`` resolves against the page, which is served over https. An e-mail address is
judged as a link to its domain.

Script in raw HTML outside code (an ``on...=`` handler, a ``<script>`` element) is judged as the
``javascript:`` link it amounts to: it can build any URL at run time (``eval(atob(...))``), so no URL view
could judge where it goes. Inside code blocks a markdown renderer shows it as text, and answers about web
pages are full of ``onclick``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from webapp.guard.holds import Fence, mask_code
from webapp.guard.tlds import ROOT_ZONE_TLDS
from webapp.guard.urlpolicy import LINK_TLDS, absolute_target, bare_urls, find_urls

# ccTLDs that are also everyday source-file extensions: "setup.py" in prose is a file, not Paraguay.
# Names under them still count as links with a scheme, "www.", a path or a port.
FILE_EXTENSION_TLDS = frozenset({"md", "py", "sh", "rs", "ps", "so", "pm", "tf"})
PROSE_TLDS = ROOT_ZONE_TLDS | LINK_TLDS

# Attributes a browser fetches or follows (HTML and SVG), or whose value holds such URLs (meta content,
# srcset lists, SVG animation values). Any other attribute is judged when it holds a "//host".
URL_ATTRIBUTES = frozenset(
    "href src srcset imagesrcset action formaction poster background data cite longdesc codebase classid "
    "archive usemap ping profile manifest icon lowsrc dynsrc xlink:href attributionsrc content values to "
    "from by".split()
)
_NESTED_HTML_ATTRIBUTES = frozenset({"srcdoc"})
_SLICE = 4000  # characters markdown-it parses at once
_SLICE_OVERLAP = 1500  # more than the stream's hold limit: a construct longer than that is escaped
_MAX_DEPTH = 3  # HTML inside comments inside srcdoc...: deeper nesting is judged by the text view only

# Characters without which the CommonMark and HTML views find nothing the text view does not.
_MARKUP = re.compile(r"[\[\]<>&`\\]")
# An underscore that opens or closes emphasis: one not inside a word.
_EMPHASIS_UNDERSCORES = re.compile(r"(?<![^\W_])_+")
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._+\-])[A-Za-z0-9._+\-]+@([a-zA-Z0-9\-_]+(?:\.[a-zA-Z0-9\-_]*[a-zA-Z0-9])+)(?![\-_])"
)
_VALUE_SEPARATORS = re.compile(r"[\s,;]+")
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(.))", re.S)
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)", re.S)
_CSS_URL = re.compile(r"(?i)url\(\s*(?:\"([^\"]*)\"|'([^']*)'|([^)\s]*))")
_CSS_STRING = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
_URL_LIKE = re.compile(r"\s*(?:[/\\]{2}|[A-Za-z][A-Za-z0-9+.\-]*:\S)")
_SCRIPT_HINT = re.compile(r"(?i)<\s*script|on[a-z]+\s*=")
# Mermaid's entity codes: "#58;" and "#colon;" are "&#58;" and "&colon;" (its pattern is "#\w+;").
_MERMAID_ENTITY = re.compile(r"#(\w{1,32});", re.ASCII)


class _EveryLink(MarkdownIt):
    """CommonMark that keeps every destination as written: ``javascript:`` links included, nothing encoded."""

    def validateLink(self, url: str) -> bool:
        return True

    def normalizeLink(self, url: str) -> str:
        return url


_MARKDOWN = _EveryLink("commonmark", {"html": True}).enable(["table", "strikethrough"])


def rendered_urls(text: str, *, code_fence: str = "") -> list[str]:
    """Every absolute URL a renderer of ``text`` could fetch or link to.

    ``code_fence``: the fence (e.g. "```") when ``text`` starts inside a fenced code block opened before it.
    """
    found = _rendered_urls(text, code_fence)
    if _MERMAID_ENTITY.search(text):
        # Mermaid (a ```mermaid block in most chat clients) turns "#58;" into ":" in a label it renders as
        # HTML: "<img src='https#58;#47;#47;host/p.png'>" loads that image. Judged as the HTML it becomes.
        found += _rendered_urls(_MERMAID_ENTITY.sub(_mermaid_entity, text), code_fence)
    return list(dict.fromkeys(found))


def _mermaid_entity(match: re.Match[str]) -> str:
    code = match.group(1)
    return f"&#{code};" if code.isdigit() else f"&{code};"


def _rendered_urls(text: str, code_fence: str) -> list[str]:
    document = code_fence + "\n" + text if code_fence else text
    found = find_urls(text, bare_names=False)
    prose = _EMPHASIS_UNDERSCORES.sub(" ", prose_of(text, code_fence))
    found += bare_urls(prose, PROSE_TLDS, FILE_EXTENSION_TLDS)
    found += ["https://" + m.group(1) + "/" for m in _EMAIL.finditer(prose)]
    if _MARKUP.search(text):
        targets = list(markdown_targets(document)) + html_urls(text)
        found += [_mail_domain(url) for url in map(absolute_target, targets) if url is not None]
        if _SCRIPT_HINT.search(prose):
            found += html_scripts(prose)
    return list(dict.fromkeys(found))


def _mail_domain(url: str) -> str:
    """A ``mailto:`` link as a link to the domain its message would go to."""
    if url[:7].lower() != "mailto:":
        return url
    return "https://" + url[7:].split("?", 1)[0].rpartition("@")[2] + "/"


def prose_of(text: str, code_fence: str = "") -> str:
    """``text`` with fenced code blocks and code spans blanked: where a linkifier never makes links."""
    return mask_code(text, Fence(code_fence))


def markdown_targets(text: str) -> Iterator[str]:
    """Destinations of links, images, autolinks and reference definitions, as CommonMark reads them."""
    for part in _slices(text):
        env: dict[str, Any] = {}
        tokens = _MARKDOWN.parse(part, env)
        for reference in env.get("references", {}).values():
            yield reference["href"]
        yield from _inline_targets(tokens)


def _slices(text: str) -> Iterator[str]:
    """``text`` in overlapping slices that start at a line: markdown-it is quadratic on some inputs ("["
    repeated), and no construct the stream lets through is longer than the overlap (it is held, then
    escaped)."""
    start = 0
    while True:
        end = start + _SLICE
        yield text[start:end]
        if end >= len(text):
            return
        next_start = end - _SLICE_OVERLAP
        line = text.rfind("\n", start + 1, next_start)
        start = line + 1 if line > start else next_start


def _inline_targets(tokens: Iterable[Token]) -> Iterator[str]:
    for token in tokens:
        if token.type == "link_open":
            yield str(token.attrGet("href") or "")
        elif token.type == "image":
            yield str(token.attrGet("src") or "")
        if token.children:
            yield from _inline_targets(token.children)


def html_urls(text: str, depth: int = 0) -> list[str]:
    """URLs in the attributes, style sheets and comments of the HTML in ``text`` (relative ones too)."""
    parser = _HtmlUrls(depth)
    parser.feed(_closed_tags_only(text))
    parser.close()
    return parser.found


def _closed_tags_only(text: str) -> str:
    """``text`` with every "<" after the last ">" escaped: such a tag never closes, so no browser builds
    it, and html.parser re-scans an unclosed tag from every "<" (quadratic: 3 KB of "<a " took 0.5 s)."""
    last = text.rfind(">")
    return text if "<" not in text[last + 1 :] else text[: last + 1] + text[last + 1 :].replace("<", "&lt;")


def html_scripts(text: str) -> list[str]:
    """The script in the raw HTML of ``text`` (handlers, ``<script>`` elements), as ``javascript:`` links."""
    parser = _HtmlUrls(_MAX_DEPTH)
    parser.feed(_closed_tags_only(text))
    parser.close()
    return parser.scripts


class _HtmlUrls(HTMLParser):
    def __init__(self, depth: int) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.scripts: list[str] = []
        self._depth = depth
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        if tag == "script":
            self.scripts.append("javascript:<script>")
        for name, value in attrs:
            if name.startswith("on"):
                self.scripts.append(f"javascript:{value or ''}")
            if value:
                self.found += self._attribute_urls(name, value)

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.found += css_urls(data)

    def handle_comment(self, data: str) -> None:
        if self._depth < _MAX_DEPTH:
            self.found += html_urls(data, self._depth + 1)

    def _attribute_urls(self, name: str, value: str) -> list[str]:
        if name == "style":
            return css_urls(value)
        if name in _NESTED_HTML_ATTRIBUTES and self._depth < _MAX_DEPTH:
            return html_urls(value, self._depth + 1)
        if name not in URL_ATTRIBUTES and not value.lstrip().startswith(("//", "\\\\", "/\\", "\\/")):
            return []
        # the value whole, and each of its parts: "a.png 1x, //b.png 2x", "0; url=//host", "a;//b"
        parts = [re.sub(r"(?i)^url=", "", p).strip("'\"") for p in _VALUE_SEPARATORS.split(value)]
        return [value, *parts]


def css_urls(css: str) -> list[str]:
    """URLs a style sheet may load: ``url()``, and strings (``@import "x"``, ``image-set("x" 1x)``)."""
    css = _CSS_COMMENT.sub(" ", _CSS_ESCAPE.sub(_css_unescape, css))
    found = [next(g for g in m.groups() if g is not None) for m in _CSS_URL.finditer(css)]
    strings = [m.group(1) if m.group(1) is not None else m.group(2) for m in _CSS_STRING.finditer(css)]
    return found + [s for s in strings if _URL_LIKE.match(s)]


def _css_unescape(match: re.Match[str]) -> str:
    hex_digits, char = match.groups()
    if hex_digits is None:
        return "" if char == "\n" else char
    code = int(hex_digits, 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
