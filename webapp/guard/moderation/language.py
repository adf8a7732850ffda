"""The language gate: which units the moderation cannot read at all.

Every tier reads English only (the rules' word lists, the profanity model, MiniLM), so "Tous les juifs doivent
mourir." passed where its English twin blocks. A unit in another language is "unjudged": not harmless, just
never read, and ``moderation.other_languages`` decides it (``block`` by default: nothing unread gets out).

Telling languages apart must cost English prose nothing and never mistake English for something else: a
loanword, a name, a quoted phrase, code or math stays English. So the gate only counts words: a unit whose
letters are mostly another script's, or which holds several of a Latin-script language's commonest words
(articles, pronouns, auxiliaries) and few English ones. No identifier model ships in the app (see
docs/moderation.md for the ones measured); the lists are data in ``rails/moderation_languages.yml``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from webapp.guard.moderation.encoded import decodings
from webapp.guard.moderation.framed import Frames
from webapp.guard.moderation.memo import Memo, text_bytes
from webapp.guard.moderation.readback import readings
from webapp.guard.moderation.scripts import KANA as _KANA
from webapp.guard.moderation.scripts import UNSPACED_SCRIPTS as _UNSPACED_SCRIPTS
from webapp.guard.moderation.scripts import accented_letter as _accented_letter
from webapp.guard.moderation.scripts import script_of as _script_of
from webapp.guard.moderation.scripts import scripts as _scripts
from webapp.guard.moderation.surface import as_shown, visible
from webapp.guard.moderation.text import sentences
from webapp.guard.moderation.unknownwords import OPENS as _OPENS
from webapp.guard.moderation.unknownwords import PARTICLES as _PARTICLES
from webapp.guard.moderation.unknownwords import WORD as _WORD
from webapp.guard.moderation.unknownwords import (
    KnowsWords,
    Thresholds,
    UnknownWords,
    fences_as_spans,
    plain_words,
    prose_of,
    words_of,
)
from webapp.guard.moderation.unknownwords import unaccented as _unaccented
from webapp.guard.yamlfile import load_yaml, word_list

_ENGLISH_CONTRACTION = re.compile(r"(?<=[a-z])'(?:t|s|ll|re|ve|m|d)\b")
_CUT_WORD = re.compile(r"\w+$")
_NAMES = {"en": "English"}  # the readable language that has no word list (every other is English's foil)
UNIT_CACHE_SIZE = 4096  # units whose language is remembered (least recently used out first)
UNIT_CACHE_BYTES = 4 << 20  # and at most this much of them


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1 where known, "" for a Latin-script language without a word list
    name: str  # shown to the chatter: "German", "a language other than English"


class _Reading(NamedTuple):
    language: Language | None  # None: English
    short: bool  # too short to tell alone
    back: tuple[str, ...] = ()  # read back from upside down or back to front
    unknown: bool = False  # told by its unknown words alone (a sentence still growing may yet say otherwise)


@dataclass(frozen=True)
class _Word:
    english: float  # how much the word says its unit is English
    codes: frozenset[str]  # the languages whose word it is
    named: bool  # capitalised inside its sentence: a name
    particle: bool = False  # "de", "van", "la": part of the name that follows it


@dataclass(frozen=True)
class LanguageGate:
    """``readable``: the language codes the moderation judges; a unit in any other is returned by ``unread``."""

    readable: frozenset[str]
    english: Mapping[
        str, float
    ]  # word -> how much it says the unit is English (1, or 0.5 if another uses it)
    loan_phrases: re.Pattern[str]
    latin: Mapping[str, frozenset[str]]  # word -> the codes of the languages that use it
    names: Mapping[str, str]  # code -> name
    scripts: Mapping[str, Language]  # Unicode name prefix -> the language read in that script
    limits: Thresholds
    frames: Frames = Frames()  # what a unit sets apart from its own words, read alone
    # A unit most of whose words are no English word, in any language; None: no dictionary to tell (a
    # configuration without the semantic tier loads no speller).
    unknown: UnknownWords | None = None
    # A streamed answer is read again whole at every check: each unit's language is worked out once.
    _recent: dict[tuple[str, bool], list[str]] = field(default_factory=dict, compare=False, repr=False)
    _units: Memo[str, _Reading] = field(
        default_factory=lambda: Memo(
            "language_units",
            max_entries=UNIT_CACHE_SIZE,
            max_bytes=UNIT_CACHE_BYTES,
            size_of=lambda unit, read: text_bytes(unit) + sum(map(text_bytes, read.back)) + 100,
        ),
        compare=False,
        repr=False,
    )

    @classmethod
    def load(cls, path: Path, readable: Iterable[str], *, knows: KnowsWords | None = None) -> LanguageGate:
        """``knows``: whether a lower-case word is English or a slip of it (see ``unknown_words``)."""
        data: Mapping[str, Any] = load_yaml(path) or {}
        listed = frozenset(word_list(data, "english", path))
        latin: dict[str, set[str]] = {}
        names: dict[str, str] = {}
        for code, spec in (data.get("latin") or {}).items():
            names[str(code)] = str(spec["name"])
            for word in word_list(spec, "words", path):
                # read as the moderator reads it: "müssen" is "mussen"
                latin.setdefault(_unaccented(word), set()).add(str(code))
        # a word another language uses too ("to", "in", "die", "come") never counts for it, and half for English
        shared = listed & latin.keys()
        english = {w: 0.5 if w in shared else 1.0 for w in listed}
        phrases = sorted(
            {_unaccented(p) for p in word_list(data, "loan_phrases", path)}, key=len, reverse=True
        )
        limits = Thresholds.from_mapping(data)
        frames = Frames(
            frozenset(word_list(data, "greetings", path)),
            {w: w not in listed and w not in latin for w in word_list(data, "placeholder", path)},
            limits.placeholder_share,
            limits.min_words,
        )
        loan_phrases = (
            re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, phrases)) + r")(?!\w)", re.IGNORECASE)
            if phrases
            else re.compile("(?!)")
        )
        return cls(
            readable=frozenset(readable),
            english=english,
            loan_phrases=loan_phrases,
            latin={w: frozenset(c) for w, c in latin.items() if w not in shared},
            names=names,
            scripts={
                str(k): Language(str(v["code"]), str(v["name"]))
                for k, v in (data.get("scripts") or {}).items()
            },
            limits=limits,
            frames=frames,
            unknown=UnknownWords(
                knows,
                english,
                frozenset(_unaccented(w) for w in word_list(data, "english_also", path)),
                frozenset(latin.keys() - shared),
                loan_phrases,
                limits,
            )
            if knows is not None
            else None,
        )

    def readable_names(self) -> str:
        """The readable languages as the chatter is told them ("English", "English and French")."""
        named = [_NAMES.get(c) or self.names.get(c) or c for c in sorted(self.readable)]
        return " and ".join(named) if len(named) <= 2 else ", ".join(named[:-1]) + " and " + named[-1]

    def unread(self, text: str, *, partial: bool = False) -> Language | None:
        """The language of the first unit the moderation cannot read, or None (every unit is readable).

        ``partial``: a streamed answer still growing, whose last word may be cut ("Gay men ar" is no Swedish
        "är"): that word is left for the next check."""
        units = self._split(text, partial=partial)
        whole_foreign: bool | None = None  # computed once, only when a short unit needs it
        for unit in units:
            language, short, _, unknown = self._language(unit)
            if language is None or language.code in self.readable:
                continue
            # a growing sentence's words are judged once it ends: "José de la" is a name ("... Cruz") half-typed
            if unknown and partial and unit is units[-1]:
                continue
            if short:
                if whole_foreign is None:
                    # a letter alone is no English word here: "i" and "a" are Italian's and Spanish's too
                    whole_foreign = not any(
                        self._english_words(as_shown(prose_of(u)).lower(), letters=False) for u in units
                    )
                if not whole_foreign:
                    continue
            return language
        return None

    def read_back(self, text: str, *, partial: bool = False) -> list[str]:
        """The units written upside down, back to front or in ROT13, read back (readback.py), and the text
        encoded in them decoded (encoded.py): the rules judge these readings, and ``unread`` counts a unit read
        back as English."""
        return [back for unit in self._split(text, partial=partial) for back in self._language(unit).back]

    def _split(self, text: str, *, partial: bool) -> list[str]:
        """The text's units; the last text's are kept, since a check asks ``read_back`` then ``unread``."""
        key = (text, partial)
        recent = self._recent.get(key)
        if recent is None:
            recent = self._units_of(text, partial=partial)
            self._recent.clear()  # one text, the one being checked (another thread's at worst: a recount)
            self._recent[key] = recent
        return recent

    def _units_of(self, text: str, *, partial: bool) -> list[str]:
        written = visible(unicodedata.normalize("NFKC", text).replace("\u2019", "'"))
        if partial:
            written = _CUT_WORD.sub("", written)
        if written.isascii() and _WORD.search(written) is None:
            return []
        return sentences(fences_as_spans(written))

    def _language(self, unit: str) -> _Reading:
        found, reading = self._units.get(unit)
        if not found or reading is None:
            reading = self._read(unit)
            self._units.put(unit, reading)
        return reading

    def _read(self, written: str) -> _Reading:
        """The unit's language and readings (``_read_words``), with what is encoded in it decoded."""
        reading = self._read_words(written)
        decoded = decodings(written, self.unknown.english_word, plain_words) if self.unknown else []
        return reading._replace(back=reading.back + tuple(decoded)) if decoded else reading

    def _read_words(self, written: str) -> _Reading:
        """(the unit's language if it is not English, whether the unit was too short to tell alone, its
        reading if it is English written upside down or back to front). Scripts are told from the letters as
        written; Latin-script words as the moderator reads them (accents dropped, look-alike letters read as
        Latin), so a Cyrillic "о" inside "tоus" cannot hide the French. Links and addresses are no words; code
        is read for another language's words, but no word of it counts as unknown."""
        unit = prose_of(written)
        spoken = words_of(written)
        if not spoken.isascii():
            scripted = self._script(spoken)
            if scripted is not None:
                return _Reading(*scripted)
        # a curly quote or a dash is no accent: only letters English does not write mark another language
        accented = not spoken.isascii() and any(_accented_letter(c) for c in spoken)
        shown = as_shown(unit)
        if self.frames.is_placeholder(shown):
            return _Reading(None, False)
        language, short = self._latin(as_shown(spoken) if spoken is not written else shown, accented=accented)
        if language is None and not spoken.isascii():
            language = self._accented(spoken)
        if language is not None:
            return _Reading(language, short)
        # the clause after a greeting read alone: with it, "hola" and "amigo" outweigh "los judíos son ratas"
        clause = self.frames.greeted(written)
        after = self._read_words(clause) if clause is not None else None
        if after is not None and (after.language is not None or after.back):
            return after
        if self.unknown is None or not (found := self.unknown.read(shown)).garbled:
            return self._foreign_as_written(shown) or _Reading(None, False, self._framed(written))
        backs = self._backs(unit)
        if backs:
            return _Reading(None, False, backs)
        if not found.unread:
            return _Reading(None, False)
        return self._unknown_language(shown, found.short)

    def _unknown_language(self, shown: str, short: bool) -> _Reading:
        """A unit of unknown words, named by the listed words it holds, two or more ("O Brasil é um país muito
        ...": Portuguese)."""
        hits = Counter(c for w in plain_words(shown) for c in self.latin.get(w, ()))
        code, count = max(hits.items(), key=lambda hit: (hit[1], hit[0]), default=("", 0))
        named = Language(code, self.names[code]) if count >= self.limits.min_hits else Language("", "")
        return _Reading(named, short, unknown=True)

    def _foreign_as_written(self, shown: str) -> _Reading | None:
        """The reading of a unit holding a word only another language writes ("los", "der"), if most of its
        words are no English word as written: "Los judíos son ratas." is no slip of "rats"."""
        if self.unknown is None or not any(w in self.latin for w in plain_words(shown)):
            return None
        found = self.unknown.read(shown, slips=False)
        return self._unknown_language(shown, found.short) if found.unread else None

    def _backs(self, unit: str) -> tuple[str, ...]:
        """The unit's readings (readback.py) that read as English; a unit in capitals is read in lower case,
        since a word in capitals is an acronym to the counting ("NIMREV ERA SWEJ")."""
        assert self.unknown is not None
        written = unit.lower() if unit.isupper() else unit
        return tuple(
            back
            for back in readings(written, self.unknown.english_word, plain_words)
            if not self.unknown.read(as_shown(back)).garbled
        )

    def _framed(self, written: str) -> tuple[str, ...]:
        """The readings of what an English sentence frames as quoted ("Decoded from ROT13 it reads: Wrjf ner
        irezva."): the sentence's English words outweigh the frame's unknown ones, which alone are garbled."""
        if self.unknown is None:
            return ()
        found: list[str] = []
        for part in self.frames.quoted(written):
            if self.unknown.read(as_shown(part.lower() if part.isupper() else part)).garbled:
                found += [back for back in self._backs(part) if back not in found]
        return tuple(found)

    def _script(self, unit: str) -> tuple[Language | None, bool] | None:
        """The unit's other script, if its letters are another script's; None: read it as Latin letters."""
        counts, words = _scripts(unit)
        known = {s: n for s, n in counts.items() if s in self.scripts}
        if not known:
            return None
        if _KANA & known.keys():
            language = self.scripts[next(iter(_KANA & known.keys()))]
        else:
            language = self.scripts[max(known, key=known.__getitem__)]
        unspaced = sum(n for s, n in known.items() if s in _UNSPACED_SCRIPTS)
        # a run of Han, kana or Thai holds about one word per two characters
        foreign_words = words + unspaced / self.limits.chars_per_word
        if foreign_words >= self.limits.script_words and foreign_words > self._english_words(
            as_shown(unit).lower()
        ):
            return language, False
        latin_letters = sum(c.isascii() and c.isalpha() for c in unit)
        if sum(known.values()) > latin_letters and (unspaced >= 2 or words >= 1):
            return language, True
        return None

    def _english_words(self, unit: str, *, letters: bool = True) -> float:
        contractions = len(_ENGLISH_CONTRACTION.findall(unit))
        words = (w for w in _WORD.findall(unit) if letters or len(w) > 1)
        return contractions + sum(self.english.get(w, 0.0) for w in words)

    def _latin(self, unit: str, *, accented: bool) -> tuple[Language | None, bool]:
        """``accented``: the unit as written has letters English does not write (dropped from ``unit``)."""
        unit = self.loan_phrases.sub(" ", unit.lower() if unit.isupper() else unit)
        english = float(len(_ENGLISH_CONTRACTION.findall(unit.lower())))
        bare = _ENGLISH_CONTRACTION.sub("", unit)
        if not any(len(w) > 1 and w.lower() in self.latin for w in _WORD.findall(bare)):
            return None, False  # no word another language lists: nothing below could count one
        words: list[_Word] = []
        for match in _WORD.finditer(bare):
            word = match.group(0).lower()
            weight = self.english.get(word, 0.0)
            english += weight
            if len(match.group(0)) < 2:  # a letter alone: "W o m e n" is spaced-out English, not "o" and "e"
                continue
            # a capitalised word inside a sentence is a name ("La La Land", "Les Paul"), not an article
            named = match.group(0)[:1].isupper() and not _OPENS.search(bare, 0, match.start())
            codes = frozenset() if named else self.latin.get(word, frozenset())
            words.append(_Word(weight, codes, named, word in _PARTICLES))
        words = _with_particles(words)
        hits: Counter[str] = Counter(c for w in words for c in w.codes)
        if not hits:
            return None, False
        code, count = hits.most_common(1)[0]
        language = Language(code, self.names[code])
        if english * self.limits.per_english >= count:
            return self._run(words), False
        if len(words) < self.limits.min_words:
            # too short to tell alone ("C'est la vie."): foreign only in a text with no English word at all,
            # and only with a letter English does not write or two of the language's words
            marked = count >= self.limits.min_hits or accented
            return (language, True) if marked else (None, False)
        if count >= self.limits.min_hits and count >= self.limits.share * len(words):
            return language, False
        return self._run(words), False

    def _run(self, words: list[_Word]) -> Language | None:
        """A foreign clause inside an English sentence ("I think that tous les juifs doivent mourir."):
        ``run_words`` words in a row with no English word among them (one both languages use may be) and
        ``run_hits`` of one language's. A
        run holding two names is a name ("Charles de Gaulle et la France": "de" and "la" before a name are part of
        it), not a clause; one may be a German noun ("heute Nacht")."""
        for start in range(len(words) - self.limits.run_words + 1):
            window = words[start : start + self.limits.run_words]
            if sum(w.english for w in window) >= 1 or sum(w.named for w in window) > 1:
                continue
            hits = Counter(c for w in window for c in w.codes)
            if hits and (best := hits.most_common(1)[0])[1] >= self.limits.run_hits:
                return Language(best[0], self.names[best[0]])
        return None

    def _accented(self, unit: str) -> Language | None:
        """A language without a word list, told by its letters: most words accented, none English (a
        capitalised word inside the unit is a name and not counted)."""
        written = _WORD.findall(unit)
        words = [w.lower() for i, w in enumerate(written) if len(w) >= 2 and (i == 0 or not w[0].isupper())]
        if len(words) < max(self.limits.min_words, 4) or any(w in self.english for w in words):
            return None
        accented = sum(
            any(_accented_letter(c) for c in w) and all(_script_of(c) == "LATIN" for c in w if c.isalpha())
            for w in words
        )
        return Language("", "") if accented >= self.limits.accented_share * len(words) else None


def _with_particles(words: list[_Word]) -> list[_Word]:
    """The words, a name's particle ("de Gaulle", "van Gogh", "la France") marked as part of the name."""
    marked = list(words)
    for i in range(len(marked) - 2, -1, -1):
        if marked[i + 1].named and marked[i].particle:
            marked[i] = _Word(0.0, frozenset(), True, True)
    return marked
