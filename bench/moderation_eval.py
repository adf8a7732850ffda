"""Misses and false blocks of the offline moderation, per category, on labelled corpora.

    python -m bench.moderation_eval                 # the held-out corpus (never used for tuning)
    python -m bench.moderation_eval --corpus dev    # the development corpus (its misses were studied)
    python -m bench.moderation_eval --corpus train  # the examples the classifier is fitted on
    python -m bench.moderation_eval --corpus clean  # a second held-out set, templates over 7 groups
    python -m bench.moderation_eval --corpus precision      # held-out look-alikes of hate (precision)
    python -m bench.moderation_eval --corpus precision-dev  # their studied development set
    python -m bench.moderation_eval --corpus precision2     # a second held-out precision slice
    python -m bench.moderation_eval --corpus precision2-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus precision3-dev # the third precision round's studied probes
    python -m bench.moderation_eval --corpus recall         # the second recall round's held-out set
    python -m bench.moderation_eval --corpus recall-dev     # its studied development set
    python -m bench.moderation_eval --corpus blind          # blind held-out: written before any measurement
    python -m bench.moderation_eval --corpus recall3-dev    # the third recall round's studied probes
    python -m bench.moderation_eval --corpus recall4        # the fourth recall round's held-out set
    python -m bench.moderation_eval --corpus recall4-dev    # ...and its studied probes
    python -m bench.moderation_eval --corpus precision4     # the fourth precision round's held-out set
    python -m bench.moderation_eval --corpus precision4-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus precision5     # the fifth precision round's held-out set
    python -m bench.moderation_eval --corpus recall5        # the fifth recall round's held-out set
    python -m bench.moderation_eval --corpus recall5-dev    # ...and its studied probes
    python -m bench.moderation_eval --corpus recall6        # the sixth recall round's held-out set
    python -m bench.moderation_eval --corpus recall6-dev    # ...and its studied probes
    python -m bench.moderation_eval --corpus precision6     # the sixth precision round's held-out set
    python -m bench.moderation_eval --corpus precision6-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus recall7        # the seventh recall round's held-out set
    python -m bench.moderation_eval --corpus recall7-dev    # ...and its studied probes
    python -m bench.moderation_eval --corpus precision7     # the seventh precision round's held-out set
    python -m bench.moderation_eval --corpus precision7-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus precision9-dev # the ninth precision round's studied probes
    python -m bench.moderation_eval --corpus recall8        # the eighth recall round's held-out counts
    python -m bench.moderation_eval --corpus recall9        # the ninth recall round's held-out counts
    python -m bench.moderation_eval --corpus recall9-dev    # ...and its studied probes
    python -m bench.moderation_eval --corpus recall10       # the tenth recall round's held-out counts
    python -m bench.moderation_eval --corpus recall10-dev   # ...and its studied probes
    python -m bench.moderation_eval --corpus recall30       # session 30's held-out: harm without swear words
    python -m bench.moderation_eval --corpus recall31       # session 31's held-out: the classes recall30 left open
    python -m bench.moderation_eval --corpus recall32       # session 32's held-out: the classes recall31 left open
    python -m bench.moderation_eval --corpus precision32    # session 32's held-out: counter-speech in everyday frames
    python -m bench.moderation_eval --corpus precision22    # round 22's held-out set (counts only)
    python -m bench.moderation_eval --corpus precision22-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus precision26    # round 10's held-out set (counts only)
    python -m bench.moderation_eval --corpus precision26-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus precision28    # round 11's held-out set (counts only)
    python -m bench.moderation_eval --corpus precision28-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus languages      # the language gate: other languages, English borrowing
    python -m bench.moderation_eval --corpus extremism      # violent extremism, mass violence, harm wishes: held-out
    python -m bench.moderation_eval --corpus extremism-dev  # ...and its studied probes
    python -m bench.moderation_eval --corpus harassment     # harassment, self-harm incitement: held-out
    python -m bench.moderation_eval --corpus harassment-dev # ...and its studied probes
    python -m bench.moderation_eval --corpus harassment3    # ...a third held-out set, from platform policies
    python -m bench.moderation_eval --errors        # also list every miss and false block
    python -m bench.moderation_eval --streamed      # each text streamed word by word through the output filter

Each corpus is a hand-written file plus one split of the template corpus (``rails/moderation_templates.yml``,
split by template: see ``webapp/guard/moderation/corpus.py``); ``--source file|templates`` takes one part.

Each text is checked as a whole answer at the output stage, with the app's rails config. Per category it
prints how many texts were judged as labelled; per tier, which one caught each block; and the cost:
how many units the gate sent to the embedding model and the CPU per check.

``--streamed`` sends each text as an answer through the app's output filter one word per delta, with a check
on every word (the slowest models' case, and the one that shows the most before a block): a harmful text
counts as blocked if the stream was stopped before its end, and the report says how much of it a reader saw
first. While a sentence streams only the cheap tiers judge it; the embedding judges it when it ends.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webapp.guard.moderation import ModerationConfig, Moderator  # noqa: E402
from webapp.guard.moderation.corpus import load_example_file, load_templates  # noqa: E402
from webapp.guard.moderation.embedder import shared_encoder  # noqa: E402
from webapp.guard.rails import Guard  # noqa: E402
from webapp.guard.yamlfile import load_yaml  # noqa: E402

CORPORA = {
    "heldout": ROOT / "tests" / "data" / "moderation_heldout.yaml",
    "dev": ROOT / "rails" / "moderation_dev.yaml",
    "clean": ROOT / "tests" / "data" / "moderation_clean.yaml",
    # Legitimate look-alikes of hate (HateCheck's non-hateful functionalities) and hate hiding behind them.
    "precision": ROOT / "tests" / "data" / "moderation_precision_heldout.yaml",
    "precision-dev": ROOT / "rails" / "moderation_precision_dev.yaml",
    # A second held-out slice of the same kind, in other shapes and vocabularies (written before its round).
    "precision2": ROOT / "tests" / "data" / "moderation_precision_heldout2.yaml",
    "precision2-dev": ROOT / "rails" / "moderation_precision_dev2.yaml",
    # The third round's studied probes: hate phrased as a question, counter-speech, homonyms, reclaimed slurs.
    "precision3-dev": ROOT / "rails" / "moderation_precision_dev3.yaml",
    # The second recall round's held-out set (never studied) and its studied twin.
    "recall": ROOT / "tests" / "data" / "moderation_recall_heldout.yaml",
    "recall-dev": ROOT / "rails" / "moderation_recall_dev.yaml",
    # Written by an engineer who had read neither the rules nor the other corpora, before any run on it:
    # counts only, never its cases (studying its misses would make it one more dev set).
    "blind": ROOT / "tests" / "data" / "moderation_blind.yaml",
    # The third recall round's studied probes (implicit derogation, attributes, questions; no held-out twin).
    "recall3-dev": ROOT / "rails" / "moderation_recall_dev3.yaml",
    # The fourth recall round (threats without a violent verb, harassment, incitement, implicit derogation,
    # long posts, spellings): a held-out split written before any change and never studied, and its dev twin.
    "recall4": ROOT / "tests" / "data" / "moderation_recall_heldout4.yaml",
    "recall4-dev": ROOT / "rails" / "moderation_recall_dev4.yaml",
    # The fourth precision round: counter-speech, negation, reclaimed slurs, untargeted swearing, neutral
    # statements beside their hateful twins; the held-out part was written before the round and never studied.
    "precision4": ROOT / "tests" / "data" / "moderation_precision_heldout4.yaml",
    "precision4-dev": ROOT / "rails" / "moderation_precision_dev4.yaml",
    # The fifth precision round: history, perpetrators named, compassion, technical kills, answers cut off,
    # neutral statements, counter-speech, each beside its hateful twin; written before the round, never studied.
    "precision5": ROOT / "tests" / "data" / "moderation_precision_heldout5.yaml",
    # The fifth recall round (implicit derogation, dehumanising comparisons, exclusion, normative threats,
    # rejecting a positive claim, incitement to self-harm), each shape with a harmless twin, over groups the
    # other corpora use little: held-out, written before the round's first change and never studied.
    "recall5": ROOT / "tests" / "data" / "moderation_recall_heldout5.yaml",
    "recall5-dev": ROOT / "rails" / "moderation_recall_dev5.yaml",
    # The sixth recall round (the external suite's functionalities in new phrasings over other groups, threats
    # and harassment of one person, spellings), each shape with harmless twins: held-out, written before the
    # round's first rule change and never studied; and its studied dev twin.
    "recall6": ROOT / "tests" / "data" / "moderation_recall_heldout6.yaml",
    "recall6-dev": ROOT / "rails" / "moderation_recall_dev6.yaml",
    # The sixth precision round (counter-speech that rejects what it quotes or reports in any words, negated
    # hate, reclaimed slurs, untargeted swearing, news and fiction, beside hateful look-alikes in the same
    # frames): written before the round and never studied; the round tuned on its dev twin.
    "precision6": ROOT / "tests" / "data" / "moderation_precision_heldout6.yaml",
    "precision6-dev": ROOT / "rails" / "moderation_precision_dev6.yaml",
    # The seventh recall round (platform policies' and the implicit-hate taxonomy's categories, the external
    # suite's weakest functionalities in new phrasings over other groups, slurs, spellings of group names):
    # held-out, written before the round's first change and never studied; and its studied dev twin.
    "recall7": ROOT / "tests" / "data" / "moderation_recall_heldout7.yaml",
    "recall7-dev": ROOT / "rails" / "moderation_recall_dev7.yaml",
    # The seventh precision round (counter-speech quoting threats, slurs and hate and condemning it across
    # sentences, negation, reclaimed self-reference, praise, violent words in fiction and computing, beside
    # hateful look-alikes): written and measured once before the round, never studied; its dev twin was.
    "precision7": ROOT / "tests" / "data" / "moderation_precision_heldout7.yaml",
    "precision7-dev": ROOT / "rails" / "moderation_precision_dev7.yaml",
    "precision9-dev": ROOT / "rails" / "moderation_precision_dev9.yaml",
    # The eighth recall round (implicit derogation, very negative attributes in everyday words, negated positive
    # statements), each shape beside neutral, positive, negated-negative, condemned and no-group twins: held-out,
    # written before the round's first change and never studied; and its studied dev twin.
    "recall8": ROOT / "tests" / "data" / "moderation_recall_heldout8.yaml",
    "recall8-dev": ROOT / "rails" / "moderation_recall_dev8.yaml",
    # The ninth recall round (the external suite's weakest functionalities in new words over other groups:
    # implicit derogation, negated positives, profanity, threats, words run together; beside reclaimed slurs,
    # quoted and referenced counter-speech, negated hate): held-out, written before the round's first change.
    "recall9": ROOT / "tests" / "data" / "moderation_recall_heldout9.yaml",
    "recall9-dev": ROOT / "rails" / "moderation_recall_dev9.yaml",
    # The tenth recall round (implicit derogation in many shapes: animals, dirt and disease, where a group
    # "belongs", not to be seen or to exist, comparisons, rhetorical questions; and the other weak shapes once
    # each, over Sikhs, Nigerians, autistic people, lesbians, older people): held-out, written before any change.
    "recall10": ROOT / "tests" / "data" / "moderation_recall_heldout10.yaml",
    "recall10-dev": ROOT / "rails" / "moderation_recall_dev10.yaml",
    # Session 30's recall round (harm without swear words as an attacker writes it: threats to a person or a
    # family, incitement to self-harm, attacks hailed, a people sent away; beside look-alikes): held-out, written
    # before the round's first change and never studied; and its dev set, written and tried in rounds.
    "recall30": ROOT / "tests" / "data" / "moderation_recall_heldout30.yaml",
    "recall30-dev": ROOT / "rails" / "moderation_recall_dev30.yaml",
    # Session 31's round, the same way, on the classes recall30's held-out set still found open (threats by
    # consequence, harm to a person as instructions, a people caged or starved as policy, blackmail).
    "recall31": ROOT / "tests" / "data" / "moderation_recall_heldout31.yaml",
    "recall31-dev": ROOT / "rails" / "moderation_recall_dev31.yaml",
    "recall32": ROOT / "tests" / "data" / "moderation_recall_heldout32.yaml",
    "recall32-dev": ROOT / "rails" / "moderation_recall_dev32.yaml",
    "precision32": ROOT / "tests" / "data" / "moderation_precision_heldout32.yaml",
    "precision32-dev": ROOT / "rails" / "moderation_precision_dev32.yaml",
    # Session 33: whole answers of several sentences and paragraphs (history, medicine, support, fiction, slurs
    # explained, moderation policy, software, news, farming, games) beside harmful answers whose harm is a
    # sentence or two among ordinary ones; meant to be run --streamed, as the output rail sees an answer.
    "answers33": ROOT / "tests" / "data" / "moderation_answers_heldout33.yaml",
    "answers33-dev": ROOT / "rails" / "moderation_answers_dev33.yaml",
    # Round 22 (pre22): counter-speech quoting hate, negated hate, reclaimed self-reference, counter-speech naming
    # hate, each beside hateful twins in the same frames; held-out written and measured once before the round.
    "precision22": ROOT / "tests" / "data" / "moderation_precision_heldout22.yaml",
    "precision22-dev": ROOT / "rails" / "moderation_precision_dev22.yaml",
    # Round 10 (pre27): the same legitimate contrasts over other groups, and sentences that name no person or
    # group (cells, pests, livestock); held-out written and measured once before the round's first change.
    "precision26": ROOT / "tests" / "data" / "moderation_precision_heldout26.yaml",
    "precision26-dev": ROOT / "rails" / "moderation_precision_dev26.yaml",
    # Round 11 (pre28): the legitimate contrasts written to mirror their public descriptions (positive and
    # neutral statements naming a group, negated hate, counter-speech quoting or naming hate, reclaimed slurs)
    # over the groups such suites name most; held-out written and measured once before the round's first change.
    "precision28": ROOT / "tests" / "data" / "moderation_precision_heldout28.yaml",
    "precision28-dev": ROOT / "rails" / "moderation_precision_dev28.yaml",
    # The language gate (session 12): whole sentences in 14 other languages, harmful or not (unread, so blocked
    # by default), and English that borrows foreign words, names, phrases, code and math (must pass).
    "languages": ROOT / "tests" / "data" / "moderation_languages.yaml",
    # Violent extremism and violent speech without a group slur (session 13): mass violence against places,
    # praise of attackers, calls for genocide, harm wished on a person, sexual violence, doxxing, supremacy
    # claims, slogans and number codes, denial with blame; each beside news, history, counter-speech, drug
    # slang, games, medicine and numbers. The held-out part was written before the round's first rule.
    "extremism": ROOT / "tests" / "data" / "moderation_extremism_heldout.yaml",
    "extremism-dev": ROOT / "rails" / "moderation_extremism_dev.yaml",
    # Harassment of a person without a slur and self-harm incitement in other words (session 14), beside support
    # for people in crisis, news about suicide, song lyrics named, banter about things. Held-out written first.
    "harassment": ROOT / "tests" / "data" / "moderation_harassment_heldout.yaml",
    "harassment-dev": ROOT / "rails" / "moderation_harassment_dev.yaml",
    # Session 24: the tuned tier's training probes (praise, neutral facts and reported harm about groups, abuse
    # aimed at things, beside hate wrapped in counter-speech frames); studied, never held out.
    "identity-dev": ROOT / "rails" / "moderation_identity_dev.yaml",
    # ...and a second held-out set written after the rules (the first one's misses were in view as they were).
    "harassment2": ROOT / "tests" / "data" / "moderation_harassment_heldout2.yaml",
    # ...and a third from the platforms' public policy descriptions, written before session 15's rules.
    "harassment3": ROOT / "tests" / "data" / "moderation_harassment_heldout3.yaml",
}
COUNTS_ONLY = {"blind"}
TEMPLATE_SPLITS = {"heldout": "heldout", "dev": "dev", "train": "train"}
RAILS = ROOT / "rails"
EXAMPLES = "moderation_examples.yml"
TEMPLATES = "moderation_templates.yml"


def load_corpus(name: str, source: str = "all") -> list[tuple[str, str, str]]:
    """(expected "block"/"pass", category, text) rows: the hand-written file and/or the template split."""
    rows: list[tuple[str, str, str]] = []
    if source in ("all", "file"):
        if name in CORPORA:
            data = load_yaml(CORPORA[name])
            groups = data.pop("groups", None) or [{}]
            rows += [
                (label, c, text)
                for label, cats in data.items()
                for c, items in cats.items()
                for t in items
                for text in _expanded(t, groups)
            ]
        else:
            rows += [(e.expected, e.category, e.text) for e in load_example_file(RAILS / EXAMPLES)]
    if source in ("all", "templates") and name in TEMPLATE_SPLITS:
        split = TEMPLATE_SPLITS[name]
        examples = load_templates(RAILS / TEMPLATES, split, all_groups=split != "train")  # type: ignore[arg-type]
        rows += [(e.expected, e.category, e.text) for e in examples]
    return rows


def _expanded(template: str, groups: list[dict[str, str]]) -> list[str]:
    """A corpus line with ``{group}``/``{one}``/``{noun}`` once per group (as written when it names none)."""
    if not re.search(r"\{(group|one|noun)\}", template):
        return [template]
    texts = [_fill(template, group) for group in groups]
    return [t[0].upper() + t[1:] for t in texts]


def _fill(template: str, group: dict[str, str]) -> str:
    return re.sub(r"\{(group|one|noun)\}", lambda m: group[m.group(1)], template)


def build_moderator() -> Moderator:
    config = load_yaml(RAILS / "config.yml")["custom_data"]["moderation"]
    wall, cpu = time.perf_counter(), time.process_time()
    moderator = Moderator(ModerationConfig.from_mapping(config, rails_dir=RAILS), rails_dir=RAILS)
    moderator.wait_ready(300)
    print(
        f"start-up (speller, embed the examples, fit): {time.process_time() - cpu:.1f} s CPU, "
        f"{time.perf_counter() - wall:.1f} s wall"
    )
    return moderator


def evaluate(moderator: Moderator, rows: list[tuple[str, str, str]]) -> dict[str, object]:
    per_category: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0])
    tiers: collections.Counter[str] = collections.Counter()
    errors: list[str] = []
    encoder = shared_encoder()
    misses_before = encoder.misses
    cpu = time.process_time()
    for expected, category, text in rows:
        finding = moderator.check(text, "output")
        judged = "block" if finding is not None else "pass"
        per_category[(expected, category)][0] += judged == expected
        per_category[(expected, category)][1] += 1
        if finding is not None:
            tiers[finding.rule] += 1
        if judged != expected:
            errors.append(f"  {expected:5} {category:28} {finding.rule if finding else '-':22} {text}")
    cpu_ms = (time.process_time() - cpu) * 1000 / max(len(rows), 1)
    return {
        "per_category": per_category,
        "tiers": tiers,
        "errors": errors,
        "embedded": encoder.misses - misses_before,
        "cpu_ms": cpu_ms,
    }


async def stream_one(guard: Guard, text: str) -> tuple[bool, float]:
    """Stream ``text`` word by word; (blocked, share of its characters shown before the block)."""
    flt = guard.output_filter()
    shown = 0
    for word in re.findall(r"\S+\s*", text):
        step = await flt.feed("answer", word)
        if step.block is not None:
            return True, shown / len(text)
        shown += len(step.released.get("answer", ""))
    final = await flt.flush()
    return final.block is not None, shown / len(text)


def evaluate_streamed(rows: list[tuple[str, str, str]]) -> dict[str, object]:
    guard = Guard.from_dir(RAILS)
    guard.settings = dataclasses.replace(guard.settings, min_check_ms=0)  # a check on every word
    guard.checks.moderator.wait_ready(300)
    per_category: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0])
    seen: list[float] = []
    errors: list[str] = []
    cpu = time.process_time()
    for expected, category, text in rows:
        blocked, share = asyncio.run(stream_one(guard, text))
        judged = "block" if blocked else "pass"
        per_category[(expected, category)][0] += judged == expected
        per_category[(expected, category)][1] += 1
        if expected == "block" and blocked:
            seen.append(share)
        if judged != expected:
            errors.append(f"  {expected:5} {category:28} {text}")
    cpu_ms = (time.process_time() - cpu) * 1000 / max(len(rows), 1)
    return {"per_category": per_category, "seen": seen, "errors": errors, "cpu_ms": cpu_ms}


def report_seen(result: dict[str, object]) -> None:
    seen: list[float] = result["seen"]  # type: ignore[assignment]
    if seen:
        print(
            f"\nof the harmful texts the stream stopped: a reader saw a median {statistics.median(seen):.0%} "
            f"and at most {max(seen):.0%} of the text first; stopped before any word: "
            f"{sum(s == 0 for s in seen)}/{len(seen)}"
        )
    print(f"CPU per streamed text (a check per word) {result['cpu_ms']:.1f} ms")


def report(result: dict[str, object], rows: int, show_errors: bool) -> None:
    per_category: dict[tuple[str, str], list[int]] = result["per_category"]  # type: ignore[assignment]
    totals = {"block": [0, 0], "pass": [0, 0]}
    print("| expected | category | judged as expected | rate |\n|---|---|---|---|")
    for (expected, category), (ok, n) in sorted(per_category.items()):
        totals[expected][0] += ok
        totals[expected][1] += n
        print(f"| {expected} | {category} | {ok}/{n} | {ok / n:.0%} |")
    for expected, (ok, n) in totals.items():
        what = "hateful/harmful blocked" if expected == "block" else "legitimate passed"
        print(f"| **{expected}** | **all: {what}** | **{ok}/{n}** | **{ok / max(n, 1):.1%}** |")
    if "seen" in result:
        report_seen(result)
    else:
        print(f"\nblocks by rule: {dict(result['tiers'])}")  # type: ignore[call-overload]
        print(
            f"units embedded: {result['embedded']} for {rows} texts; CPU per check {result['cpu_ms']:.2f} ms"
        )
    if show_errors:
        print("\nmisjudged:\n" + "\n".join(result["errors"]))  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus",
        choices=(*CORPORA, "train"),  # train: the examples the semantic tier is fitted on
        default="heldout",
    )
    parser.add_argument("--source", choices=("all", "file", "templates"), default="all")
    parser.add_argument("--errors", action="store_true", help="list every misjudged text")
    parser.add_argument("--streamed", action="store_true", help="stream each text word by word as an answer")
    args = parser.parse_args(argv)
    if args.errors and args.corpus in COUNTS_ONLY:
        parser.error(f"--corpus {args.corpus} reports counts only: its cases are never studied")
    rows = load_corpus(args.corpus, args.source)
    result = evaluate_streamed(rows) if args.streamed else evaluate(build_moderator(), rows)
    report(result, len(rows), args.errors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
