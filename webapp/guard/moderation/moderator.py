"""The ``Moderator``: runs the tiers over a text, unit by unit, cheap ones first (see the package docstring).

A tier that cannot run (the embedding model failed to load, say) logs a line and blocks: moderation fails
closed, it never passes text it could not judge.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from pathlib import Path

from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.context import ContextRules
from webapp.guard.moderation.embedder import EmbeddingNeeded, Encoder, shared_encoder
from webapp.guard.moderation.findings import ModerationFinding
from webapp.guard.moderation.language import LanguageGate
from webapp.guard.moderation.lexicon import expand
from webapp.guard.moderation.literals import current_scanner
from webapp.guard.moderation.memo import Memo, verdict_bytes, without_around
from webapp.guard.moderation.patterns import RuleSet, first_match
from webapp.guard.moderation.profanity import ProfanityPolicy, ProfanityScorer, load_profanity_scorer
from webapp.guard.moderation.semantic import SemanticTier
from webapp.guard.moderation.stance import StanceJudge
from webapp.guard.moderation.surface import (
    closed_spaces,
    hashtags_apart,
    joined_lines,
    markup_as_text,
    read_across,
    unquoted,
    without_struck,
)
from webapp.guard.moderation.text import ENDED, Speller, Unit, normalise, split_units
from webapp.guard.moderation.tuned import TunedTier
from webapp.guard.moderation.tuning import prepared_scorer
from webapp.guard.moderation.vocabulary import build_speller
from webapp.guard.verdicts import Stage
from webapp.resources import default_cache_dir

log = logging.getLogger(__name__)

_DIGIT_ONE_IN_WORD = re.compile(r"[a-zA-Z]1|1[a-zA-Z]")
# words that make an aside someone else's claim ("Jews, the Nazis claimed, are ...", "X, according to ...")
_REPORTING = re.compile(
    r"\b(?:say|says|said|claim\w*|according|argue\w*|insist\w*|call\w*|allege\w*|report\w*|propaganda|"
    r"wrote|writes|told|tells|believe\w*|think|thinks|thought (?:that|of)|supposedly|apparently|so-called)\b"
)
VERDICT_CACHE_SIZE = 8192  # units whose rule verdict is remembered (least recently used out first)
VERDICT_CACHE_BYTES = 16 << 20  # and at most this much of them (an estimate, see memo.py)
UNAVAILABLE_REASON = "the safety check is unavailable right now"
_WHAT = {"input": "your message", "output": "this answer"}


class Moderator:
    """Runs the tiers over a text. ``check`` is synchronous and cheap enough to call per streamed chunk."""

    def __init__(
        self,
        config: ModerationConfig,
        scorer: ProfanityScorer | None = None,
        *,
        rails_dir: Path | None = None,
        encoder: Encoder | None = None,
        cache_dir: Path | None = None,
        tuned_scorer: Encoder | None = None,
    ) -> None:
        """``cache_dir``: where the examples' embeddings and the tuned classifier are kept between starts
        (None: embeddings made each start, the classifier in the default cache). ``tuned_scorer``: the tuned
        tier's classifier (one probability per text) instead of the trained one."""
        self.config = config
        self._scorer = (
            scorer if scorer is not None or not config.profanity_enabled else load_profanity_scorer()
        )
        self._group = config.group
        self._profanity = ProfanityPolicy(
            config.untargeted_profanity,
            self._group,
            re.compile(
                expand(config.profanity_person, config.lexicon) if config.profanity_person else "(?!)"
            ),
        )
        self._swear_words = (
            re.compile(expand(config.swear_words, config.lexicon)) if config.swear_words else None
        )
        self._rule_sets = {stage: RuleSet.of(config.categories, stage) for stage in ("input", "output")}
        self._verdicts: Memo[tuple[str, Unit], ModerationFinding | None] = Memo(
            "verdicts", max_entries=VERDICT_CACHE_SIZE, max_bytes=VERDICT_CACHE_BYTES, size_of=verdict_bytes
        )
        self._context = ContextRules.from_mapping(config.context, config.lexicon)
        stance = None
        if config.semantic.enabled and config.semantic.stance:
            stance = StanceJudge(
                (rails_dir or Path(".")) / config.semantic.stance,
                config.semantic.stance_threshold,
                timeout_s=config.load_timeout_s,
            )
            self._context = dataclasses.replace(self._context, stance=stance)
        # "call X Y" names a claim ("X are Y"), judged when the text endorses the frame around it
        self._called = re.compile(
            r"\b(?:call|calls|called|calling|label|labels|labelled|labelling|brand|branded|branding)\s+"
            rf"({self._group.pattern})\s+(?:as\s+)?(?:an?\s+)?(\w+(?:\s+\w+)?)"
        )
        # "X, <a long aside>, are ...": the subject and its verb read together, however far apart (an aside that
        # reports or condemns is kept: "Jews, the Nazis claimed, are vermin" is history)
        self._aside = re.compile(
            rf"\b({self._group.pattern})\s*,\s+([^.!?]{{30,}}),\s+(?=(?:are|were|should|must|deserve|need|will)\b)"
        )
        self._semantic: SemanticTier | None = None
        self._speller: Speller | None = None
        if config.semantic.enabled:
            self._semantic = SemanticTier.from_config(config.semantic, self._context, config.lexicon)
            examples = (rails_dir or Path(".")) / config.semantic.examples
            templates = (
                (rails_dir or Path(".")) / config.semantic.templates if config.semantic.templates else None
            )
            keep = re.compile(config.lexicon["group"]) if "group" in config.lexicon else None
            self._speller = build_speller(examples, templates, config, keep)
            # Lazy but warmed: the model loads in the background from now on, not on the first chat. Not a
            # daemon: a process that exits during the load waits for it, instead of killing onnxruntime's
            # threads mid-run (which aborts the process: "terminate called without an active exception").
            threading.Thread(
                target=_build_semantic,
                args=(self._semantic, stance, encoder, examples, templates, cache_dir),
                name="moderation-warmup",
            ).start()
        self._tuned = (
            TunedTier.started(
                config.tuned,
                lambda: (
                    tuned_scorer
                    or prepared_scorer(config, rails_dir or Path("."), cache_dir or default_cache_dir())
                ),
                gate=re.compile(expand(config.semantic.gate, config.lexicon))
                if config.semantic.gate
                else None,
                second=self._semantic,
            )
            if config.tuned.enabled
            else None
        )
        # what no tier can read is blocked unless the policy allows it (language.py); the speller's dictionary
        # tells which words are English at all
        self._languages = (
            LanguageGate.load(
                (rails_dir or Path(".")) / config.language_words,
                config.languages,
                knows=self._speller.knows if self._speller is not None else None,
            )
            if config.language_words and config.other_languages == "block"
            else None
        )
        current_scanner()  # made on the first check, it held the event loop ~0.3 s after a start

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """Block until the semantic tier and the stance judge are loaded (raises if the tier failed); for
        start-up and tests."""
        if self._semantic is not None:
            self._semantic.wait_ready(timeout_s)
        if self._context.stance is not None:
            self._context.stance.wait_ready(timeout_s)
        if self._tuned is not None:
            self._tuned.wait_ready(timeout_s)

    def check(self, text: str, stage: Stage, *, partial: bool = False) -> ModerationFinding | None:
        """The first rule the text breaks, or None.

        ``partial``: the text is a streamed answer still growing, so its last sentence may be unfinished;
        the semantic tier then embeds that sentence only every ``stride_words`` words (the rules still see
        every word). Category rules come first: their reasons are specific.
        """
        finding = self._tuned_opinion(text, self._check(text, stage, partial=partial), partial=partial)
        if finding is None or finding.rule == "language":
            return finding
        # The rules misread other languages' words as English ones ("O Brasil é um país muito grande e bonito."
        # as a slur): a text they cannot read is refused for its language, not for what they misread in it.
        return self._unread(text, stage, partial=partial) or finding

    def _check(self, text: str, stage: Stage, *, partial: bool) -> ModerationFinding | None:
        if not text.strip():
            return None
        plain = normalise(text, self.config.substitutions)
        normal = self._speller(plain) if self._speller is not None else plain
        rules = self._rule_sets[stage]
        whole = rules.whole_text_match(normal)
        if whole is not None:
            return ModerationFinding(whole.name, whole.reason)
        units = self._said(self._context.endorsed(self._units(normal), self._group))
        for unit in units:
            finding = self._judge_unit(unit, stage, rules)
            if finding is not None:
                return finding
        for unit in (u for reading in self._other_readings(text, normal, plain) for u in reading):
            hit = first_match(rules, unit, self._context)
            if hit is not None:
                return ModerationFinding(hit.name, hit.reason)
        # after the rules (their reasons are specific), before any embedding: what the tiers cannot read, and
        # what is written so they cannot read it (upside down, back to front), read back for the rules
        unread = self._read_back(text, stage, partial=partial) or self._unread(text, stage, partial=partial)
        if unread is not None:
            return unread
        return self._semantic_check(self._settled(units, normal) if partial else units)

    def _tuned_opinion(
        self, text: str, finding: ModerationFinding | None, *, partial: bool
    ) -> ModerationFinding | None:
        """The tuned tier's word beside the rules' (tuned.py): a block where it is sure of harm the rules let
        pass, none where it is sure a block by a rule it may second-guess was a look-alike."""
        tier, wait = self._tuned, self.config.load_timeout_s
        if tier is None or (finding is not None and finding.rule not in tier.config.veto_rules):
            return finding
        try:
            if finding is not None:
                return None if tier.lifts(text, timeout_s=wait) else finding
            if tier.blocks(text, partial=partial, timeout_s=wait):
                return ModerationFinding("harm_classifier", tier.config.reason)
        except EmbeddingNeeded:
            raise  # not a failure: the caller runs the model elsewhere and asks again
        except Exception as exc:  # any failure of this tier must block, not pass
            log.error("tuned moderation failed, refusing the text: %s: %s", type(exc).__name__, exc)
            return ModerationFinding("moderation_error", UNAVAILABLE_REASON)
        return None

    def _read_back(self, text: str, stage: Stage, *, partial: bool) -> ModerationFinding | None:
        """What every tier finds in a unit written upside down or back to front, read back (language.py)."""
        if self._languages is None:
            return None
        for back in self._languages.read_back(text, partial=partial):
            finding = self._check(back, stage, partial=partial)
            if finding is not None:
                return finding
        return None

    def _unread(self, text: str, stage: Stage, *, partial: bool) -> ModerationFinding | None:
        """A block for a text with a unit in a language the tiers cannot read, naming the language."""
        if self._languages is None:
            return None
        language = self._languages.unread(text, partial=partial)
        if language is None:
            return None
        readable = self._languages.readable_names()
        reason = self.config.language_reason.format(
            readable=readable,
            what=_WHAT[stage],
            language=language.name or f"a language other than {readable}",
        )
        return ModerationFinding("language", reason)

    def may_be_reported(self, text: str) -> bool:
        """Whether the text may give someone else's words, which a later sentence may condemn (a streamed
        answer then waits for that sentence before it blocks the text)."""
        return any(self._context.may_be_reported(u) for u in self._units(self._normalise(text)))

    def _said(self, units: list[Unit]) -> list[Unit]:
        """The units, each a later unit agrees with followed by what it says in its own right, as sentences
        every tier judges: the passages it quotes ("The graffiti said 'Death to X'. Couldn't have put it
        better.") and the claim its frame names ("Some say it is racist to call X apes. ... They have a
        point." claims "X are apes"; "Don't say X are terrorists. Think it." claims "X are terrorists")."""
        said = []
        for unit in units:
            said.append(unit)
            # only where the text agrees with it: a quote alone ('Graffiti reading "no X here" appeared
            # and the street scrubbed it off') is judged with the words around it, as before
            if not unit.endorsed or unit.within is not None or self._context.is_counter_speech(unit):
                continue
            claims = [q if q[-1] in ".!?" else q + "." for q in unit.quotes]
            claims += [f"{m.group(1)} are {m.group(2)}." for m in self._called.finditer(unit.text)]
            claims += self._context.reported_claims(unit)
            said += [Unit(claim, claim, ()) for claim in claims]
        return said + self._context.implied_claims(units)

    def _judge_unit(self, unit: Unit, stage: Stage, rules: RuleSet) -> ModerationFinding | None:
        """Rules and profanity over one unit, remembered: a streamed answer shows each sentence again and
        again, and only its growing last sentence is new (the sentences around a unit count only where
        counter-speech may read them)."""
        key = (stage, unit if self._context.reads_around(unit) else without_around(unit))
        known, remembered = self._verdicts.get(key)
        if known:
            return remembered
        hit = first_match(rules, unit, self._context)
        finding = ModerationFinding(hit.name, hit.reason) if hit is not None else None
        # Counter-speech condemns the swearing it quotes ("Saying 'fuck all X' is vile").
        if (
            finding is None
            and self._scorer is not None
            and not self._context.is_denied(unit.text)
            and not self._context.is_counter_speech(unit)
            and not self._negated_without_swearing(unit.text)
        ):
            finding = self._profanity_finding(unit, stage)
        self._verdicts.put(key, finding)
        return finding

    def _negated_without_swearing(self, text: str) -> bool:
        """ "X are not stupid", "I'd never call you an idiot": the rules judge negated insults."""
        swearing = self._swear_words is not None and bool(self._swear_words.search(text))
        return self._swear_words is not None and not swearing and self._context.is_negated(text)

    def _profanity_finding(self, unit: Unit, stage: Stage) -> ModerationFinding | None:
        assert self._scorer is not None
        rule = self._profanity.judge(self._scorer, unit.plain, self.config.thresholds[stage])
        return None if rule is None else self._finding(rule, self.config.profanity_reason)

    def _finding(self, rule: str, default_reason: str) -> ModerationFinding:
        """A finding for a rule the tiers name, with its category's reason when it is one."""
        reason = next((r.reason for r in self.config.categories if r.name == rule), default_reason)
        return ModerationFinding(rule, reason)

    def _other_readings(self, text: str, normal: str, plain: str) -> list[list[Unit]]:
        """Readings only the rules judge: a "1" inside a word read as "l" ("b1ack"; "i" came first),
        dictionary words one slip from a group name or a word of contempt ("I hat wmen"), the text without
        what it strikes through ("X are ~~not~~ vermin"), with its soft line breaks read as spaces, with
        its table rows and dotted words read across ("| X | are | vermin |", "x.are.vermin"), with a
        no-break or other Unicode space between letters taken out ("ver\u00a0min"), with its
        scare-quoted words as plain ("X are 'vermin'"), with its CamelCase hashtags read apart
        ("#DeportAllMuslims"), with its markup read as the chat UI shows it, escaped ("X are<br>vermin",
        ``<span title="...">``, a link's title), with an aside between a group and its verb taken out
        ("X, and I have thought about this for years, are vermin"), and with a space typed inside a group's
        name or a word the rules list taken out ("wo men", "dis gusting")."""
        readings = []
        if _DIGIT_ONE_IN_WORD.search(text):
            readings.append(self._units(self._normalise(text, one_as="l")))
        for shown in (
            without_struck(text),
            joined_lines(text),
            read_across(text),
            closed_spaces(text),
            unquoted(text),
            hashtags_apart(text),
            markup_as_text(text),
        ):
            if shown is not None:
                readings.append(self._units(self._normalise(shown)))
        aside = self._aside.search(normal)
        if (
            aside is not None
            and not _REPORTING.search(aside[2])
            and not self._context.condemnation.search(aside[2])
        ):
            readings.append(self._units(self._aside.sub(r"\1 ", normal)))
        if self._speller is not None:
            # a space typed inside a word is found before the speller reads its halves as other words
            for reading in (self._speller.alternative(normal), self._speller.rejoined(plain)):
                if reading is not None:
                    readings.append(self._units(reading))
        return readings

    def _units(self, normal: str) -> list[Unit]:
        """Sentences and clauses, each with its slurs read in the sense the unit gives them (senses.py)."""
        return self.config.senses.read_units(split_units(normal, self._group))

    def _normalise(self, text: str, *, one_as: str = "i") -> str:
        normal = normalise(text, self.config.substitutions, one_as=one_as)
        return self._speller(normal) if self._speller is not None else normal

    def _semantic_check(self, units: list[Unit]) -> ModerationFinding | None:
        if self._semantic is None or not units:
            return None
        try:
            category = self._semantic.judge(units, timeout_s=self.config.load_timeout_s)
        except EmbeddingNeeded:
            raise  # not a failure: the caller embeds elsewhere and asks again (embedder.embeddings_deferred)
        except Exception as exc:  # any failure of this tier must block, not pass
            log.error("semantic moderation failed, refusing the text: %s: %s", type(exc).__name__, exc)
            return ModerationFinding("moderation_error", UNAVAILABLE_REASON)
        return None if category is None else self._finding(category, "harmful content is not allowed here")

    def _settled(self, units: list[Unit], normal: str) -> list[Unit]:
        """Units without the unfinished last sentence, which is cut back to whole strides of words."""
        if not units or ENDED.search(normal):
            return units
        *done, last = units
        words = last.plain.split()
        keep = len(words) - len(words) % self.config.semantic.stride_words
        if keep == 0:
            return done
        prefix = " ".join(last.plain.split()[:keep])
        outside = prefix if not last.quotes else last.outside_quotes
        return [*done, Unit(prefix, outside, last.quotes, endorsed=last.endorsed)]


def _build_semantic(
    tier: SemanticTier,
    stance: StanceJudge | None,
    encoder: Encoder | None,
    examples: Path,
    templates: Path | None,
    cache_dir: Path | None,
) -> None:
    try:
        encoder = encoder if encoder is not None else shared_encoder()
        tier.build(encoder, examples, templates, cache_dir=cache_dir)
    except Exception as exc:  # kept by the tier: every check logs it and refuses
        log.error("the moderation embedding model could not be loaded: %s: %s", type(exc).__name__, exc)
        tier.fail(exc)
        encoder = None
    if stance is not None:
        stance.build(encoder, cache_dir=cache_dir)
