"""The README is checked: every launch.py flag and every RAILCHAT_* variable it names must exist, and the
reverse for flags, so the docs cannot drift from the code."""

from __future__ import annotations

import re

import launch
from tests.support.paths import ROOT
from webapp.config import Settings

README = (ROOT / "README.md").read_text()


def launch_flags() -> set[str]:
    parser_flags = set()
    for action in launch.build_parser()._actions:
        parser_flags.update(o for o in action.option_strings if o.startswith("--") and o != "--help")
    return parser_flags


def test_every_launch_flag_is_documented() -> None:
    missing = {flag for flag in launch_flags() if flag not in README}
    assert not missing, f"launch.py flags missing from README: {sorted(missing)}"


def test_every_documented_flag_exists() -> None:
    documented = set(re.findall(r"`(--[a-z][a-z-]+)", README))
    passthrough = {
        "--trust-remote-code",
        "--tool-call-parser",
        "--reasoning-parser",
        "--enable-auto-tool-choice",
        "--mm-encoder-tp-mode",
        "--tensor-parallel-size",
        "--max-num-seqs",
    }
    unknown = documented - launch_flags() - passthrough
    assert not unknown, f"README names flags launch.py does not have: {sorted(unknown)}"


def test_every_documented_environment_variable_is_a_setting() -> None:
    fields = {name.upper() for name in Settings.model_fields}
    extra = {"TEST_PG_URL", "SOAK_SECONDS", "REQUIRE_ALL"}  # read by the test suite, not the app
    named = set(re.findall(r"RAILCHAT_([A-Z_]+)", README))
    unknown = named - fields - extra
    assert not unknown, f"README names RAILCHAT_* variables nobody reads: {sorted(unknown)}"
