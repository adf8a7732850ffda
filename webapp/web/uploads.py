"""Which file paths a browser may name: only its own uploads in the private Gradio temp folder.

Gradio copies (or downloads) every file-shaped value in an event payload before a handler runs, and checks
that the file was uploaded only for apps started with `launch()`: for an app mounted into FastAPI the check
is skipped, so a forged event could name `/etc/passwd`, the database or `https://anywhere/` and get it back
by URL. Every path an event names is therefore judged here, after resolving symlinks, before Gradio or a
handler touches it.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path


def is_url_like(path: str) -> bool:
    """Anything Gradio or httpx might fetch instead of reading a local file."""
    lowered = path.strip().lower()
    return "://" in lowered or lowered.startswith(("//", "\\\\", "data:", "file:"))


def is_upload(path: object, upload_dir: Path) -> bool:
    """True only for an existing regular file inside ``upload_dir`` once symlinks and `..` are resolved."""
    if not isinstance(path, str) or not path or "\x00" in path or is_url_like(path):
        return False
    if not os.path.isabs(path):
        return False
    try:
        real = Path(path).resolve(strict=True)
        root = upload_dir.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return False
    return real != root and real.is_relative_to(root) and real.is_file()


def named_paths(value: object) -> list[object]:
    """Every value an event payload offers as a file: any dict's `path` (with or without Gradio's meta tag)."""
    found: list[object] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "path" in item:
                found.append(item["path"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


class UploadLedger:
    """Which browser uploaded which file, so an event may name only its own browser's uploads.

    Gradio names an upload by a hash of its content, so the path alone proves nothing: a visitor who
    learns another visitor's path (or uploads the same bytes) could attach it. Kept in memory: after a
    restart a browser uploads its file again (the chat it sent stays stored).
    """

    def __init__(self, *, max_browsers: int = 10_000, max_files: int = 1_000) -> None:
        self._files: OrderedDict[str, OrderedDict[str, None]] = OrderedDict()
        self.max_browsers = max_browsers
        self.max_files = max_files

    def record(self, browser: str, paths: list[object]) -> None:
        files = self._files.setdefault(browser, OrderedDict())
        self._files.move_to_end(browser)
        for path in paths:
            if isinstance(path, str) and (real := _real(path)) is not None:
                files[real] = None
                files.move_to_end(real)
        while len(files) > self.max_files:
            files.popitem(last=False)
        while len(self._files) > self.max_browsers:
            self._files.popitem(last=False)

    def owns(self, browser: str | None, path: object) -> bool:
        if browser is None or not isinstance(path, str):
            return False
        real = _real(path)
        return real is not None and real in self._files.get(browser, ())


def _real(path: str) -> str | None:
    try:
        return str(Path(path).resolve(strict=True))
    except (OSError, RuntimeError, ValueError):
        return None
