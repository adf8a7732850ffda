"""Which file paths a request may name: only its owner's own uploads in the private Gradio temp folder.

Gradio copies (or downloads) every file-shaped value in an event payload before a handler runs, and checks
that the file was uploaded only for apps started with `launch()`: for an app mounted into FastAPI the check
is skipped, so a forged event could name `/etc/passwd`, the database or `https://anywhere/` and get it back
by URL. Every path an event names is therefore judged here, after resolving symlinks, before Gradio or a
handler touches it.

An upload belongs to the owner of chats (``webapp.web.ownership.owner_id``): the signed-in user by name, else
the browser by its signed id. Bound to the browser alone, a user's uploads stayed nameable by whoever signed in
next in that browser profile (and were served to them by URL).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

OWNERS = ".owners"  # inside the upload folder: one empty, HMAC-named file per (owner, upload)


def is_url_like(path: str) -> bool:
    """Anything Gradio or httpx might fetch instead of reading a local file."""
    lowered = path.strip().lower()
    return "://" in lowered or lowered.startswith(("//", "\\\\", "data:", "file:"))


def is_upload(path: object, upload_dir: Path) -> bool:
    """True only for an existing regular file inside ``upload_dir`` once symlinks and `..` are resolved (the
    ownership marks kept there are not uploads)."""
    return _relative(path, upload_dir) is not None


def _relative(path: object, upload_dir: Path) -> str | None:
    """``path`` resolved, relative to ``upload_dir``, if it names an upload; else None."""
    if not isinstance(path, str) or not path or "\x00" in path or is_url_like(path):
        return None
    if not os.path.isabs(path):
        return None
    try:
        real = Path(path).resolve(strict=True)
        root = upload_dir.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if real == root or not real.is_relative_to(root) or not real.is_file():
        return None
    relative = real.relative_to(root)
    return None if relative.parts[0] == OWNERS else relative.as_posix()


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
    """Which owner uploaded which file, so an event may name only its own owner's uploads.

    Gradio names an upload by a hash of its content, so the path alone proves nothing: a visitor who
    learns another visitor's path (or uploads the same bytes) could attach it. So each upload gets a mark
    beside it in the upload folder: an empty file named by an HMAC of (owner id, path) under a key from
    the app's secret. The mark lives as long as the upload and is seen by every worker and every restart
    that sees the upload, and nobody without the key can make one (visitors choose only an upload's name,
    never its folder).
    """

    def __init__(self, upload_dir: Path, *, secret: str) -> None:
        self.upload_dir = upload_dir
        self._key = hashlib.sha256(b"railchat upload owner\0" + secret.encode()).digest()

    def _mark(self, owner: str, relative: str) -> Path:
        tag = hmac.new(self._key, f"{owner}\0{relative}".encode(), hashlib.sha256).hexdigest()
        return self.upload_dir / OWNERS / tag

    def record(self, owner: str, paths: list[object]) -> None:
        for path in paths:
            relative = _relative(path, self.upload_dir)
            if relative is not None:
                mark = self._mark(owner, relative)
                mark.parent.mkdir(mode=0o700, exist_ok=True)
                mark.touch(mode=0o600)

    def owns(self, owner: str | None, path: object) -> bool:
        if owner is None:
            return False
        relative = _relative(path, self.upload_dir)
        return relative is not None and self._mark(owner, relative).is_file()
