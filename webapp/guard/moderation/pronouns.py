"""Who "they" stands for: the rules judge "They are vermin." after "Jews run the banks." as said of Jews.

A pronoun is replaced by the group it stands for, so the rules and the embedding read the sentence as said
of the group. Not every group named before is what a later "they" stands for: in "People say it's hateful
to want all immigrants deported. They are right." the people are right, and the sentence says nothing of
immigrants; read as "immigrants are right." it was blocked as if the text praised or attacked them. A
subject "they" stands for the subject before it: where that is other people reporting what they say or
think ("People say ...", "Critics of Muslims claim ..."), it is replaced by their noun ("critics are
wrong."), where it is a group ("Muslims say ..."), by that group, in the next sentence only (text.py lets
the rules read that sentence as said of the group too). An object ("I call them animals anyway") and any
"they" later stand for the last group named, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Antecedent", "antecedent", "has_pronoun", "resolve"]

_PRONOUN = re.compile(
    r"\b(they're|they|them|people like (?:that|them|this)|those people|every single one of them"
    # ...and said of the group named just before ("X? Freaks. Every single one deserves ..."), not of others
    # ("every single one of the tests")
    r"|every (?:single|last) one(?! of\b))\b"
)
_SUBJECT = ("they", "they're")

# The subject (up to four words, with "of X" or "who hate X" after it) of a verb of saying or believing.
# The verb comes right after the subject, so a group named before it is the subject's, not the claim's.
# Not a question ("Why do people insist that X are equal? They are lazy."): the speaker disputes the report.
_REPORTER = re.compile(
    r"^(?:(?:and|but|so|well|yes|yeah|sadly|apparently|of course)\W+)*"
    r"(?!(?:why|how|what|who|when|where|do|does|did|can|could|would|will|should|is|are|was|were)\b|\w+n't\b)"
    r"(?P<subject>(?:[\w'-]+\s+){0,3}?[\w'-]+?)"
    r"(?:\s+(?:of|about|on|against|in|from|who|that)\s+(?:[\w'-]+\s+){0,5}?[\w'-]+)?"
    r"\s+(?:(?:still|always|often|now|even|also|all|just|really|keep|kept|will|would|may|might|openly)\s+)*"
    r"(?:say|says|said|saying|claim|claims|claimed|think|thinks|thought|believe|believes|believed|argue|argues"
    r"|argued|insist|insists|insisted|assume|assumes|assumed|suggest|suggests|suggested|reckon|reckons|write"
    r"|writes|wrote|post|posts|posted|tweet|tweets|tweeted|tell|tells|told|complain|complains|complained"
    r"|pretend|pretends|pretended|chant|chanted|shout|shouted|yell|yelled)\b"
)
# Heads that name more than one person: a plural in -s ("critics", "my parents"; not "my boss"), or one of these.
_PLURAL_HEAD = re.compile(
    r"(?!(?:this|his|its|yes|thus|does|says)$)[a-z'-]+(?<![sui])s$"
    r"|people|folks|ppl|men|children|police|some|many|most|both|few"
)


@dataclass(frozen=True)
class Antecedent:
    """What the pronouns of the next sentences stand for: "they" as a subject, and any other."""

    subject: str
    group: str

    def later(self) -> Antecedent:
        """After the next sentence: the people who reported are what that sentence was about, the group is
        the topic again ("People keep saying X are not vermin. I disagree with them. They are vermin.")."""
        return Antecedent(self.group, self.group)


def resolve(text: str, group: str, *, subject: str | None = None) -> str:
    """Pronouns standing for the group named before, replaced by it ("they're" -> "X are", not "X're"); a
    subject "they" by ``subject`` where one is given."""

    def named(match: re.Match[str]) -> str:
        pronoun = match.group(1)
        said = subject if subject is not None and pronoun in _SUBJECT else group
        return f"{said} are" if pronoun == "they're" else said

    return _PRONOUN.sub(named, text)


def has_pronoun(text: str) -> bool:
    return _PRONOUN.search(text) is not None


def antecedent(sentence: str, group: re.Pattern[str]) -> Antecedent | None:
    """What the pronouns after this sentence stand for: the last group it names, and for a subject "they"
    the subject of its verb of saying where there is one (a group, or the people's noun: "critics")."""
    named = [m.group(0) for m in group.finditer(sentence)]
    if not named:
        return None
    reporter = _REPORTER.match(sentence)
    if reporter is not None:
        subject = reporter.group("subject")
        own = group.search(subject)
        if own is not None:
            return Antecedent(own.group(0), named[-1])
        head = subject.split()[-1]
        if _PLURAL_HEAD.fullmatch(head):
            return Antecedent(head, named[-1])
    return Antecedent(named[-1], named[-1])
