"""Where streamed text may be cut: after a finished word, before an unfinished link, tag or definition.

A word is finished once whitespace follows it (until then it may be the start of a URL whose host is not
known yet). A construct a renderer could still turn into a link or a tag is unfinished until it closes:
``[text`` (until ``]``), ``[text](dest`` (until ``)``), ``[ref]:`` (until a destination follows, which
CommonMark also takes from the next line), ``<tag`` (until a ``>`` outside quotes), ``<!--`` (until
``-->``). Text before such a construct can be shown; the construct waits. One still open after
``hold_limit`` characters, or when the stream ends, is shown with its opening character escaped
(``&lt;``, ``\\[``), so nothing that arrives later can complete it.

Fenced code blocks render as text in every markdown renderer, so nothing inside one is held or escaped
(escaping there would show ``&lt;`` in the code). When unsure, this module holds: holding longer only
delays text, releasing early could show a tag half-built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WHITESPACE_RUN = re.compile(r"\s+")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_CODE_SPAN = re.compile(r"(`+)(?!`)[^\n]*?(?<!`)\1(?!`)")
_SIGNIFICANT = re.compile(r"\\.|<|\[|\]|\n[ \t]*\n", re.S)
_TAG_START = re.compile(r"<(?:[A-Za-z/?!]|[A-Za-z][A-Za-z0-9+.\-]*:)")
# The rest of a tag from after its "<": quoted values may hold ">"; a lone quote keeps it open (holding).
_TAG_REST = re.compile(r"(?:\"[^\"]*\"|'[^']*'|[^\"'>])*>")
_OPENINGS = re.compile(r"\\.|[<\[]", re.S)
_REFDEF_WAITING = re.compile(r":[ \t]*(?:\n[ \t]*)?\Z")


@dataclass(frozen=True)
class Fence:
    """The fenced code block a line starts in ("" when none is open)."""

    marker: str = ""

    def after(self, lines: str) -> Fence:
        """The fence state after ``lines`` (complete lines only)."""
        marker = self.marker
        for line in lines.split("\n"):
            marker = _next_fence(marker, line)
        return Fence(marker)


def code_lines(text: str) -> list[tuple[str, bool]]:
    """Each line of ``text`` and whether it is code: a fence line or a line inside a fenced block (one the text
    leaves open too: a streamed answer's code block is code before its closing fence arrives)."""
    marked = []
    marker = ""
    for line in text.split("\n"):
        following = _next_fence(marker, line)
        marked.append((line, bool(marker or following)))
        marker = following
    return marked


def _next_fence(marker: str, line: str) -> str:
    if not marker:
        match = _FENCE_OPEN.match(line)
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            return match.group(1)
        return ""
    # marked also closes on a longer run followed by other fence characters ("```~~"): closing early
    # only treats more text as markdown, which is the careful side
    stripped = line.strip()
    closes = (
        len(line) - len(line.lstrip(" ")) <= 3
        and stripped.startswith(marker)
        and not set(stripped) - set("`~")
    )
    return "" if closes else marker


def mask_code(text: str, fence: Fence) -> str:
    """``text`` with fenced code and code spans blanked (same length): no construct starts in code."""
    if "`" not in text and "~" not in text and not fence.marker:
        return text
    lines = text.split("\n")
    marker = fence.marker
    for i, line in enumerate(lines):
        following = _next_fence(marker, line)
        if marker or following:  # inside a block, or the line that opens one
            lines[i] = " " * len(line)
        marker = following
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), "\n".join(lines))


def word_end(text: str) -> int:
    """Where the last finished word of ``text`` ends (after its whitespace); 0 if none is finished."""
    end = 0
    for match in _WHITESPACE_RUN.finditer(text):
        end = match.end()
    return end


def unfinished_start(text: str, start: int = 0) -> int | None:
    """Where the first construct still open at the end of ``text`` begins, looking from ``start`` on.

    ``text`` should be masked (``mask_code``); an opening at or after ``start`` is reported.
    """
    tags = _open_tag(text, start)
    brackets = _open_bracket(text, start)
    found = [p for p in (tags, brackets) if p is not None]
    return min(found) if found else None


def _open_tag(text: str, start: int) -> int | None:
    pos = start
    while True:
        lt = text.find("<", pos)
        if lt == -1:
            return None
        if _escaped(text, lt) or not _TAG_START.match(text, lt):
            pos = lt + 1
            continue
        if text.startswith("<!--", lt):
            close = text.find("-->", lt + 4)
            end = close + 3 if close != -1 else -1
        else:
            match = _TAG_REST.match(text, lt + 1)
            end = match.end() if match else -1
        if end == -1:
            return lt
        pos = end


def _escaped(text: str, at: int) -> bool:
    backslashes = len(text[:at]) - len(text[:at].rstrip("\\"))
    return backslashes % 2 == 1


def _open_bracket(text: str, start: int) -> int | None:
    """The outermost "[" of a link, image or definition that could still form (paragraph by paragraph)."""
    opened: list[int] = []
    for match in _SIGNIFICANT.finditer(text, start):
        token = match.group(0)
        if token == "[":
            opened.append(match.start())
        elif token == "]" and opened:
            first = opened.pop()
            if not opened and _link_still_forming(text, match.end()):
                return _with_bang(text, first)
        elif token.startswith("\n"):
            opened.clear()  # a blank line ends the paragraph: nothing before it can become a link
    return _with_bang(text, opened[0]) if opened else None


def _link_still_forming(text: str, after: int) -> bool:
    """After "[...]" at ``after``: an unclosed "(destination" or a "[ref]:" still waiting for its URL."""
    rest = text[after:]
    if rest.startswith("("):
        return _unclosed_paren(rest)
    if rest.startswith(":"):
        return _REFDEF_WAITING.match(rest) is not None
    return rest == ""


def _unclosed_paren(rest: str) -> bool:
    depth, i = 0, 0
    while i < len(rest):
        char = rest[i]
        if char == "\\":
            i += 2
            continue
        if char == "<" and depth == 1 and i == 1:
            close = rest.find(">", i)
            if close == -1:
                return True
            i = close + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return False
        i += 1
    return True


def _with_bang(text: str, bracket: int) -> int:
    return bracket - 1 if bracket > 0 and text[bracket - 1] == "!" else bracket


def escape_openings(text: str, masked: str, start: int, end: int) -> str:
    """``text`` with every construct opening in ``[start, end)`` made inert: ``<`` as ``&lt;``, ``[`` as
    ``\\[`` (not in code, where ``masked`` is blank, nor where already escaped). One pass, however many."""

    def inert(match: re.Match[str]) -> str:
        char = match.group(0)
        if char.startswith("\\") or masked[start + match.start()] not in "<[":
            return char
        return "&lt;" if char == "<" else "\\["

    return text[:start] + _OPENINGS.sub(inert, text[start:end]) + text[end:]
