"""Where the files the app ships live (the rails and the browser assets), and where it keeps what it prepares.

A leaf module (it imports nothing of the app), so the guard can find its own rails files without importing
the app's settings, which depend on the rooms that use the guard.
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def resource_dir(name: str) -> Path:
    """``rails`` or ``assets``: inside the installed package (a wheel maps them there), else at the top of the
    source checkout, where the repository keeps them (a plain or editable checkout)."""
    packaged = importlib.resources.files("webapp") / name
    if packaged.is_dir():
        return Path(str(packaged))
    return PROJECT_ROOT / name


def user_dir(xdg_variable: str, fallback: str) -> Path:
    return Path(os.environ.get(xdg_variable) or Path.home() / fallback) / "railchat"


def default_cache_dir() -> Path:
    """Prepared models (the embedded default, test models, the tuned moderation classifier): the settings'
    default, and the guard's when it is built without settings (tests, the benchmark)."""
    return user_dir("XDG_CACHE_HOME", ".cache")
