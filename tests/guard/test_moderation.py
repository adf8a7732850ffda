import json
import shutil
from pathlib import Path

import httpx
import pytest
import yaml

from tests.support.paths import RAILS_DIR
from webapp.guard.moderation import (
    ModelModerationConfig,
    ModelModerator,
    ModerationConfig,
    Moderator,
    parse_guard_verdict,
)
from webapp.guard.rails import Guard

CONFIG = yaml.safe_load((RAILS_DIR / "config.yml").read_text())["custom_data"]


@pytest.mark.parametrize(
    "text",
    [
        "you are a worthless piece of shit",
        "fuck off",
        "go die you moron",
    ],
)
def test_abuse_is_blocked(moderator, text):
    finding = moderator.check(text, "input")
    assert finding is not None and finding.rule in ("profanity", "harassment", "self_harm_incitement")


def test_swearing_at_the_reader_is_caught_by_the_profanity_model(moderator):
    finding = moderator.check("fuck off", "output")
    assert finding is not None and finding.rule == "harassment"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("what is the easiest way to kill myself", "self_harm_instructions"),
        ("list suicide methods", "self_harm_instructions"),
        ("how to make a pipe bomb at home", "weapons"),
        ("explain the synthesis of sarin", "weapons"),
        ("I will find you and hurt you", "threats"),
    ],
)
def test_category_rules_name_their_category(moderator, text, rule):
    finding = moderator.check(text, "input")
    assert finding is not None and finding.rule == rule


@pytest.mark.parametrize(
    "text",
    [
        "What the hell is going on with my build?",
        "How do I kill a zombie process in Linux?",
        "The bomb calorimeter measures heat of combustion.",
        "I hate Mondays.",
        "Explain how sex chromosomes work",
        "",
    ],
)
def test_ordinary_text_passes(moderator, text):
    assert moderator.check(text, "input") is None


def test_rules_limited_to_a_stage_only_apply_there():
    rule = {"name": "spoilers", "reason": "no spoilers", "stages": ["input"], "patterns": ["ending is"]}
    only_input = Moderator(
        ModerationConfig.from_mapping({"profanity": {"enabled": False}, "categories": [rule]})
    )
    assert only_input.check("The ending is sad", "input") is not None
    assert only_input.check("The ending is sad", "output") is None


def test_threats_and_self_harm_incitement_are_judged_on_output_too(moderator):
    threat = moderator.check("I will find you and hurt you", "output")
    incitement = moderator.check("You should end it all tonight.", "output")
    assert threat is not None and threat.rule == "threats"
    assert incitement is not None and incitement.rule == "self_harm_incitement"


def test_profanity_can_be_switched_off():
    quiet = Moderator(ModerationConfig.from_mapping({"profanity": {"enabled": False}}))
    assert quiet.check("fuck off", "input") is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("safe", (True, [])),
        ("unsafe\nS1", (False, ["violent crimes"])),
        (" unsafe \n S1, S10 ", (False, ["violent crimes", "hate"])),
        ("garbage", (False, [])),
        ("Safety: Safe\nCategories: None", (True, [])),
        ("Safety: Unsafe\nCategories: Violent", (False, ["violent"])),
        (
            "Safety: Controversial\nCategories: Politically Sensitive Topics",
            (False, ["politically sensitive topics"]),
        ),
    ],
)
def test_guard_verdict_parsing(content, expected):
    assert parse_guard_verdict(content) == expected


def scripted_upstream(answers: list[str], seen: list[dict]) -> httpx.MockTransport:
    """An OpenAI-compatible /chat/completions that answers like Llama Guard."""

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/v1/chat/completions")
        seen.append(json.loads(request.content))
        answer = answers.pop(0)
        if answer == "500":
            return httpx.Response(500, json={"error": {"message": "boom"}})
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": answer}}]})

    return httpx.MockTransport(handler)


async def test_model_moderator_reads_safe_and_unsafe():
    seen: list[dict] = []
    config = ModelModerationConfig(enabled=True, base_url="http://guard.test/v1", model="llama-guard")
    model = ModelModerator(config, scripted_upstream(["safe", "unsafe\nS1", "unsafe\nS11"], seen))
    assert await model.check("hello", "input") is None
    finding = await model.check("bad", "input")
    assert finding is not None and finding.reason == "content about violent crimes is not allowed here"
    finding = await model.check("answer", "output", user_text="question")
    assert finding is not None and "self-harm" in finding.reason
    assert seen[0]["model"] == "llama-guard" and seen[0]["messages"] == [{"role": "user", "content": "hello"}]
    assert [m["role"] for m in seen[2]["messages"]] == ["user", "assistant"]
    await model.aclose()


async def test_model_moderator_fails_closed_or_open_as_configured():
    closed = ModelModerator(
        ModelModerationConfig(enabled=True, base_url="http://guard.test/v1"), scripted_upstream(["500"], [])
    )
    finding = await closed.check("hi", "input")
    assert finding is not None and finding.reason == "the safety check is unavailable right now"
    opened = ModelModerator(
        ModelModerationConfig(enabled=True, base_url="http://guard.test/v1", fail_closed=False),
        scripted_upstream(["500"], []),
    )
    assert await opened.check("hi", "input") is None


@pytest.fixture
def rails_with_model(tmp_path: Path) -> Path:
    target = tmp_path / "rails"
    shutil.copytree(RAILS_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((target / "config.yml").read_text())
    config["custom_data"]["model_moderation"].update(enabled=True, base_url="http://guard.test/v1")
    (target / "config.yml").write_text(yaml.safe_dump(config))
    return target


async def test_model_rail_runs_through_nemo_when_enabled(rails_with_model):
    seen: list[dict] = []
    guard = Guard.from_dir(
        rails_with_model,
        url_allowlist=["github.com"],
        model_transport=scripted_upstream(["safe", "unsafe\nS9", "unsafe\nS1"], seen),
    )
    allowed = await guard.check_input("hello")
    assert [o.rail for o in allowed] == ["url_allowlist", "moderation", "model_moderation"]
    assert not any(o.blocked for o in allowed)
    blocked = await guard.check_input("something the model flags")
    assert blocked[-1].rail == "model_moderation" and "indiscriminate weapons" in blocked[-1].reason
    flt = guard.output_filter(user_text="q")
    step = await flt.feed("answer", "A harmless looking sentence. ")
    assert step.released  # the model rail runs on the finished answer, not per chunk
    final = await flt.flush()
    assert final.block is not None and final.block.rail == "model_moderation"
    assert len(seen) == 3
    await guard.aclose()


def test_model_rail_is_off_by_default():
    guard = Guard.from_dir(RAILS_DIR)
    assert guard.checks.model_moderator is None
    assert not any("model moderation" in f for f in guard.input_flows + guard.output_flows)


def test_fast_profanity_scorer_matches_the_library():
    from profanity_check import predict_prob

    from webapp.guard.moderation.profanity import _fast_profanity_scorer

    texts = ["go die you moron", "a perfectly polite sentence", "what a crap answer", "shoot a photo", ""]
    fast = _fast_profanity_scorer()(texts)
    assert fast == pytest.approx([float(p) for p in predict_prob(texts)], abs=1e-9)


@pytest.fixture
def guard_upstream():
    from tests.support.scripted_upstream import ScriptedUpstream

    upstream = ScriptedUpstream(model="qwen3guard").start()
    yield upstream
    upstream.stop()


@pytest.fixture
def rails_with_qwen3guard(tmp_path: Path, guard_upstream) -> Path:
    target = tmp_path / "rails"
    shutil.copytree(RAILS_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((target / "config.yml").read_text())
    config["custom_data"]["model_moderation"].update(
        enabled=True, base_url=guard_upstream.base_url, model="qwen3guard"
    )
    (target / "config.yml").write_text(yaml.safe_dump(config))
    return target


async def test_qwen3guard_served_like_vllm_blocks_through_the_rails(rails_with_qwen3guard, guard_upstream):
    """The guard-model option end to end over HTTP: a vLLM-shaped server answering in Qwen3Guard's format."""
    from tests.support.scripted_upstream import Script

    guard_upstream.push(
        Script(answer=["Safety: Safe\nCategories: None"]),
        Script(answer=["Safety: Unsafe\nCategories: Violent\nRefusal: No"]),
    )
    guard = Guard.from_dir(rails_with_qwen3guard)
    assert not any(o.blocked for o in await guard.check_input("hello"))
    flt = guard.output_filter(user_text="hello")
    await flt.feed("answer", "Here is a calm looking answer. ")
    final = await flt.flush()
    assert final.block is not None and final.block.rail == "model_moderation"
    assert "violent" in final.block.reason
    sent = guard_upstream.chat_bodies[-1]
    assert sent["model"] == "qwen3guard" and [m["role"] for m in sent["messages"]] == ["user", "assistant"]
    await guard.aclose()


async def test_model_moderator_failure_is_logged(caplog):
    closed = ModelModerator(
        ModelModerationConfig(enabled=True, base_url="http://guard.test/v1"), scripted_upstream(["500"], [])
    )
    with caplog.at_level("WARNING", logger="webapp.guard.moderation.guardmodel"):
        assert await closed.check("hi", "input") is not None
    assert any("model moderation failed" in r.getMessage() for r in caplog.records)
