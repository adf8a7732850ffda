"""What a unit says on its own, before the classifier is asked about it.

The classifier maps any text to its nearest examples, even text that says nothing. Given only words with no
meaning of their own it answers with noise: "Your" scored 0.998 harassment, "They" 0.92 hate, "If you"
0.85 harassment. An answer cut off by its token limit ends on such words ("The view is best at dusk.
Your"), and a reader sees nothing harmful there. So the classifier judges a text only when it carries a word
of its own, and a text that stops on a word no finished statement ends with ("You will find a", read as
the opening of a threat) is judged for what it has said so far. The rules still see every word.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]+")

# Pronouns, determiners, auxiliaries, conjunctions, prepositions and the pieces contractions split into.
_FUNCTION_WORDS = frozenset(
    """
    a an the this that these those some any each every my your yours our ours their theirs his her hers its
    i me you we us they them he him she it one myself yourself ourselves themselves himself herself itself
    am is are was were be been being do does did done have has had will would shall should can could may might
    must ll re ve d m s t don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn
    and or but if so then than because as of to in on at for with by from into onto about up down out over
    not just very oh ok okay well yes there here what who whom which when where why how
    """.split()
)

# Words a finished statement does not end on: an article, a possessive, a preposition, a conjunction.
# Object pronouns are not among them ("I will find you" ends a sentence).
_DANGLING = frozenset(
    "a an the my your our their its of to in on at for with by from into onto and or but if than because".split()
)


# Words a noun phrase opens with: one cut off right after the next word has not named its noun.
_ADJECTIVE = re.compile(r"[a-z]{2,}(?:ed|en|ing|ful|ous|al|ive|ic|ish|less|able|ible)", re.IGNORECASE)
_DETERMINERS = frozenset("a an the my your our their his her its this that these those some every".split())


def carries_content(text: str) -> bool:
    """Whether the text has a word of its own (not only pronouns, articles, auxiliaries and the like)."""
    return any(word not in _FUNCTION_WORDS for word in _WORD.findall(text.lower()))


# Verbs a clause cannot end on once a cut-off article is gone: "Immigrants are the" has said nothing about
# immigrants yet, and the classifier read "Immigrants are" as dehumanisation.
_BARE_VERBS = frozenset("am is are was were will would shall should can could may might must".split())


def without_dangling_end(text: str) -> str:
    """The text without the words it was cut off after ("You will find a" -> "You will find"), and without
    a last clause that was cut off before it said anything ("Immigrants are the" -> "").

    Only bare words at the very end go: a word with punctuation after it ends a sentence as written.
    """
    words = text.split()
    dangled = False
    while words and words[-1].lower() in _DANGLING:
        words.pop()
        dangled = True
    # a noun phrase cut after an adjective ("You will find a carved", "... a wooden"): its noun is not said
    if (
        not dangled
        and len(words) > 2
        and words[-2].lower() in _DETERMINERS
        and _ADJECTIVE.fullmatch(words[-1])
    ):
        words = words[:-2]
        dangled = True
    if dangled and words and words[-1].lower() in _BARE_VERBS:
        clause_start = max((i + 1 for i, w in enumerate(words) if w[-1] in ".!?;:,"), default=0)
        words = words[:clause_start]
    return " ".join(words)
