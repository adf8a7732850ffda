"""Time prepare_image on typical uploads (one core): `python bench/bench_images.py [--repeat N]`.

Target: a 24-megapixel JPEG prepares in <= 250 ms with Kimi K2.5's pixel budget.
Images are synthetic but photo-like (gradients plus noise), so the codecs do realistic work.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageCms

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from webapp.config import load_settings
from webapp.media.images import prepare_image
from webapp.upstream.profiles import KIMI_MAX_IMAGE_PIXELS

MAX_IMAGE_BYTES = load_settings().max_image_bytes

TARGET_24MP_MS = 250.0


def photo_like(width: int, height: int, seed: int = 7) -> Image.Image:
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 1, width, dtype=np.float32)[None, :]
    y = np.linspace(0, 1, height, dtype=np.float32)[:, None]
    base = np.stack([x * 200 + y * 30, y * 180 + 40 * np.sin(x * 20), (x + y) * 100], axis=-1)
    # Coarse noise, upsampled: texture like a photo's, cheap to make at 24 MP.
    noise = rng.normal(0, 12, (height // 8 + 1, width // 8 + 1, 3)).astype(np.float32)
    noise = noise.repeat(8, 0).repeat(8, 1)[:height, :width]
    return Image.fromarray(np.clip(base + noise, 0, 255).astype(np.uint8), "RGB")


SRGB_ICC = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def rotated_exif() -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 degrees to view, like a portrait phone photo
    return exif


def encoded(img: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **params)
    return out.getvalue()


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    fn()  # warm-up: first-call imports and codec setup are not what we measure
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core, as the target says
    cases = {
        "jpeg 24MP (6000x4000) q92": encoded(photo_like(6000, 4000), "JPEG", quality=92),
        "jpeg 12MP (4032x3024) q90": encoded(photo_like(4032, 3024), "JPEG", quality=90),
        "jpeg 12MP + ICC + EXIF rotate": encoded(
            photo_like(4032, 3024), "JPEG", quality=90, icc_profile=SRGB_ICC, exif=rotated_exif()
        ),
        "png screenshot 2560x1440": encoded(photo_like(2560, 1440).quantize(64).convert("RGB"), "PNG"),
        "webp 4MP (2400x1600)": encoded(photo_like(2400, 1600), "WEBP", quality=85),
    }
    failed = False
    print(f"{'case':34} {'bytes':>10} {'median ms':>10} {'max ms':>8}  out")
    for name, raw in cases.items():
        result = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=KIMI_MAX_IMAGE_PIXELS)
        samples = timed(
            lambda raw=raw: prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=KIMI_MAX_IMAGE_PIXELS),
            args.repeat,
        )
        median = statistics.median(samples)
        print(
            f"{name:34} {len(raw):>10} {median:>10.1f} {max(samples):>8.1f}  "
            f"{result.width}x{result.height} {result.mime} {len(result.data)} B"
        )
        if name.startswith("jpeg 24MP") and median > TARGET_24MP_MS:
            failed = True
    verdict = "FAIL" if failed else "ok"
    print(f"24 MP JPEG target <= {TARGET_24MP_MS:.0f} ms: {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
