"""Category rules as data: readable regular expressions from ``rails/config.yml``, with shared word lists.

A rule's pattern may name a word list as ``{group}``, ``{dehumanising}``...: the lists live once in the
config (``lexicon``) and every rule that needs "any protected group" says so by name. Rules run on
normalised units (see ``text.py``), so one spelling covers the obfuscated ones.

Two kinds of context stop a rule from firing, because they turn the same words into their opposite:
- negation right before or inside the match ("Immigrants are not vermin", "I would never hurt you");
  rules written for negated statements ("No Jew can ever be trusted") say ``negation: allowed``;
- counter-speech: the unit reports or condemns what it quotes ("Saying 'X' is racist", "Calling women
  objects is degrading"). Quoted text is only excused when the words around it condemn or report it: a
  threat in quotes with nothing around it (or only "he said") is judged like any other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.guard.moderation.caseless import CaselessPattern, is_lower_ascii
from webapp.guard.moderation.text import Unit
from webapp.guard.verdicts import Stage

# A second clause or a second subject ("I don't think X are people they are rats"): the denial stops there.
_MORE_CLAUSES = re.compile(r"[,;:(]|\s(?:and|so|then|because|or|they|they're|them|you|you're|we|he|she|it)\s")
# A clause joined to counter-speech ("I hate racists and I hate Muslims even more", "He called me a slur and
# honestly all X should die", "Said no one ever: X are ..."): the excuse covers the clause that condemns,
# not the one that follows.
_NEXT_CLAUSE = re.compile(r",?\s+(?:and|so|because|plus|while)\s+|[,;:]\s+")
_NEW_SUBJECT = re.compile(
    r"[,;:]\s*(?:and\s+|but\s+|so\s+)?(?=(?:they|them|these|those|he|she|it|we|you|all of them)\b)"
)
# What a group is said to be, up to the first word of the predicate: "is" only after a singular (in
# "Threatening trans people is a crime" it is the speaker's verdict), and not a negated predicate ("Jokes
# about X are never funny" is the verdict on the jokes), nor a group that is the object of harm ("People who
# want to kill X are dangerous"), nor one a statement is about ("Statements like that about X are hateful").
_PREDICATION = (
    r"(?<!kill )(?<!hurt )(?<!harm )(?<!attack )(?<!harass )(?<!threaten )(?<!abuse )(?<!insult )(?<!mock )"
    r"(?<!hate )(?<!beat )(?<!target )(?<!bully )(?<!shoot )(?<!murder )"
    r"(?<!about )(?<!against )(?<!toward )(?<!towards )(?<!regarding )(?<!targeting )(?<!aimed at )"
    r"\b(?:{group})\s+(?:are|(?<!people )(?<!men )(?<!s )(?:is|was)|were|r|be|being)\s+(?:all\s+)?(?!not\b|never\b)"
    r"(?:(?:so|very|really|all|just|such|a|an|the|truly|pretty|incredibly|absolutely|deeply|more|most|less|"
    r"utterly|totally|completely|nothing but|only)\s+)*[\w-]+"
)
# characters before a match in which a negation still applies to it ("I don't want any ", "never right to "),
# back to the start of its clause only ("No, X are ...", "I won't lie, X should ...")
# A clause in the speaker's own voice is never covered by the counter-speech around it ("If you hate X,
# unfollow me, because I hate them even more").
_OWN_VOICE = re.compile(
    r"(?:and |so |because |but |plus )?(?:i|we|i'm|we're|i've|we've|i'd|we'd|i'll|we'll)\b"
)
NEGATION_LOOKBACK = 32
_CLAUSE_START = re.compile(r"[,;:.!?]\s*|\s(?:and|but|so|then|because|while|cause)\s")
_NEGATED_WORD = re.compile(r"\b(?:not|never)\s+\w+|n't\s+\w+")
_BARE_NOT = re.compile(r"^\W*not\W*$")
_BARE_NO = re.compile(
    r"^\W*(?:no|nope|nah|hardly|not really|not at all|of course not|not in the slightest)\W*$"
)
# "Are x y?" and a yes for an answer: the sentence's last word ("Of course not... just kidding, obviously yes.")
_GROUP_QUESTION = r"^\W*(?:are|aren't)\s+(?:all\s+|the\s+|most\s+)?({group})\s+([^?]{2,60}?)\s*\?\W*$"
_YES = re.compile(r"\b(?:yes|yeah|yep|yup|absolutely|definitely|obviously|of course|certainly|totally)\W*$")
# An insult of a group named, asserted, denied or framed: "x are (not) vermin", "call x rats", "say x are rats".
_INSULT_NAMED = (
    r"\b({group})\s+(?:are|is|were|aren't|isn't|weren't|as|like|to)\s+(?:not\s+|never\s+)?(?:\w+\s+){0,2}?"
    r"({dehumanising})\b|\b(?:call|calls|called|calling|say|says|said|saying)\s+(?:all\s+)?(?:the\s+)?({group})"
    r"\s+(?:are\s+|as\s+)?(?:an?\s+)?({dehumanising})\b"
)


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
    written = {
        str(name): "|".join([words] if isinstance(words, str) else [str(w) for w in words])
        for name, words in data.items()
    }
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


def _compile(pattern: str, lexicon: Mapping[str, str]) -> re.Pattern[str]:
    return re.compile(expand(pattern, lexicon), re.IGNORECASE)


def _caseless(pattern: str, lexicon: Mapping[str, str]) -> CaselessPattern:
    return CaselessPattern.of(_compile(pattern, lexicon))


_NEVER = CaselessPattern.of(re.compile("(?!)"))


@dataclass(frozen=True)
class CategoryRule:
    name: str
    reason: str
    patterns: tuple[re.Pattern[str], ...]
    stages: frozenset[str] = frozenset({"input", "output"})
    negation_allowed: bool = False  # True: the pattern itself is about a negated statement
    raw_text: bool = False  # True: run on the original text (instructions, not hate: no unit context)
    # the patterns as run: without IGNORECASE on lower-case ASCII text where that finds the same matches
    _runs: tuple[CaselessPattern, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_runs", tuple(CaselessPattern.of(p) for p in self.patterns))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], lexicon: Mapping[str, str] | None = None) -> CategoryRule:
        lexicon = lexicon or {}
        return cls(
            name=str(data["name"]),
            reason=str(data["reason"]),
            patterns=tuple(_compile(p, lexicon) for p in data["patterns"]),
            stages=frozenset(data.get("stages", ("input", "output"))),
            negation_allowed=data.get("negation") == "allowed",
            raw_text=bool(data.get("whole_text", False)),
        )

    def applies_to(self, stage: Stage) -> bool:
        return stage in self.stages

    def blocks_alone(self, word: str) -> bool:
        """Whether ``word`` by itself is enough for a pattern (a slur), with no sentence around it."""
        return any(pattern.fullmatch(word) for pattern in self.patterns)

    def matches(self, text: str, negation: CaselessPattern | None = None, *, after: int = 0) -> bool:
        """Whether a pattern matches (not negated); ``after``: only a match that ends past that offset."""
        lower = is_lower_ascii(text)
        for pattern in self._runs:
            for match in (pattern.lower if lower else pattern.original).finditer(text):
                if match.end() <= after:
                    continue
                if self.negation_allowed or negation is None:
                    return True
                before = _CLAUSE_START.split(text[max(0, match.start() - NEGATION_LOOKBACK) : match.start()])
                context = before[-1] + text[match.start() : match.end()]
                # "Immigrants are not people, they are vermin": the "not" belongs to the first clause
                context = _NEW_SUBJECT.split(context)[-1]
                if not negation.search(context):
                    return True
        return False


@dataclass(frozen=True)
class ContextRules:
    """What makes a unit counter-speech or negated; compiled once from ``moderation.context``."""

    negation: CaselessPattern
    frames: CaselessPattern  # the unit talks about saying/doing something ("Calling X ...", "Anyone who")
    condemnation: CaselessPattern  # ...and condemns or reports it ("is racist", "was banned", "myth")
    denial: CaselessPattern  # the unit opens by denying what follows ("It's not true that", "I don't think")
    # the speaker agrees with what they frame ("... and they are right", "It's not hate speech to say"): no excuse
    endorsement: CaselessPattern = _NEVER
    # a negation right before an insult ("are not objects", "never criminals"): the unit denies the insult
    insult_denial: CaselessPattern = _NEVER
    # what a group is said to be ("X are evil"): a word of condemnation there is the slur, not a verdict on
    # it ("I heard X are evil" condemns nobody; "Saying X are evil is wrong" does, after "wrong")
    predication: CaselessPattern = _NEVER
    # someone else's claim, reported ("You claim X are ..."): like a quote, it may be rejected next sentence
    reported: CaselessPattern = _NEVER
    # a later sentence that agrees with what an earlier one quoted or framed ("It's the plain truth.",
    # "Couldn't have put it better myself."): the earlier one's excuse is void
    agreement: CaselessPattern = _NEVER
    # a call for harm ("they should all be gassed"): a clause of its own that says it does not go on
    # condemning, whatever the sentence it is part of condemns
    harm_call: CaselessPattern = _NEVER
    # the insult declared too good for the group ("Rats are cleaner.", "an insult to animals")
    outdoing: CaselessPattern = _NEVER
    # where a text names an insult of a group, denied, framed or not ("X are not vermin", "call X rats")
    insult_named: CaselessPattern = _NEVER
    # a yes-or-no question about a group ("Are X terrorists?"), answered yes in the next sentence
    group_question: CaselessPattern = _NEVER

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], lexicon: Mapping[str, str]) -> ContextRules:
        def alternatives(key: str) -> CaselessPattern:
            return _caseless("|".join(f"(?:{p})" for p in data.get(key, ()) or ("(?!)",)), lexicon)

        return cls(
            alternatives("negation"),
            alternatives("frames"),
            alternatives("condemnation"),
            alternatives("denial"),
            alternatives("endorsement"),
            alternatives("insult_denial"),
            _caseless(_PREDICATION, {**lexicon, "group": lexicon.get("group", "(?!)")}),
            alternatives("reported"),
            alternatives("agreement"),
            alternatives("harm_call"),
            alternatives("outdone"),
            _caseless(_INSULT_NAMED, lexicon) if "dehumanising" in lexicon and "group" in lexicon else _NEVER,
            _caseless(_GROUP_QUESTION, lexicon) if "group" in lexicon else _NEVER,
        )

    def is_counter_speech(self, unit: Unit) -> bool:
        """Reports or condemns harm instead of doing it. The condemnation must sit outside any quote, and
        nothing there, nor in the sentence before or after, may agree with what is quoted or framed ("...,
        but it is true"). A quote, or a claim reported as someone else's, may be condemned in the sentence
        before or after ('"X are vermin." I had to read that.', "You claim X are ... The data says otherwise.").
        A clause judged on its own is excused when the sentence it is part of is counter-speech, unless it
        is in the speaker's own voice or calls for harm ("Comments about X make me angry, they should all be
        gassed")."""
        if unit.endorsed:
            return False
        if (
            unit.within is not None
            and not _OWN_VOICE.match(unit.plain)
            and not self.harm_call.search(unit.plain)
            and self.is_counter_speech(unit.within)
        ):
            return True
        framed = bool(unit.quotes) or bool(self.frames.search(unit.outside_quotes))
        if not framed or self.endorsement.search(unit.outside_quotes) or self.endorsement.search(unit.around):
            return False
        reported = bool(unit.quotes) or bool(self.reported.search(unit.outside_quotes))
        return self._condemns(unit.outside_quotes) or (reported and self._condemns(unit.around))

    def _condemns(self, text: str) -> bool:
        return bool(self.condemnation.search(self.predication.sub(" ", text)))

    def endorsed(self, units: Sequence[Unit], group: re.Pattern[str]) -> list[Unit]:
        """The units with the excuse of counter-speech taken from every one that quotes or frames something
        a later unit agrees with.

        "Calling women property is wrong? Hardly. It's the plain truth.", "The graffiti said 'Death to X'.
        Couldn't have put it better myself.": each sentence alone condemns or reports, the text endorses,
        however many sentences later. A unit agrees when it says so without naming a group of its own
        ("It's true that most X are peaceful" is about X, not about what came before) and without
        condemning anything itself."""
        agreeing = [
            i for i, unit in enumerate(units) if self._agrees(unit, units[i - 1] if i else None, group)
        ]
        if not agreeing:
            return list(units)
        voided = {id(u) for u in units[: agreeing[-1]] if u.within is None and self._framed(u)}
        return [replace(u, endorsed=True) if id(u) in voided or id(u.within) in voided else u for u in units]

    def _agrees(self, unit: Unit, before: Unit | None, group: re.Pattern[str]) -> bool:
        """A sentence of assent in its own right, as resolved or as written ("Honestly, they are."), that
        names no group of its own ("they have a point" names nobody new) and condemns nothing itself ("Not
        wrong."); a bare "No." that answers a condemning question ('"X are property." Wrong? No.'), or a bare
        "Not." after a condemning statement, which takes it back."""
        if unit.within is not None or group.search(unit.plain):
            return False
        if _BARE_NO.match(unit.outside_quotes):
            return before is not None and before.plain.rstrip().endswith("?") and self._condemns(before.plain)
        if _BARE_NOT.match(unit.outside_quotes):  # "..., and it hurt. Not.": the rejection taken back
            return (
                before is not None
                and not before.plain.rstrip().endswith("?")
                and self._condemns(before.plain)
            )
        written = unit.plain if not unit.quotes else unit.outside_quotes
        return any(self.agreement.search(t) for t in (unit.outside_quotes, written)) and not (
            self.condemnation.search(_NEGATED_WORD.sub(" ", unit.outside_quotes))
        )

    def implied_claims(self, units: Sequence[Unit]) -> list[Unit]:
        """What a text claims without saying it in one sentence, as sentences every tier judges: "X are
        worse than Y" where it names an insult of a group, framed, denied or not, and then declares the insult
        too good for them ("It's wrong to call X rats. Rats are cleaner.", "X are not vermin. Vermin can be
        exterminated more easily."); "X are Y" where it asks "Are X Y?" and answers yes ("Of course not...
        just kidding, obviously yes.")."""
        claims: list[str] = []
        for i, unit in enumerate(units):
            if unit.within is None and self.outdoing.search(unit.text):
                for earlier in units[: i + 1]:
                    for match in self.insult_named.finditer(earlier.text):
                        named, insult = (g for g in match.groups() if g)
                        claims.append(f"{named} are worse than {insult}.")
            asked = self.group_question.for_text(unit.plain).match(unit.plain)
            if asked is not None and any(
                _YES.search(u.plain) for u in units[i + 1 : i + 3] if u.within is None
            ):
                claims.append(f"{asked.group(1)} are {asked.group(2)}.")
        return [Unit(claim, claim, ()) for claim in claims]

    def _framed(self, unit: Unit) -> bool:
        return bool(unit.quotes) or bool(self.frames.search(unit.outside_quotes))

    def may_be_reported(self, unit: Unit) -> bool:
        """Whether the unit may give someone else's words (a quote, a frame, a reported claim), which the
        next sentence may condemn."""
        return self._framed(unit) or bool(self.reported.search(unit.outside_quotes))

    def is_denied(self, text: str) -> bool:
        """One clause that opens by denying itself ("I don't think women are stupid"). A second clause
        ("I don't think you should live, so kill yourself") is judged as if there were no denial."""
        return bool(self.denial.search(text)) and not _MORE_CLAUSES.search(text)

    def denies_insult(self, text: str) -> bool:
        """One clause that denies an insult ("Women are not objects"); a second clause is judged as usual."""
        return bool(self.insult_denial.search(text)) and not _MORE_CLAUSES.search(text)

    def is_negated(self, text: str) -> bool:
        return bool(self.negation.search(text))


def first_match(rules: Sequence[CategoryRule], unit: Unit, context: ContextRules) -> CategoryRule | None:
    """The first rule a unit breaks. Counter-speech is judged on its own words, not on what it quotes; a
    later clause of its own that neither quotes nor frames anything is not covered by the excuse."""
    if context.is_counter_speech(unit):
        # what is quoted is excused, not the speaker's own words beside it
        return _rule_after_frame(rules, unit.outside_quotes if unit.quotes else unit.text, context)
    return _rule_for(rules, unit.text, context)


def _rule_after_frame(rules: Sequence[CategoryRule], text: str, context: ContextRules) -> CategoryRule | None:
    """A clause with its own subject after the condemning one ("I hate racists and I hate X even more",
    "Stop saying X are equal, they are a disease") is judged together with what came before it (so "they"
    still points at X), but only a match that reaches into it counts."""
    for boundary in _NEXT_CLAUSE.finditer(text):
        rest = text[boundary.end() :]
        # ...unless it goes on condemning ("Racist jokes about X are not funny, they are cruel").
        if not context.frames.search(rest) and not context.condemnation.search(rest):
            hit = _rule_for(rules, text, context, after=boundary.end())
            if hit is not None:
                return hit
    return None


def _rule_for(
    rules: Sequence[CategoryRule], text: str, context: ContextRules, *, after: int = 0
) -> CategoryRule | None:
    denied = context.is_denied(text)  # only rules written for negated hate still apply
    for rule in rules:
        if rule.raw_text or (denied and not rule.negation_allowed):
            continue
        if rule.matches(text, context.negation, after=after):
            return rule
    return None
