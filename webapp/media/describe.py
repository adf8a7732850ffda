"""A short, factual description of an image for a model that cannot see it.

Size, orientation, dominant colours (OpenCV k-means) and any QR code's text (OpenCV's detector). The QR text is
treated like anything else the user sent: it goes through the input rails, so a code pointing at a host off the
allowlist blocks the turn just as a typed link would.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

# A few named anchors are enough to say "mostly dark blue and white"; exact shades would be noise.
_COLOUR_NAMES: dict[str, tuple[int, int, int]] = {
    "black": (0, 0, 0), "white": (255, 255, 255), "grey": (128, 128, 128), "red": (220, 30, 30),
    "orange": (245, 140, 20), "yellow": (240, 220, 40), "green": (40, 160, 60), "teal": (0, 128, 128),
    "blue": (40, 80, 220), "navy": (20, 30, 90), "purple": (120, 50, 160), "pink": (240, 130, 180),
    "brown": (120, 75, 40), "beige": (225, 205, 170),
}  # fmt: skip
_SAMPLE_SIDE = 96  # colours are judged on a small copy: fast, and fine detail does not change them


@dataclass(frozen=True)
class ImageDescription:
    text: str
    qr_texts: tuple[str, ...] = ()


def describe_image(data: bytes, label: str = "image") -> ImageDescription:
    return _describe(data, label)


@lru_cache(maxsize=256)  # history re-sends old images each turn: describe each once
def _describe(data: bytes, label: str) -> ImageDescription:
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if pixels is None:
        return ImageDescription(f"[{label}: could not be read]")
    height, width = pixels.shape[:2]
    shape = "landscape" if width > height * 1.1 else "portrait" if height > width * 1.1 else "square"
    parts = [f"{width}x{height} px, {shape}", "mostly " + " and ".join(dominant_colours(pixels))]
    qr = qr_text(pixels)
    if qr:
        parts.append(f'a QR code reading "{qr}"')
    return ImageDescription(f"[{label}: " + "; ".join(parts) + "]", (qr,) if qr else ())


def dominant_colours(bgr: np.ndarray, count: int = 2) -> list[str]:
    small = cv2.resize(bgr, (_SAMPLE_SIDE, _SAMPLE_SIDE), interpolation=cv2.INTER_AREA)
    samples = cv2.cvtColor(small, cv2.COLOR_BGR2RGB).reshape(-1, 3).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
    k = min(4, len(np.unique(samples, axis=0)))
    no_labels = np.zeros(
        (len(samples), 1), np.int32
    )  # ignored with KMEANS_PP_CENTERS; the stubs want an array
    _, labels, centres = cv2.kmeans(samples, k, no_labels, criteria, 2, cv2.KMEANS_PP_CENTERS)
    shares = np.bincount(labels.ravel(), minlength=k)
    names: list[str] = []
    for index in np.argsort(shares)[::-1]:
        name = _nearest_name(centres[index])
        if name not in names:
            names.append(name)
        if len(names) == count:
            break
    return names


def _nearest_name(rgb: np.ndarray) -> str:
    return min(_COLOUR_NAMES, key=lambda n: float(np.sum((np.array(_COLOUR_NAMES[n]) - rgb) ** 2)))


def qr_text(bgr: np.ndarray) -> str:
    try:
        text, _, _ = cv2.QRCodeDetector().detectAndDecode(bgr)
    except cv2.error:
        return ""
    return text.strip()
