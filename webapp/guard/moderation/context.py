"""What turns harmful words into their opposite, or takes that excuse away again: ``moderation.context``.

Negation ("X are not vermin"), counter-speech that reports or condemns what it quotes or frames ("Saying 'X'
is racist"), and what voids that excuse: agreement in the same or a later sentence ("..., said no one
ever", "It's the plain truth."). Claims a text makes without saying them in one sentence ("Rats are
cleaner.", "X were deported. Good.") are written out here as sentences every tier judges.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from webapp.guard.moderation.caseless import CaselessPattern
from webapp.guard.moderation.lexicon import NEVER, caseless
from webapp.guard.moderation.memo import Memo, verdict_bytes, without_around
from webapp.guard.moderation.sequels import Sequel
from webapp.guard.moderation.takenup import CostTakenUp
from webapp.guard.moderation.text import Unit

# A second clause or a second subject ("I don't think X are people they are rats"): the denial stops there.
_MORE_CLAUSES = re.compile(r"[,;:(]|\s(?:and|so|then|because|or|they|they're|them|you|you're|we|he|she|it)\s")
# A denial's elliptical echo, no clause of its own ("X are not property and never will be", "..., nor were they")
_DENIAL_ECHO = re.compile(
    r",?\s+(?:and|nor)(?:\s+(?:they|we|it|she|he|never|not|ever|will|would|won't|have|has|had|did|do|does|was|were|be|been"
    r"|again|shall|n't))+\W*$"
)
# What a group is said to be, up to the first word of the predicate: "is" only after a singular (in
# "Threatening trans people is a crime" it is the speaker's verdict), and not a negated predicate ("Jokes
# about X are never funny" is the verdict on the jokes), nor a group that is the object of harm ("People who
# want to kill X are dangerous"), nor one a statement is about ("Statements like that about X are hateful"),
# nor a word someone is called ("Calling someone a X is hateful": the slur is the name, the verdict is the speaker's).
_PREDICATION = (
    r"(?<!kill )(?<!hurt )(?<!harm )(?<!attack )(?<!harass )(?<!threaten )(?<!abuse )(?<!insult )(?<!mock )"
    r"(?<!hate )(?<!beat )(?<!target )(?<!bully )(?<!shoot )(?<!murder )"
    r"(?<!about )(?<!against )(?<!toward )(?<!towards )(?<!regarding )(?<!targeting )(?<!aimed at )"
    r"(?<!someone a )(?<!somebody a )(?<!someone an )(?<!him a )(?<!her a )(?<!me a )(?<!you a )"
    r"\b(?:{group})\s+(?:are|(?<!people )(?<!men )(?<!s )(?:is|was)|were|r|be|being)\s+(?:all\s+)?(?!not\b|never\b)"
    r"(?:(?:so|very|really|all|just|such|a|an|the|truly|pretty|incredibly|absolutely|deeply|more|most|less|"
    r"utterly|totally|completely|nothing but|only)\s+)*[\w-]+"
)
# A clause in the speaker's own voice is never covered by the counter-speech around it ("If you hate X,
# unfollow me, because I hate them even more").
_OWN_VOICE = re.compile(
    r"(?:and |so |because |but |plus )?(?:i|we|i'm|we're|i've|we've|i'd|we'd|i'll|we'll)\b"
)
# A word negated, and what a negation makes of it ("doesn't make it false" condemns nothing)
_NEGATED_WORD = re.compile(
    r"(?:\b(?:not|never)|n't)\s+(?:(?:make|makes|made)\s+(?:it|that|this|them)\s+)?\w+"
)
_BARE_NOT = re.compile(r"^\W*not\W*$")
# A bare answer that refuses a condemning question: "No.", or doubt of it ("Since when?", "Says who?")
_BARE_NO = re.compile(
    r"^\W*(?:no|nope|nah|hardly|not really|not at all|of course not|not in the slightest|since when|says who"
    r"|who says(?: so)?|according to whom|by whose standards?)\W*$"
)
# ...the doubts among them, which the speaker may answer next ("Since when? Since always.")
_BARE_DOUBT = re.compile(r"^\W*(?:since when|says who|who says(?: so)?|according to whom)\W*$")
# ...and regret in the speaker's answer to one ("Since always, sadly.")
_REGRET = re.compile(r"\b(?:sadly|unfortunately|regrettably|alas|worse luck|more'?s the pity|pity)\b", re.I)
# A question of a few words between a sentence and the comment on it ("Is it true?", "Why?", "Source?"); one
# that approves ("Why not?") is the comment itself
_ASIDE = re.compile(
    r"^(?!\W*(?:(?:and|so|but)\W+)?(?:why not|so what|who cares|what of it)\b)\W*(?:[\w'-]+\W+){0,3}[\w'-]+\s*\?+\W*$"
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


# A streamed answer shows each sentence again at every check until the answer ends: what one unit says on its
# own (whether it assents, whether it may start a claim made across sentences) is remembered per unit.
UNIT_CACHE_SIZE = 4096
UNIT_CACHE_BYTES = 4 << 20
# What a unit says on its own about assent: nothing, assent, or a bare "No." / "Not." whose meaning depends
# on the sentence before it; a bare "Worth it." likewise.
Assent = Literal[False, True, "no", "not", "worth"]

# Where a reported claim ends: its clause's punctuation ("Don't say X are lazy, or worse" -> "X are lazy").
_CLAIM_END = re.compile(r"\s*[,;:.!?]")

# Quoted passages (with their quote marks) and a claim a group is said to hold, as the stance judge sees them.
_CLAIM = "[claim]"
_GROUP = "[group]"
_QUOTED_CLAIM = re.compile("[\"'\u2018\u2019\u201c\u201d]\\s*\\[claim\\]\\s*[\"'\u2018\u2019\u201c\u201d]")


class Stance(Protocol):
    """Judges whether a passage, its claim taken out, rejects that claim (``stance.StanceJudge``)."""

    def rejects(self, passage: str) -> bool: ...

    def wait_ready(self, timeout_s: float | None = None) -> None: ...


@dataclass(frozen=True)
class ContextRules:
    """What makes a unit counter-speech or negated; compiled once from ``moderation.context``."""

    negation: CaselessPattern
    frames: CaselessPattern  # the unit talks about saying/doing something ("Calling X ...", "Anyone who")
    condemnation: CaselessPattern  # ...and condemns or reports it ("is racist", "was banned", "myth")
    denial: CaselessPattern  # the unit opens by denying what follows ("It's not true that", "I don't think")
    # the speaker agrees with what they frame ("... and they are right", "It's not hate speech to say"): no excuse
    endorsement: CaselessPattern = NEVER
    # a negation right before an insult ("are not objects", "never criminals"): the unit denies the insult
    insult_denial: CaselessPattern = NEVER
    # what a group is said to be ("X are evil"): a word of condemnation there is the slur, not a verdict on
    # it ("I heard X are evil" condemns nobody; "Saying X are evil is wrong" does, after "wrong")
    predication: CaselessPattern = NEVER
    # someone else's claim, reported ("You claim X are ..."): like a quote, it may be rejected next sentence
    reported: CaselessPattern = NEVER
    # a later sentence that agrees with what an earlier one quoted or framed ("It's the plain truth.",
    # "Couldn't have put it better myself."): the earlier one's excuse is void
    agreement: CaselessPattern = NEVER
    # a call for harm ("they should all be gassed"): a clause of its own that says it does not go on
    # condemning, whatever the sentence it is part of condemns
    harm_call: CaselessPattern = NEVER
    # the insult declared too good for the group ("Rats are cleaner.", "an insult to animals")
    outdoing: CaselessPattern = NEVER
    # where a text names an insult of a group, denied, framed or not ("X are not vermin", "call X rats")
    insult_named: CaselessPattern = NEVER
    # a yes-or-no question about a group ("Are X terrorists?"), answered yes in the next sentence
    group_question: CaselessPattern = NEVER
    # claims a text makes across two sentences, or one sentence and its tail (``Sequel``)
    sequels: tuple[Sequel, ...] = ()
    # a group named, for the stance judge's passages
    group_named: CaselessPattern = NEVER
    # whether a passage rejects the claim it quotes or reports, in words no list holds (``stance.py``)
    stance: Stance | None = None
    # the speaker making the claim themselves ("As a woman I can say [claim]"): no stance to judge
    own_claim: CaselessPattern = NEVER
    # what saying it costs whoever says it ("people end up in prison for that"): "Worth it." after it assents
    cost: CaselessPattern = NEVER
    # a sentence that accepts that price ("Worth every penny.", "A price I'd pay.", "So what."): assent after a
    # sentence naming the cost, nothing anywhere else ("We painted over it. Worth it.")
    cost_accepted: CaselessPattern = NEVER
    # a clause after the cost that takes the claim up again, or shrugs it off (``takenup.py``)
    taken_up: CostTakenUp = CostTakenUp()
    # the answer that follows a bare "Since when?" / "Says who?" and upholds what it doubted ("Since always.",
    # "Says the law."): the question was the speaker's own, not a refusal
    doubt_answered: CaselessPattern = NEVER
    # per unit: its assent (``_assent``) and whether it may take part in an implied claim (``_may_imply``)
    _per_unit: Memo[tuple[str, Unit, str], object] = field(
        init=False, repr=False, compare=False, default_factory=lambda: _unit_memo()
    )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], lexicon: Mapping[str, str]) -> ContextRules:
        def alternatives(key: str) -> CaselessPattern:
            return caseless("|".join(f"(?:{p})" for p in data.get(key, ()) or ("(?!)",)), lexicon)

        return cls(
            alternatives("negation"),
            alternatives("frames"),
            alternatives("condemnation"),
            alternatives("denial"),
            alternatives("endorsement"),
            alternatives("insult_denial"),
            caseless(_PREDICATION, {**lexicon, "group": lexicon.get("group", "(?!)")}),
            alternatives("reported"),
            alternatives("agreement"),
            alternatives("harm_call"),
            alternatives("outdone"),
            caseless(_INSULT_NAMED, lexicon) if "dehumanising" in lexicon and "group" in lexicon else NEVER,
            caseless(_GROUP_QUESTION, lexicon) if "group" in lexicon else NEVER,
            tuple(Sequel.from_mapping(entry, lexicon) for entry in data.get("sequels", ()) or ()),
            caseless(r"\b(?:{group})\b", lexicon) if "group" in lexicon else NEVER,
            own_claim=alternatives("own_claim"),
            cost=alternatives("cost"),
            cost_accepted=alternatives("cost_accepted"),
            taken_up=CostTakenUp(
                alternatives("cost"), alternatives("cost_taken_up"), alternatives("cost_defied")
            ),
            doubt_answered=alternatives("doubt_answered"),
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
        if self._condemns(unit.outside_quotes) or (reported and self._condemns(unit.around)):
            return True
        if self.stance is None or not self._claims(unit):
            return False
        passage = self.stance_passage(unit)
        return not self.own_claim.search(passage) and self.stance.rejects(passage)

    def reads_around(self, unit: Unit) -> bool:
        """Whether ``is_counter_speech`` may read the sentences around the unit, or around the sentence it is
        part of: only where one quotes or frames something, unendorsed (a verdict that depends on nothing
        else is remembered without them)."""
        if unit.endorsed:
            return False
        return self._framed(unit) or (unit.within is not None and self.reads_around(unit.within))

    def _claims(self, unit: Unit) -> bool:
        """Quotes someone, or reports what a group is said to be ("People who insist X are ...")."""
        return bool(unit.quotes) or bool(self.predication.search(unit.outside_quotes))

    def stance_passage(self, unit: Unit) -> str:
        """The unit and the sentences around it as the stance judge reads them: each quote and each claim
        about a group as "[claim]", any other group named as "[group]" ('Someone wrote "kill all X" on the
        wall.' + 'We painted over it.' -> 'someone wrote [claim] on the wall. we painted over it.')."""
        text = unit.text
        for quote in unit.quotes:
            text = text.replace(quote, _CLAIM)
        said = " ".join(p for p in (text, unit.around) if p)
        said = _QUOTED_CLAIM.sub(_CLAIM, self.predication.sub(_CLAIM, said))
        return " ".join(self.group_named.sub(_GROUP, said).split())

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
            i
            for i, unit in enumerate(units)
            if self._agrees(
                unit, units[i - 1] if i else None, group, units[i + 1] if i + 1 < len(units) else None
            )
        ]
        taken_up = self.taken_up.last(units, group, lambda said: self._condemns(_NEGATED_WORD.sub(" ", said)))
        if not agreeing and taken_up is None:
            return list(units)
        # an agreeing unit voids the ones before it; a take-up also its own sentence ("..., which is why I do it")
        last = max(agreeing[-1] if agreeing else 0, taken_up + 1 if taken_up is not None else 0)
        voided = {id(u) for u in units[:last] if u.within is None and self._framed(u)}
        return [replace(u, endorsed=True) if id(u) in voided or id(u.within) in voided else u for u in units]

    def _agrees(
        self, unit: Unit, before: Unit | None, group: re.Pattern[str], after: Unit | None = None
    ) -> bool:
        """A sentence of assent in its own right, as resolved or as written ("Honestly, they are."), that
        names no group of its own ("they have a point" names nobody new) and condemns nothing itself ("Not
        wrong."); a bare "No." that answers a condemning question ('"X are property." Wrong? No.'), or a bare
        "Not." after a condemning statement, which takes it back."""
        assent = self._remembered(
            ("assent", without_around(unit), group.pattern), lambda: self._assent(unit, group)
        )
        if assent == "no":  # "Since when? Since always.": a doubt its own answer upholds refuses nothing
            if after is not None and after.within is None and self._upholds(after):
                return False
            return before is not None and before.plain.rstrip().endswith("?") and self._condemns(before.plain)
        if assent == "not":  # "..., and it hurt. Not.": the rejection taken back
            return (
                before is not None
                and not before.plain.rstrip().endswith("?")
                and self._condemns(before.plain)
            )
        if assent == "worth":  # "Worth it." after what it cost to say, not after "We painted over it."
            return before is not None and bool(self.cost.search(before.plain))
        return bool(assent)

    def _upholds(self, answer: Unit) -> bool:
        """The answer to the speaker's own doubt upholds the condemnation, unregretted ("Since always, sadly.")."""
        said = answer.plain
        return bool(self.doubt_answered.search(said)) and not (_REGRET.search(said) or self._condemns(said))

    def _assent(self, unit: Unit, group: re.Pattern[str]) -> Assent:
        """What ``_agrees`` reads in the unit alone."""
        if unit.within is not None or group.search(unit.plain):
            return False
        if _BARE_NO.match(unit.outside_quotes):
            return "no"
        if _BARE_NOT.match(unit.outside_quotes):
            return "not"
        if self.cost_accepted.search(unit.outside_quotes):
            return "worth"
        written = unit.plain if not unit.quotes else unit.outside_quotes
        said = (unit.outside_quotes,) if written == unit.outside_quotes else (unit.outside_quotes, written)
        return any(self.agreement.search(t) for t in said) and not (
            self.condemnation.search(_NEGATED_WORD.sub(" ", unit.outside_quotes))
        )

    def _remembered(self, key: tuple[str, Unit, str], compute: Any) -> Any:
        known, value = self._per_unit.get(key)
        if not known:
            value = compute()
            self._per_unit.put(key, value)
        return value

    def implied_claims(self, units: Sequence[Unit]) -> list[Unit]:
        """What a text claims without saying it in one sentence, as sentences every tier judges: "X are
        worse than Y" where it names an insult of a group, framed, denied or not, and then declares the insult
        too good for them ("It's wrong to call X rats. Rats are cleaner.", "X are not vermin. Vermin can be
        exterminated more easily."); "X are Y" where it asks "Are X Y?" and answers yes ("Of course not...
        just kidding, obviously yes."); and the sequels of the config ("X were gassed. Good times.": "X
        deserved to be gassed.")."""
        if not any(
            self._remembered(("implies", without_around(u), ""), lambda u=u: self._may_imply(u))
            for u in units
        ):
            return []
        claims: list[str] = []
        for i, unit in enumerate(units):
            if unit.within is None:
                # a short question in between ("X were gassed. Really? Good.") is no answer to the report
                after = next(
                    (u for u in units[i + 1 :] if u.within is None and not _ASIDE.match(u.plain)), None
                )
                claims += [claim for sequel in self.sequels for claim in sequel.claims(unit, after)]
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

    def _may_imply(self, unit: Unit) -> bool:
        """Whether ``implied_claims`` can find a claim starting at this unit: every claim needs a unit that
        starts a sequel, declares an insult too good, or asks a yes-or-no question about a group (what
        the units after it say only completes such a claim)."""
        return (
            any(sequel.first.search(unit.text) for sequel in self.sequels)
            or (unit.within is None and self.outdoing.search(unit.text) is not None)
            or self.group_question.for_text(unit.plain).match(unit.plain) is not None
        )

    def reported_claims(self, unit: Unit) -> list[str]:
        """What the unit says a group is, outside its quotes, to the end of its clause, as sentences ("Don't
        say X are terrorists." -> "X are terrorists."): for a unit a later one agrees with, where a negated
        frame ("don't say", "nobody should say") kept the rules from reading the claim as said."""
        text = unit.outside_quotes
        # cut before the clause's punctuation, so each claim gets its own full stop
        return [
            _CLAIM_END.split(text[match.start() :], maxsplit=1)[0].strip() + "."
            for match in self.predication.finditer(text)
        ]

    def _framed(self, unit: Unit) -> bool:
        return bool(unit.quotes) or bool(self.frames.search(unit.outside_quotes))

    def may_be_reported(self, unit: Unit) -> bool:
        """Whether the unit may give someone else's words (a quote, a frame, a reported claim), which the
        next sentence may condemn, or is a bare doubt ("Since when?") the next sentence may answer."""
        return (
            self._framed(unit)
            or bool(self.reported.search(unit.outside_quotes))
            or bool(_BARE_DOUBT.match(unit.outside_quotes))
        )

    def is_denied(self, text: str) -> bool:
        """One clause that opens by denying itself ("I don't think women are stupid"). A second clause
        ("I don't think you should live, so kill yourself") is judged as if there were no denial."""
        return bool(self.denial.search(text)) and not _MORE_CLAUSES.search(text)

    def denies_insult(self, text: str) -> bool:
        """One clause that denies an insult ("Women are not objects"); a second clause is judged as usual."""
        return bool(self.insult_denial.search(text)) and not _MORE_CLAUSES.search(_DENIAL_ECHO.sub("", text))

    def is_negated(self, text: str) -> bool:
        return bool(self.negation.search(text))


def _unit_memo() -> Memo[tuple[str, Unit, str], object]:
    return Memo(
        "context_units",
        max_entries=UNIT_CACHE_SIZE,
        max_bytes=UNIT_CACHE_BYTES,
        size_of=lambda key, _: verdict_bytes(("", key[1]), None),
    )
