"""Word lists and the patterns that name them: ``{group}``, ``{dehumanising}``... in a rule stand for a list
of ``rails/config.yml``'s ``lexicon``, written once and shared by every rule, sense and context pattern."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from webapp.guard.moderation.caseless import CaselessPattern
from webapp.guard.yamlfile import words_only


def expand(pattern: str, lexicon: Mapping[str, str]) -> str:
    """``{name}`` -> ``(?:the lexicon's alternatives)``; unknown names are a config error, not a literal."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in lexicon:
            raise ValueError(f"moderation pattern names an unknown word list {{{name}}}")
        return f"(?:{lexicon[name]})"

    return re.sub(r"\{([a-z_]+)\}", replace, pattern)


_LIST_NAME = re.compile(r"\{([a-z_]+)\}")


def compile_lexicon(data: Mapping[str, Any]) -> dict[str, str]:
    """Word lists are YAML lists of regex alternatives (or one string) and may name other lists, above or
    below them: the file means the same in any order (a re-sorted file once stopped the app at start). A
    list that names an unknown list, or itself through others, is a config error that names them."""
    written = {str(name): "|".join(_alternatives(name, words)) for name, words in data.items()}
    lexicon: dict[str, str] = {}

    def resolved(name: str, trail: tuple[str, ...]) -> str:
        if name in lexicon:
            return lexicon[name]
        if name in trail:
            cycle = " -> ".join(f"{{{n}}}" for n in (*trail[trail.index(name) :], name))
            raise ValueError(f"moderation word list {{{name}}} names itself: {cycle}")
        if name not in written:
            raise ValueError(f"moderation word list {{{trail[-1]}}} names an unknown word list {{{name}}}")
        inner = _LIST_NAME.sub(lambda m: f"(?:{resolved(m.group(1), (*trail, name))})", written[name])
        lexicon[name] = inner
        return inner

    return {name: resolved(name, ()) for name in written}


def _alternatives(name: object, words: object) -> list[str]:
    """A list's alternatives (one string is a list of one); anything but text in it is refused."""
    listed: list[object] = list(words) if isinstance(words, (list, tuple)) else [words]
    return words_only(listed, f"moderation word list {{{name}}}")


def caseless(pattern: str, lexicon: Mapping[str, str], *, gated: bool = True) -> CaselessPattern:
    """A rule's pattern, case ignored. ``gated``: a context pattern, searched on each unit's texts directly,
    so a long one gets gates (a category rule's asks ``literals.Probe`` instead)."""
    return CaselessPattern.compile(expand(pattern, lexicon), gated=gated)


NEVER = CaselessPattern.compile("(?!)")
