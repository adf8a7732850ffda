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
from dataclasses import dataclass, field
from typing import Any

from webapp.guard.moderation.caseless import CaselessPattern, is_lower_ascii
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.lexicon import caseless
from webapp.guard.moderation.literals import Probe, Required, Scanner, interned
from webapp.guard.moderation.text import Unit
from webapp.guard.verdicts import Stage

# A clause joined to counter-speech ("I hate racists and I hate Muslims even more", "He called me a slur and
# honestly all X should die", "Said no one ever: X are ..."): the excuse covers the clause that condemns,
# not the one that follows.
_NEXT_CLAUSE = re.compile(r",?\s+(?:and|so|because|plus|while)\s+|[,;:]\s+")
_GROUP_DETERMINER = re.compile(r"(?:other|many|some|most|all|the|their|fellow)\s+")
_NEW_SUBJECT = re.compile(
    r"[,;:]\s*(?:and\s+|but\s+|so\s+)?(?=(?:they|them|these|those|he|she|it|we|you|all of them)\b)"
)
# characters before a match in which a negation still applies to it ("I don't want any ", "never right to "),
# back to the start of its clause only ("No, X are ...", "I won't lie, X should ...")
NEGATION_LOOKBACK = 32
_CLAUSE_START = re.compile(r"[,;:.!?]\s*|\s(?:and|but|so|then|because|while|cause)\s")


@dataclass(frozen=True)
class CategoryRule:
    name: str
    reason: str
    # each case ignored, run without IGNORECASE on lower-case ASCII text where that finds the same matches
    patterns: tuple[CaselessPattern, ...]
    stages: frozenset[str] = frozenset({"input", "output"})
    negation_allowed: bool = False  # True: the pattern itself is about a negated statement
    raw_text: bool = False  # True: run on the original text (instructions, not hate: no unit context)
    # a unit this matches is not the rule's to judge ("The tumour cells should die": no person is told to die)
    unless: CaselessPattern | None = None
    # per pattern as run on lower-case ASCII text: literals a match needs, asked before the regex (literals.py)
    _needs: tuple[Required, ...] = field(init=False, repr=False, compare=False)
    _top: int = field(init=False, repr=False, compare=False)  # the highest set any pattern needs
    # each pattern filed under one set it needs (``_index``), and those that need none known
    _keyed: dict[int, tuple[tuple[int, Required], ...]] = field(init=False, repr=False, compare=False)
    _keys: frozenset[int] = field(init=False, repr=False, compare=False)
    _always: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_needs", tuple(interned(p.sets) for p in self.patterns))
        object.__setattr__(self, "_top", max((n.top for n in self._needs), default=-1))
        keyed, always = _index(self._needs)
        object.__setattr__(self, "_keyed", keyed)
        object.__setattr__(self, "_keys", frozenset(keyed))
        object.__setattr__(self, "_always", always)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], lexicon: Mapping[str, str] | None = None) -> CategoryRule:
        lexicon = lexicon or {}
        return cls(
            name=str(data["name"]),
            reason=str(data["reason"]),
            patterns=tuple(caseless(p, lexicon, gated=False) for p in data["patterns"]),
            stages=frozenset(data.get("stages", ("input", "output"))),
            negation_allowed=data.get("negation") == "allowed",
            raw_text=bool(data.get("whole_text", False)),
            unless=caseless(str(data["unless"]), lexicon, gated=True) if data.get("unless") else None,
        )

    def applies_to(self, stage: Stage) -> bool:
        return stage in self.stages

    def blocks_alone(self, word: str) -> bool:
        """Whether ``word`` by itself is enough for a pattern (a slur), with no sentence around it."""
        return any(pattern.original.fullmatch(word) for pattern in self.patterns)

    def matches(
        self,
        text: str,
        negation: CaselessPattern | None = None,
        *,
        after: int = 0,
        probe: Probe | None = None,
    ) -> bool:
        """Whether a pattern matches (not negated); ``after``: only a match that ends past that offset.
        ``probe``: the text's literal look-ups, shared by the rules tried on it (made here if None)."""
        lower = is_lower_ascii(text)
        if lower and probe is None:
            probe = Probe(text)
        for regex in self._runnable(lower, probe):
            for match in regex.finditer(text):
                if match.end() <= after:
                    continue
                if self.negation_allowed or negation is None:
                    return self._judges(text)
                before = _CLAUSE_START.split(text[max(0, match.start() - NEGATION_LOOKBACK) : match.start()])
                context = before[-1] + text[match.start() : match.end()]
                # "Immigrants are not people, they are vermin": the "not" belongs to the first clause
                context = _NEW_SUBJECT.split(context)[-1]
                if not negation.search(context):
                    return self._judges(text)
        return False

    def _judges(self, text: str) -> bool:
        """Whether a unit a pattern matched is the rule's to judge: asked only after a match, since most
        units match no pattern and the exemption would be a wasted search on each."""
        return self.unless is None or not self.unless.for_text(text).search(text)

    def _runnable(self, lower: bool, probe: Probe | None) -> list[re.Pattern[str]]:
        """The regexes to run: on lower-case ASCII text only those whose every needed set has a string in it
        (a word every match needs is missing: the regex cannot match)."""
        if not lower or probe is None:
            return [p.original for p in self.patterns]
        found = probe.found(self._top)
        if found is None:
            return [p.lower for p, n in zip(self.patterns, self._needs, strict=True) if probe.may_match(n)]
        # only the patterns filed under a set that was found can have all theirs found: a harmless text
        # finds none of most rules' sets, and then no pattern's needs are compared at all
        positions = [*self._always]
        for key in found.intersection(self._keys):
            positions += [i for i, n in self._keyed[key] if n.ids <= found]
        return [self.patterns[i].lower for i in sorted(positions)]


def _index(needs: Sequence[Required]) -> tuple[dict[int, tuple[tuple[int, Required], ...]], tuple[int, ...]]:
    """Each pattern's position filed under the most selective set it needs (its shortest string the
    longest: the least often found), and the positions of patterns that need nothing known."""
    keyed: dict[int, list[tuple[int, Required]]] = {}
    always = []
    for position, required in enumerate(needs):
        if not required:
            always.append(position)
            continue
        key = max(required.needs, key=lambda need: min(map(len, need.strings))).index
        keyed.setdefault(key, []).append((position, required))
    return {k: tuple(v) for k, v in keyed.items()}, tuple(always)


@dataclass(frozen=True)
class RuleSet:
    """One stage's category rules in order, each filed under the literal sets its patterns are keyed on: a
    unit is tried only against the rules one of whose sets it holds, or that have a pattern keyed on nothing.
    Any other rule would find no regex to run (``CategoryRule._runnable``), but asking it cost ~0.7 us a rule
    on every unit of every check: with ~120 rules that was a third of the rules' time on ordinary prose."""

    rules: tuple[CategoryRule, ...]
    # the rules run on the whole text (``whole_text``), in order
    raw: tuple[CategoryRule, ...] = field(init=False, repr=False, compare=False)
    # every set their patterns need, scanned for in one pass; per raw rule, the sets of each of its patterns
    _raw_scanner: Scanner = field(init=False, repr=False, compare=False)
    _raw_needs: tuple[tuple[frozenset[int], ...], ...] = field(init=False, repr=False, compare=False)
    _by_key: dict[int, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    _keys: frozenset[int] = field(init=False, repr=False, compare=False)
    _always: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _top: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_key: dict[int, list[int]] = {}
        for position, rule in enumerate(self.rules):
            for key in rule._keys:
                by_key.setdefault(key, []).append(position)
        raw = tuple(r for r in self.rules if r.raw_text)
        object.__setattr__(self, "raw", raw)
        needed = {need.index: need for rule in raw for required in rule._needs for need in required.needs}
        object.__setattr__(self, "_raw_scanner", Scanner(list(needed.values())))
        object.__setattr__(self, "_raw_needs", tuple(tuple(n.ids for n in rule._needs) for rule in raw))
        object.__setattr__(self, "_by_key", {k: tuple(v) for k, v in by_key.items()})
        object.__setattr__(self, "_keys", frozenset(by_key))
        object.__setattr__(self, "_always", tuple(i for i, r in enumerate(self.rules) if r._always))
        object.__setattr__(self, "_top", max((r._top for r in self.rules), default=-1))

    @classmethod
    def of(cls, rules: Sequence[CategoryRule], stage: Stage) -> RuleSet:
        """The rules that apply to ``stage``, indexed once (a moderator keeps one per stage)."""
        return cls(tuple(r for r in rules if r.applies_to(stage)))

    def whole_text_match(self, text: str) -> CategoryRule | None:
        """The first rule run on the whole text (``whole_text``) that matches it. The text is the longest a
        check sees and is scanned only for the sets these few rules need (a scan for every rule's sets cost
        ~100 us on a streamed answer's 190 characters, and asking the sets one at a time ~80 us, on every
        check; this scan ~25): a rule none of whose patterns has all its sets found is not asked."""
        candidates = self.raw
        if is_lower_ascii(text):
            found = self._raw_scanner.present(text)
            candidates = tuple(
                rule
                for rule, needs in zip(self.raw, self._raw_needs, strict=True)
                if any(ids <= found for ids in needs)
            )
        probe = Probe(text, scan=False)
        return next((rule for rule in candidates if rule.matches(text, probe=probe)), None)

    def to_try(self, text: str, probe: Probe) -> Sequence[CategoryRule]:
        """The rules that may match ``text``, in order (all of them where the literals were not scanned)."""
        if not is_lower_ascii(text):
            return self.rules
        found = probe.found(self._top)
        if found is None:
            return self.rules
        positions = set(self._always)
        for key in found.intersection(self._keys):
            positions.update(self._by_key[key])
        return [self.rules[i] for i in sorted(positions)]


def first_match(rules: RuleSet, unit: Unit, context: ContextRules) -> CategoryRule | None:
    """The first rule a unit breaks. Counter-speech is judged on its own words, not on what it quotes; a
    later clause of its own that neither quotes nor frames anything is not covered by the excuse."""
    if context.is_counter_speech(unit):
        # what is quoted is excused, not the speaker's own words beside it
        return _rule_after_frame(rules, unit.outside_quotes if unit.quotes else unit.text, context)
    return _rule_for(rules, unit.text, context)


def _rule_after_frame(rules: RuleSet, text: str, context: ContextRules) -> CategoryRule | None:
    """A clause with its own subject after the condemning one ("I hate racists and I hate X even more",
    "Stop saying X are equal, they are a disease") is judged together with what came before it (so "they"
    still points at X), but only a match that reaches into it counts."""
    for boundary in _NEXT_CLAUSE.finditer(text):
        rest = text[boundary.end() :]
        if boundary.group(0).strip() == "and" and _joins_groups(text[: boundary.start()], rest, context):
            continue  # "X and other Y": one noun phrase, no clause of its own
        # ...unless it goes on condemning ("Racist jokes about X are not funny, they are cruel").
        if not context.frames.search(rest) and not context.condemnation.search(rest):
            hit = _rule_for(rules, text, context, after=boundary.end())
            if hit is not None:
                return hit
    return None


def _joins_groups(before: str, rest: str, context: ContextRules) -> bool:
    """Whether an "and" stands between two groups' names ("... that X and other Y don't belong"), not between
    two clauses ("... X are rats and Y are vermin")."""
    named = context.group_named.for_text(before)
    if not any(m.end() == len(before) for m in named.finditer(before, max(0, len(before) - 60))):
        return False
    start = _GROUP_DETERMINER.match(rest)
    return context.group_named.for_text(rest).match(rest, start.end() if start else 0) is not None


def _rule_for(rules: RuleSet, text: str, context: ContextRules, *, after: int = 0) -> CategoryRule | None:
    denied = context.is_denied(text)  # only rules written for negated hate still apply
    probe = Probe(text)
    for rule in rules.to_try(text, probe):
        if rule.raw_text or (denied and not rule.negation_allowed):
            continue
        if rule.matches(text, context.negation, after=after, probe=probe):
            return rule
    return None
