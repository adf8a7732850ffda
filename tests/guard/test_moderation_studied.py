"""The studied corpora's hateful texts as fit sentences (webapp/guard/moderation/studied.py): one group per
line in turn, the legitimate texts left out, and the corpora shipped with the rails where NeMo Guardrails
does not read them as configuration."""

from __future__ import annotations

from pathlib import Path

from nemoguardrails import utils as nemo_utils

from tests.support.moderation import MODERATION_CONFIG
from tests.support.paths import RAILS_DIR
from webapp.guard.moderation.studied import studied_harmful


def test_each_line_takes_the_next_group_and_the_legitimate_texts_are_left_out(tmp_path: Path) -> None:
    corpus = tmp_path / "studied.yaml"
    corpus.write_text(
        "groups:\n  - {group: cats, one: a cat}\n  - {group: dogs, one: a dog}\n"
        "block:\n  a:\n    - '{group} are vermin.'\n    - 'I would never hire {one}.'\n"
        "  b:\n    - '{group} smell.'\n    - 'Gulls are vermin.'\n    - 'Gulls are vermin.'\n"
        "pass:\n  a:\n    - '{group} are lovely.'\n",
        encoding="utf-8",
    )
    assert studied_harmful([corpus]) == [
        "Cats are vermin.",
        "I would never hire a dog.",
        "Cats smell.",  # the groups are taken in turn across the file, not per section
        "Gulls are vermin.",  # once
    ]


def test_the_studied_corpora_ship_with_the_rails_and_nemo_skips_them() -> None:
    """In the wheel (which carries only rails/), so a config may fit them; never read by NeMo as config."""
    studied = sorted(RAILS_DIR.glob("moderation_*.yaml"))
    assert len(studied) >= 13
    patterns = nemo_utils.get_railsignore_patterns(RAILS_DIR / ".railsignore")
    assert [p.name for p in studied if not nemo_utils.is_ignored_by_railsignore(p.name, patterns)] == []
    assert not any("tests/data" in str(name) for name in MODERATION_CONFIG["semantic"].get("studied") or ())
    assert len(studied_harmful(studied)) > 1000
