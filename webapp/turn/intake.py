"""Image intake for a turn: fetch what the user linked, then verify and prepare every image they sent.

Every failure is kept with the image it belongs to (never raised), because the user's message is stored with
all its images, refused ones included: a refused image is evidence too (its hash, size and the reason).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webapp.media.fetch import decode_data_url, fetch_image
from webapp.media.images import ImageError, PreparedImage, prepare_image
from webapp.store import AttachmentIn
from webapp.turn.events import ImageInput

FETCH_TIMEOUT_S = 10.0
# Why a linked image could not be downloaded, when that is the network's or the image host's doing rather than
# the client's: the API answers these with a 502, not a 400.
FETCH_FAILURES = frozenset({"fetch_failed", "fetch_timeout"})


@dataclass(frozen=True)
class PreparedInput:
    """One image the user sent, and what the image step made of it (or why it refused it)."""

    source: ImageInput
    image: PreparedImage | None
    error: str | None

    def attachment(self) -> AttachmentIn:
        # Stored either way: a refused image is evidence too (its hash, size and the reason).
        if self.image is None:
            data = self.source.data
            return AttachmentIn(
                sha256=hashlib.sha256(data).hexdigest(),
                mime="",
                size=len(data),
                width=0,
                height=0,
                data=b"",
                thumbnail=None,
                error=self.error,
            )
        image = self.image
        return AttachmentIn(
            sha256=image.original_sha256,
            mime=image.mime,
            size=image.original_size,
            width=image.width,
            height=image.height,
            data=image.data,
            thumbnail=image.thumbnail,
        )


async def fetch_image_urls(
    urls: Sequence[str], *, allows: Callable[[str], bool], max_bytes: int
) -> list[ImageInput]:
    """The images behind `urls`: data URLs decoded, allowlisted https URLs fetched by the app (never by vLLM).

    A URL off the allowlist is never contacted and left out: the input rail refuses it by name.
    """
    fetched = []
    for number, url in enumerate(urls, start=1):
        if not url.startswith("data:") and not allows(url):
            continue
        name = f"image {number}" if url.startswith("data:") else url if len(url) <= 60 else url[:57] + "..."
        try:
            data = (
                decode_data_url(url)
                if url.startswith("data:")
                else await fetch_image(url, allows=allows, max_bytes=max_bytes, timeout_s=FETCH_TIMEOUT_S)
            )
        except ImageError as exc:
            fetched.append(ImageInput(b"", name=name, error=str(exc), error_code=exc.code))
            continue
        fetched.append(ImageInput(data, name=name))
    return fetched


def prepare_images(
    images: Sequence[ImageInput], *, max_pixels: int | None, max_bytes: int, clahe: bool
) -> list[PreparedInput]:
    """Verify by content, orient, strip metadata, cap pixels, re-encode. CPU-bound: run it in a thread."""
    results = []
    for image in images:
        if image.error:
            results.append(PreparedInput(image, None, f"{image.name}: {image.error}"))
            continue
        try:
            prepared = prepare_image(image.data, max_pixels=max_pixels, max_bytes=max_bytes, clahe=clahe)
        except ImageError as exc:
            results.append(PreparedInput(image, None, f"{image.name}: {exc}"))
            continue
        results.append(PreparedInput(image, prepared, None))
    return results


class ImageWorkers:
    """Verify and prepare images off the event loop (CPU-bound) on a few threads of their own, shared by every
    turn: decoding one image of the largest size allowed takes over 500 MB for a moment (a 0.5 MB 16-bit PNG
    can be 64 MP), so as many at once as clients send would be a lever on the machine's memory."""

    def __init__(self, workers: int, max_pixels: int | None, max_bytes: int, clahe: bool) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="images")
        self._prepare = functools.partial(
            prepare_images, max_pixels=max_pixels, max_bytes=max_bytes, clahe=clahe
        )

    async def __call__(self, images: Sequence[ImageInput]) -> list[PreparedInput]:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._prepare, images)


def problem_code(problem: str, prepared: Sequence[PreparedInput]) -> str:
    """The TurnDone code of input that cannot be processed: `image_fetch_failed` when the problem is an image
    the app could not download (the network's or the image host's doing), else `invalid_request`."""
    failed = next((p for p in prepared if p.error), None)
    if failed is not None and failed.error == problem and failed.source.error_code in FETCH_FAILURES:
        return "image_fetch_failed"
    return "invalid_request"
