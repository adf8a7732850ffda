"""What a reader sees of a text, before any rule reads it: markup rendered away, invisible characters gone,
look-alike letters read as the letters they imitate.

The rules are regular expressions over words, so anything that changes the characters without changing
what a reader sees walks around them: ``**Jews** are **vermin**`` and ``Jews are &#118;ermin`` render as
plain hate in the chat (CommonMark decodes entities and drops emphasis markers), ``v\u0301ermin`` and
``v\u2063ermin`` look like "vermin", ``I will кill you`` uses a Cyrillic letter, and a right-to-left
override shows ``\u202e.nimrev era sweJ`` backwards, as hate. Each of these got past the rules once.

So the text is first read as shown:
- entities decoded, HTML comments and tags dropped (an API client renders them; the chat UI escapes
  tags, but then the words beside them are still read together), emphasis, code, link brackets and
  backslash escapes taken off the words they wrap;
- a run of text under a right-to-left override reversed, as a browser displays it;
- format characters (zero-width, bidi controls, invisible operators, tag characters), combining marks
  and variation selectors dropped, fillers that render as blank read as a space;
- every letter Unicode lists as confusable with a Latin letter (TR39 ``confusables.txt``, from the
  ``confusable-homoglyphs`` wheel), and every letter whose capital is, read as that Latin letter;

Two more readings are judged beside that one (by the rules only, so the units of ordinary text stay as they
were): ``joined_lines``, a line break inside a paragraph read as the space a renderer makes of it ("You
should kill\\nyourself" is one sentence on screen; a line that starts or ends a block - heading, list
item, quote, table row, fence, blank line - still ends it), ``without_struck``: struck-through text
(``~~not~~``, ``<del>``) is shown struck, and a reader takes it as withdrawn, and ``read_across``: a table
row is read across its cells as one sentence ("| X | are | vermin |"), so is a run of list items of a few
words each ("- X\n- are\n- vermin"), and words joined by dots or underscores are read apart ("x.are.vermin"),
as a reader reads them. And ``closed_spaces``: a space other
than the ordinary one (no-break, thin, en, ideographic...) between two letters is read as nothing
("ver\u00a0min"): NFKC makes it a plain space, which cut the word in two for the rules, while a typist
rarely puts one inside a sentence by hand (French and number typography put them beside punctuation and
digits, which this reading leaves alone). And ``unquoted``: a word in scare quotes is the speaker's word
("X are 'vermin'"), not a quotation. A heading a paragraph goes on from in lower case ("# X" then "are
vermin") is read as one sentence with it, and a two-cell table row as "cell: cell". And ``markup_as_text``: the
chat UI shows raw HTML escaped, not rendered, so there a tag is seen as itself between two words ("X are<br>vermin"
shows "X are<br>vermin", not "X arevermin"), and an attribute's value or a comment is text on the screen
(``<span title="...">``, ``<!-- ... -->``); a link's title is shown too, as a tooltip, or as text where the link
is off the allowlist and rendered plain (``[a](https://x "...")``).
"""

from __future__ import annotations

import functools
import html
import json
import re
import string
import unicodedata
from importlib import resources

__all__ = [
    "as_shown",
    "closed_spaces",
    "hashtags_apart",
    "joined_lines",
    "read_across",
    "markup_as_text",
    "unquoted",
    "without_struck",
]

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_COMMENT_MARKS = re.compile(r"<!--|--!?>")
_LINK_TITLE = re.compile(r"""\]\(\s*(?:<[^<>\n]*>|[^()\s]*)\s+(?:"([^"]*)"|'([^']*)'|\(([^()]*)\))\s*\)""")
_ATTRIBUTE_VALUE = re.compile(r"""=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""")
_BLOCK_TAG = re.compile(r"</?(?:p|div|br|li|ul|ol|tr|td|th|table|h[1-6]|blockquote|pre|hr)\b[^>]*>", re.I)
_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?/?>")
_STRUCK = re.compile(r"~~.+?~~|<(del|s|strike)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
# A footnote reference renders as a superscript number beside the word ("are[^1]"): no part of the word.
_FOOTNOTE = re.compile(r"\[\^[^\]\s]{1,32}\](?!:)")
# A hashtag in CamelCase: words run together with a capital for each space, two words or more.
_HASHTAG = re.compile(r"#([A-Z][a-z]+(?:[A-Z][a-z]*){1,7})\b")
_CAPITAL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Emphasis, code and strike markers, link brackets and backslash escapes: shown as nothing.
_INLINE_MARKS = re.compile(r"[*`~\[\]\\]+|(?<![a-zA-Z0-9])_+|_+(?![a-zA-Z0-9])")
_INLINE_SIGN = re.compile(r"[*`~\[\]\\_]")  # every mark above is one of these: most prose holds none
# A line that is a block of its own, or starts one: the line break before or after it ends a sentence.
_BLOCK_LINE = re.compile(r"^\s*(?:$|#{1,6}(?:\s|$)|[-*+>|](?:\s|$)|\d{1,9}[.)](?:\s|$)|```|~~~|\|)")
_ENDS_BLOCK = re.compile(r"\s*(?:$|#|\||```|~~~)")
_RLO_RUN = re.compile("\u202e([^\u202c\n]*)\u202c?")
_BLANK = dict.fromkeys(map(ord, "\u115f\u1160\u3164\uffa0\u2800"), " ")
_HSPACE = re.compile(r"[^\S\n]{2,}")
_TABLE_ROW = re.compile(r"^[^\S\n]*\|?[^|\n]*\|[^|\n]*\|.*$", re.MULTILINE)  # two cell borders or more
# A Unicode space that is not the ASCII one, between two letters.
_ODD_SPACE = re.compile(r"(?<=[^\W\d_])[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000](?=[^\W\d_])")
_JOINED_WORDS = re.compile(r"(?<![\w./])[a-zA-Z]{2,}(?:[._][a-zA-Z]{2,}){2,}(?![\w/])")
# Three or more list items in a row of one to three words each, no sentence of their own: a sentence cut into
# items ("- X\n- are\n- vermin"), read across like a table row.
_WORD_ITEMS = re.compile(
    r"(?:^[^\S\n]*(?:[-*+\u2022]|\d{1,2}[.)])[^\S\n]+[^\W\d_][\w'-]*(?:[^\S\n]+[\w'-]+){0,2}[^\S\n]*(?:\n|$)){3,}",
    re.MULTILINE,
)
_ITEM_MARK = re.compile(r"^[^\S\n]*(?:[-*+\u2022]|\d{1,2}[.)])[^\S\n]+", re.MULTILINE)


def as_shown(text: str) -> str:
    """The text as a reader sees it rendered (see the module docstring); case is kept."""
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _TAG.sub("", _BLOCK_TAG.sub("\n", _COMMENT.sub("", text)))
    if "](" in text:
        text = _LINK_TARGET.sub("", text)
    if "[^" in text:
        text = _FOOTNOTE.sub("", text)
    if _INLINE_SIGN.search(text):
        text = _INLINE_MARKS.sub("", text)
    if "\u202e" in text:
        text = _RLO_RUN.sub(lambda m: m.group(1)[::-1], text)
    text = _plain_letters(text)
    return _HSPACE.sub(" ", text)


def visible(text: str) -> str:
    """The text without format characters (zero-width spaces and joiners cannot split a word in two)."""
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def without_struck(text: str) -> str | None:
    """The text without its struck-through passages, or None if it has none."""
    if "~~" not in text and "<" not in text:
        return None
    stripped = _STRUCK.sub("", text)
    return stripped if stripped != text else None


def hashtags_apart(text: str) -> str | None:
    """Each hashtag in CamelCase read as the words its capitals start ("#DeportAllMuslims" -> "Deport All
    Muslims"), as a reader reads it; or None if the text has none. Only after "#": a CamelCase identifier
    in code ("killAllProcesses") is no sentence."""
    if "#" not in text:
        return None
    apart = _HASHTAG.sub(lambda m: _CAPITAL.sub(" ", m.group(1)), text)
    return apart if apart != text else None


def read_across(text: str) -> str | None:
    """Each table row as one sentence of its cells (two cells as "label: value"), a run of list items of a
    few words each as one sentence, and words joined by dots or underscores apart; or None if the text has
    none of these."""
    if "|" not in text and "." not in text and "_" not in text and "\n" not in text:
        return None
    across = _TABLE_ROW.sub(lambda m: _row_sentence(m.group(0)), text)
    across = _WORD_ITEMS.sub(lambda m: " ".join(_ITEM_MARK.sub("", m.group(0)).split()) + ".\n", across)
    across = _JOINED_WORDS.sub(lambda m: re.sub(r"[._]", " ", m.group(0)), across)
    return across if across != text else None


def markup_as_text(text: str) -> str | None:
    """The text as the chat UI shows it, raw HTML escaped: each tag a break between words with its attribute
    values read as text, each comment's content and each link's title read as text; or None if it has none."""
    shown = text
    if "](" in shown:
        shown = _LINK_TITLE.sub(lambda m: "] " + "".join(m.groups(default="")) + " ", shown)
    if "<" in shown:
        shown = _TAG.sub(_tag_as_text, _COMMENT_MARKS.sub(" ", shown))
    return shown if shown != text else None


def _tag_as_text(tag: re.Match[str]) -> str:
    values = (value for groups in _ATTRIBUTE_VALUE.findall(tag.group(0)) for value in groups if value)
    return " " + " ".join(values) + " "


def closed_spaces(text: str) -> str | None:
    """The text with its non-ASCII spaces between letters taken out, or None if it has none."""
    if text.isascii():
        return None
    closed = _ODD_SPACE.sub("", text)
    return closed if closed != text else None


def _row_sentence(row: str) -> str:
    cells = [c.strip() for c in row.split("|") if c.strip()]
    return (": " if len(cells) == 2 else " ").join(cells) + "."


# One word in quotes as what something is ("X are 'vermin'") is the speaker's own, marked; a word named as a
# word ('the word "X"', 'calling them "X"') is a mention, and stays quoted.
_SCARE_QUOTED = re.compile(
    r"(\b(?:are|is|was|were|be|as|like)\s+(?:(?:an?|the|just|all|such)\s+)?)['\"‘“]([^\W\d_][\w-]{2,})['\"’”](?![\w'])"
)


def unquoted(text: str) -> str | None:
    """The text with single words in scare quotes read as plain words, or None if it has none."""
    shown = _SCARE_QUOTED.sub(r"\1\2", text)
    return shown if shown != text else None


# A heading that the next paragraph goes on from in lower case ("# X", then "are vermin").
_RUN_ON_HEADING = re.compile(
    r"^#{1,6}[^\S\n]+([^\n]*?)[^\S\n]*\n(?:[^\S\n]*\n)*(?=[^\S\n]*[a-z])", re.MULTILINE
)


def joined_lines(text: str) -> str | None:
    """The text with its line breaks inside a paragraph (or a list item's lazy continuation) read as the
    spaces a renderer makes of them, or None if it has none."""
    if "\n" not in text:
        return None
    lines = _RUN_ON_HEADING.sub(r"\1 ", text).split("\n")
    out = [lines[0]]
    for before, line in zip(lines, lines[1:], strict=False):
        soft = not _BLOCK_LINE.match(line) and not _ENDS_BLOCK.match(before)
        out.append((" " if soft else "\n") + line)
    joined = "".join(out)
    return joined if joined != text else None


def _plain_letters(text: str) -> str:
    """Combining marks, format characters and variation selectors dropped; look-alikes read as Latin."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_BLANK))
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in _INVISIBLE_CATEGORIES)
    return unicodedata.normalize("NFKC", kept).translate(_confusables())


_INVISIBLE_CATEGORIES = frozenset({"Mn", "Me", "Cf"})


@functools.cache
def _confusables() -> dict[int, str]:
    """Every single character Unicode lists as confusable with a Latin letter, mapped to that letter.

    ``confusables.txt`` pairs characters; a letter is reached through the pairs (Cyrillic "к" pairs with
    "ĸ" only, so it is read through its capital "К", which pairs with "K"). Where a group of look-alikes
    holds both "i" and "l", a character is read as the one its name says, else "l"."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text())
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        parent.setdefault(c, c)
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char, alikes in data.items():
        for alike in alikes:
            if len(char) == 1 and len(alike["c"]) == 1:
                parent[root(char)] = root(alike["c"])
    latin: dict[str, set[str]] = {}
    for c in list(parent):
        if c in string.ascii_letters:
            latin.setdefault(root(c), set()).add(c.lower())
    table: dict[int, str] = {}
    for c in parent:
        letters = latin.get(root(c))
        if c.isascii() or not letters:
            continue
        table[ord(c)] = next(iter(letters)) if len(letters) == 1 else _i_or_l(c)
    for c in _capitals_only(table):
        table[ord(c)] = table[ord(c.upper())].lower()
    return {**table, **_named_letters()}


_NAMED_LETTER = re.compile(r"\b(?:LATIN|REGIONAL INDICATOR)\b.*\b(?:LETTER|CAPITAL) ([A-Z])$")


def _named_letters() -> dict[int, str]:
    """Letters whose Unicode name says which Latin letter they draw, which NFKC does not fold: small
    capitals ("ᴇ"), negative squared and circled letters ("🅴"), regional indicators ("🇪")."""
    table = {}
    for code in (*range(0x80, 0x2FFF), *range(0xA720, 0xA7FF), *range(0x1F100, 0x1F200)):
        match = _NAMED_LETTER.search(unicodedata.name(chr(code), ""))
        if match and not unicodedata.normalize("NFKC", chr(code)).isascii():
            table[code] = match.group(1).lower()
    return table


def _capitals_only(table: dict[int, str]) -> list[str]:
    """Lower-case letters Unicode does not pair with a Latin letter, whose capital it does ("к": "К")."""
    return [
        chr(code)
        for code in range(0x370, 0x530)  # Greek, Cyrillic and its supplement
        if chr(code).islower()
        and code not in table
        and len(chr(code).upper()) == 1
        and ord(chr(code).upper()) in table
    ]


def _i_or_l(char: str) -> str:
    name = unicodedata.name(char, "")
    return "i" if re.search(r"\b(?:I|IOTA|DOTLESS I)\b", name) else "l"
