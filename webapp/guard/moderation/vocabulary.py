"""The speller's word lists, gathered once at start: what it may repair towards and what it must leave alone.

Its known words are the examples' words, the rules' own words and MiniLM's dictionary; the words it may
correct towards are the harmful examples' words and the word lists the rules name. Kept apart from the
``Moderator`` because it is start-up work that reads files and the embedding model's vocabulary.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path

from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.corpus import load_example_file, load_templates, vocabulary
from webapp.guard.moderation.embedder import dictionary_words
from webapp.guard.moderation.text import Speller

log = logging.getLogger(__name__)


def build_speller(
    examples: Path, templates: Path | None, config: ModerationConfig, keep: re.Pattern[str] | None = None
) -> Speller | None:
    """The harm vocabulary of the examples against MiniLM's dictionary; None (no spelling repair, the
    other tiers still run) if the dictionary cannot be read."""
    try:
        corpus = load_example_file(examples) + (load_templates(templates, "train") if templates else [])
        known, targets = vocabulary(corpus)
        listed = _listed_words(config.lexicon)  # "dishonest", "detest": words the rules name, examples or not
        core, misreadable = _core_words(targets | listed, config.lexicon)
        # Every word the rails' own patterns spell ("appalling", "condemned", the homonyms' "Offa's Dyke") is a
        # word, never a typo.
        homonyms = " ".join(sense.context.pattern for sense in config.senses.homonyms)
        patterns = re.sub(r"\\[a-z]", " ", str(config.context) + " ".join(config.lexicon.values()) + homonyms)
        spelled = frozenset(re.findall(r"[a-z]{3,}", patterns))
        standalone = {w for w in core if any(r.blocks_alone(w) for r in config.categories)}
        return Speller(
            known | listed | spelled | dictionary_words(),
            targets,
            core,
            misreadable=misreadable,
            standalone=standalone,
            keep=keep,
        )
    except Exception as exc:  # a missing wheel must not stop the rules and profanity tiers
        log.error("moderation spelling repair is off: %s: %s", type(exc).__name__, exc)
        return None


def _listed_words(lexicon: Mapping[str, str]) -> frozenset[str]:
    """The plain words among the word lists' alternatives ("rats?" gives "rat" and "rats")."""
    words: set[str] = set()
    for name in (*_CONTEMPT_LISTS, *_VIOLENCE_LISTS):
        for alternative in re.split(r"[|()]", lexicon.get(name, "")):
            plain = alternative.removeprefix("?:")
            if re.fullmatch(r"[a-z]{3,}s\?", plain):
                words |= {plain[:-2], plain[:-1]}
            elif re.fullmatch(r"[a-z]{3,}", plain):
                words.add(plain)
    return frozenset(words)


def _core_words(words: frozenset[str], lexicon: Mapping[str, str]) -> tuple[set[str], set[str]]:
    """(the words the rules' word lists name, those of them a dictionary word may be misread as)."""
    lists = {
        name: re.compile(f"(?:{lexicon[name]})")
        for name in (*_CONTEMPT_LISTS, *_VIOLENCE_LISTS)
        if name in lexicon
    }
    core = {w for w in words if any(p.fullmatch(w) for p in lists.values())}
    misreadable = {w for w in core if any(lists[n].fullmatch(w) for n in _MISREADABLE_LISTS if n in lists)}
    return core, misreadable


_CONTEMPT_LISTS = ("group", "dehumanising", "attribute", "emotion")
_VIOLENCE_LISTS = ("violent", "person_harm")
# What a dictionary word may be misread as: a group's name or a verb of hatred ("I hat wmen", "the omen").
# Not violence ("I bet you" is no beating) and not insults ("money" is no "monkey").
_MISREADABLE_LISTS = ("group", "emotion")
