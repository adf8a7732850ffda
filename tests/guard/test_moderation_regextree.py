"""A pattern parsed once and compiled both ways is the pattern ``re.compile`` makes from its string."""

import importlib
import re
from typing import Any

import pytest

from tests.support.moderation import MODERATION_CONFIG
from webapp.guard.moderation.lexicon import compile_lexicon, expand
from webapp.guard.moderation.regextree import compile_tree, parse

_compiler: Any = importlib.import_module("re._compiler")
LEXICON = compile_lexicon(MODERATION_CONFIG["lexicon"])
SHIPPED = [p for rule in MODERATION_CONFIG["categories"] for p in rule["patterns"]]
CONTEXT = MODERATION_CONFIG["context"]
# every 16th category pattern and the longest context lists: word lists, groups, classes, lookarounds
SOURCES = [expand(p, LEXICON) for p in SHIPPED[::16]] + [
    expand("|".join(f"(?:{p})" for p in CONTEXT[key]), LEXICON) for key in ("endorsement", "frames")
]
SHAPES = [r"(?P<g>jews?|muslims?)\s+(?:are|is)\s+[a-z]+\b(?=\.)", r"(?i:abc)[^x]{2,}(?<!y)z", r"(a)(?:b|\1)"]


@pytest.mark.parametrize("source", SOURCES + SHAPES, ids=lambda s: f"{len(s)}:{s[:24]}")
def test_one_tree_compiles_both_ways_to_what_re_compile_makes(source: str) -> None:
    tree = parse(source, 0)
    for flags in (re.IGNORECASE, 0, re.IGNORECASE):  # the tree is used again after each compilation
        made, expected = compile_tree(source, tree, flags), re.compile(source, flags)
        assert _compiler._code(tree, flags) == _compiler._code(parse(source, flags), flags)
        assert (made.pattern, made.flags, made.groups, made.groupindex) == (
            expected.pattern,
            expected.flags,
            expected.groups,
            expected.groupindex,
        )


def test_the_compiled_patterns_match_as_re_compile_s() -> None:
    source = SHAPES[0]
    tree = parse(source, 0)
    either, lower = compile_tree(source, tree, re.IGNORECASE), compile_tree(source, tree, 0)
    assert either.search("JEWS are bad.") and either.search("jews are bad.")
    assert lower.search("jews are bad.") and not lower.search("JEWS are bad.")
    assert lower.search("jews are bad.").groupdict() == {"g": "jews"}  # type: ignore[union-attr]
