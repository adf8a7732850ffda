"""Where the repository's own files are, for tests that read them (rails, assets, README, test data)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RAILS_DIR = ROOT / "rails"
ASSETS_DIR = ROOT / "assets"
TEST_DATA = ROOT / "tests" / "data"
