"""Where the files the app ships live: the rails and the browser assets.

A leaf module (it imports nothing of the app), so the guard can find its own rails files without importing
the app's settings, which depend on the rooms that use the guard.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def resource_dir(name: str) -> Path:
    """``rails`` or ``assets``: inside the installed package (a wheel maps them there), else at the top of the
    source checkout, where the repository keeps them (a plain or editable checkout)."""
    packaged = importlib.resources.files("webapp") / name
    if packaged.is_dir():
        return Path(str(packaged))
    return PROJECT_ROOT / name
