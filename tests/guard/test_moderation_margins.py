"""No verdict the suite asserts may ride on the last hundredth of an embedding score.

The embedding tiers (the semantic classifier, its group-swap reading and the counter-speech stance judge) are
logistic regressions over all-MiniLM-L6-v2 vectors from an int8 ONNX model, fitted at start. Their scores move
by a few thousandths between installs and CPUs (ONNX Runtime picks its int8 kernels by instruction set; the
fit depends on scikit-learn and NumPy): once a fresh install scored a side-door look-alike 0.795 against a 0.8
threshold and the suite failed on a machine where it had passed. So every payload the suite checks whole is
judged again with each of those thresholds moved by ``MARGIN`` both ways, and must keep its verdict: a
payload that flips is decided by noise, and gets a rule (or a wording the tiers judge clearly) instead.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.support.moderation import MODERATION_CONFIG
from tests.support.paths import RAILS_DIR
from tests.support.payloads import load_payloads
from webapp.guard.moderation import ModerationConfig, Moderator

MARGIN = 0.01  # twice the largest drift seen between two installs
PAYLOADS = [
    p for p in load_payloads(Path(__file__).with_name("side_door_payloads.yml")) if p.whole and not p.xfail
]


def thresholds_moved(config: dict[str, Any], by: float) -> dict[str, Any]:
    moved = copy.deepcopy(config)
    semantic = moved["semantic"]
    semantic["threshold"] = semantic.get("threshold", 0.8) + by
    semantic["thresholds"] = {k: v + by for k, v in (semantic.get("thresholds") or {}).items()}
    semantic["stance_threshold"] = semantic.get("stance_threshold", 0.8) + by
    if semantic.get("group_swap"):
        semantic["group_swap"]["threshold"] = semantic["group_swap"].get("threshold", 0.92) + by
    return moved


@pytest.fixture(scope="module", params=[MARGIN, -MARGIN], ids=["stricter", "looser"])
def moved(request: pytest.FixtureRequest) -> Moderator:
    config = thresholds_moved(MODERATION_CONFIG, request.param)
    moderator = Moderator(ModerationConfig.from_mapping(config, rails_dir=RAILS_DIR), rails_dir=RAILS_DIR)
    moderator.wait_ready(300)
    return moderator


def test_moving_the_thresholds_moves_something():
    """The moved configuration really differs where it should (else the check below proves nothing)."""
    moved = thresholds_moved(MODERATION_CONFIG, MARGIN)["semantic"]
    semantic = MODERATION_CONFIG["semantic"]
    assert moved["threshold"] == pytest.approx(semantic["threshold"] + MARGIN)
    assert moved["stance_threshold"] == pytest.approx(semantic["stance_threshold"] + MARGIN)
    assert moved["group_swap"]["threshold"] == pytest.approx(semantic["group_swap"]["threshold"] + MARGIN)


def test_a_score_moved_past_its_threshold_flips_a_verdict():
    """A moderator whose thresholds moved far enough judges some payload differently: the comparison below
    can see a flip."""
    far = Moderator(
        ModerationConfig.from_mapping(thresholds_moved(MODERATION_CONFIG, -0.3), rails_dir=RAILS_DIR),
        rails_dir=RAILS_DIR,
    )
    far.wait_ready(300)
    assert any(far.check(p.text, "output") is not None for p in PAYLOADS if p.verdict == "pass")


def test_no_payload_verdict_is_within_the_margin_of_a_threshold(moved):
    flipped = [
        p.text for p in PAYLOADS if (moved.check(p.text, "output") is not None) != (p.verdict == "block")
    ]
    assert flipped == []
