"""Turn untrusted image bytes into a clean image the model may see.

`prepare_image` trusts content, never names: the format is sniffed from magic bytes and the whole image
is decoded before anything is accepted. What comes out is freshly encoded from decoded pixels only, so:
- EXIF orientation is applied to the pixels, then every piece of metadata is gone (EXIF incl. GPS, XMP,
  ICC profiles, PNG text chunks, comments). A colour profile is first applied (converted to sRGB).
- Polyglots (a PNG with a ZIP or HTML appended, a JPEG with a script after its end marker, ...) are
  accepted for their pixels only: whatever rides along never survives the re-encode. The raw upload must
  never be served back; keep `data` (and `thumbnail`), and only the hash of the original.
- Animated GIF/WebP: the first frame.

Every refusal is an `ImageError` whose `code` is one of:
  empty_image, unsupported_image, broken_image, image_too_large, image_dimensions
and whose message can be shown to the user as is.
"""

from __future__ import annotations

import base64
import hashlib
import io
import math
from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageCms

# HEIC/HEIF (iPhone photos) when pillow-heif is installed; optional because it ships its own libheif.
try:
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF_SUPPORTED = True
except ImportError:  # pragma: no cover - depends on the environment
    HEIF_SUPPORTED = False

# Largest image we decode at all (after JPEG's cheap reduced-scale decode): 64 MP is ~256 MB as RGBA.
MAX_SOURCE_PIXELS: Final = 64_000_000
# Longer side / shorter side. Vision encoders tile or patch images; a 1x100000 strip is no picture.
MAX_ASPECT_RATIO: Final = 50
# A JPEG may be decoded at reduced scale down to this fraction of the pixel budget: a 12 MP photo then
# decodes at half size (3.05 MP for Kimi's 3.2 MP budget), twice as fast, for 5% fewer pixels.
DRAFT_MIN_FRACTION: Final = 0.9
THUMBNAIL_SIZE: Final = (256, 256)
THUMBNAIL_MIME: Final = "image/webp"
JPEG_QUALITY: Final = 90
SUPPORTED_TEXT: Final = "PNG, JPEG, WebP, GIF" + (", HEIC" if HEIF_SUPPORTED else "") + " or AVIF"

# Pillow format name for each MIME type we accept; Pillow is only allowed to try that one decoder.
_PIL_FORMATS: Final[dict[str, str]] = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/webp": "WEBP",
    "image/gif": "GIF",
    "image/heic": "HEIF",
    "image/avif": "AVIF",
}
_LOSSLESS_SOURCES: Final = frozenset({"image/png", "image/gif"})
_HEIF_BRANDS: Final = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"})
_AVIF_BRANDS: Final = frozenset({b"avif", b"avis"})
# EXIF orientation -> the transpose that makes the pixels upright (same table as ImageOps.exif_transpose).
_ORIENTATION: Final[dict[int, Image.Transpose]] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_EXIF_ORIENTATION_TAG: Final = 0x0112
_SRGB: Final = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


class ImageError(ValueError):
    """An image we refuse; `str()` is a message fit for the user, `code` is for APIs and logs."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class PreparedImage:
    data: bytes  # the re-encoded image the model sees
    mime: str
    width: int
    height: int
    original_sha256: str
    original_size: int
    original_width: int  # upright, i.e. after EXIF orientation
    original_height: int
    thumbnail: bytes  # THUMBNAIL_MIME, at most THUMBNAIL_SIZE

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"

    @property
    def thumbnail_mime(self) -> str:
        return THUMBNAIL_MIME

    @property
    def sha256(self) -> str:
        """Hash of `data` (what the model saw)."""
        return hashlib.sha256(self.data).hexdigest()


def sniff_mime(raw: bytes) -> str | None:
    """The image type by magic bytes, or None when it is none we decode."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    if raw[4:8] == b"ftyp":
        brand = raw[8:12]
        if brand in _AVIF_BRANDS:
            return "image/avif"
        if brand in _HEIF_BRANDS:
            return "image/heic"
    return None


def prepare_image(
    raw: bytes,
    *,
    max_pixels: int | None,
    max_bytes: int,
    clahe: bool = False,
) -> PreparedImage:
    """Verify, orient, strip, downscale to `max_pixels` and re-encode `raw`; raise ImageError if unfit."""
    mime = _check_raw(raw, max_bytes)
    img = _open(raw, mime)
    orientation = _orientation(img)
    if max_pixels is not None and mime == "image/jpeg":
        # Let libjpeg decode at 1/2, 1/4 or 1/8 scale when we will shrink anyway: the big speed win.
        img.draft("RGB", _fit(img.size, int(max_pixels * DRAFT_MIN_FRACTION)))
    _check_dimensions(img.size, MAX_SOURCE_PIXELS)
    _load(img)
    upright_size = _upright(img.size, orientation)
    pixels = _srgb_pixels(img, max_pixels)
    if orientation in _ORIENTATION:
        pixels = pixels.transpose(_ORIENTATION[orientation])
    if clahe:
        pixels = equalize_contrast(pixels)
    data, out_mime = _encode(pixels, lossless=mime in _LOSSLESS_SOURCES or _is_lossless_webp(raw, mime))
    return PreparedImage(
        data=data,
        mime=out_mime,
        width=pixels.width,
        height=pixels.height,
        original_sha256=hashlib.sha256(raw).hexdigest(),
        original_size=len(raw),
        original_width=upright_size[0],
        original_height=upright_size[1],
        thumbnail=_thumbnail(pixels),
    )


def equalize_contrast(img: Image.Image) -> Image.Image:
    """OpenCV CLAHE on the lightness channel: lifts detail in dark or flat photos (scans, screenshots)."""
    import cv2  # the heavy import only for callers who ask for it
    import numpy as np

    rgb = img.convert("RGB")
    lab = cv2.cvtColor(np.asarray(rgb), cv2.COLOR_RGB2LAB)
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    lab[:, :, 0] = clahe.apply(lab[:, :, 0])
    out = Image.fromarray(cv2.cvtColor(lab, cv2.COLOR_LAB2RGB), "RGB")
    if img.mode == "RGBA":
        out.putalpha(img.getchannel("A"))
    return out


def _check_raw(raw: bytes, max_bytes: int) -> str:
    if not raw:
        raise ImageError("empty_image", "The image is empty (0 bytes).")
    if len(raw) > max_bytes:
        raise ImageError(
            "image_too_large",
            f"The image is {_mib(len(raw))}; the limit is {_mib(max_bytes)}.",
        )
    mime = sniff_mime(raw)
    if mime is None:
        raise ImageError("unsupported_image", _unsupported_message(raw))
    if mime == "image/heic" and not HEIF_SUPPORTED:
        raise ImageError("unsupported_image", "HEIC images are not supported here; please send PNG or JPEG.")
    return mime


def _unsupported_message(raw: bytes) -> str:
    head = raw[:512].lstrip().lower()
    if b"<svg" in head or (head.startswith(b"<?xml") and b"svg" in raw[:4096].lower()):
        kind = "SVG drawings are not supported"
    elif head.startswith(b"%pdf"):
        kind = "PDF files are not supported"
    elif raw.startswith(b"BM") or raw[:4] in (b"II*\x00", b"MM\x00*"):
        kind = "BMP and TIFF images are not supported"
    elif head.startswith((b"<!doctype", b"<html", b"<")):
        kind = "This is an HTML/XML document, not an image"
    elif raw.startswith(b"PK\x03\x04"):
        kind = "This is an archive, not an image"
    else:
        kind = "This file is not an image we can read"
    return f"{kind}. Please send a {SUPPORTED_TEXT} image."


def _open(raw: bytes, mime: str) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(raw), formats=[_PIL_FORMATS[mime]])
    except Image.DecompressionBombError as exc:
        raise ImageError("image_too_large", _too_many_pixels_message()) from exc
    except Exception as exc:  # any parser failure on hostile input means "broken", never a crash
        raise ImageError("broken_image", _broken_message(mime)) from exc
    # Checked on the declared size, before a single pixel is decoded.
    _check_dimensions(img.size, _declared_cap(mime))
    return img


def _declared_cap(mime: str) -> int:
    # A JPEG is decoded at reduced scale (draft), so its declared size may exceed what we decode;
    # Pillow's own bomb limit (2 x Image.MAX_IMAGE_PIXELS) still bounds it at open.
    return MAX_SOURCE_PIXELS * 4 if mime == "image/jpeg" else MAX_SOURCE_PIXELS


def _check_dimensions(size: tuple[int, int], cap: int) -> None:
    width, height = size
    if width < 1 or height < 1:
        raise ImageError("broken_image", "The image has no pixels.")
    if width * height > cap:
        raise ImageError("image_too_large", _too_many_pixels_message(width, height))
    if max(width, height) > MAX_ASPECT_RATIO * min(width, height):
        raise ImageError(
            "image_dimensions",
            f"The image is {width}x{height} pixels; its sides may differ by at most {MAX_ASPECT_RATIO} times.",
        )


def _load(img: Image.Image) -> None:
    try:
        img.load()
    except Image.DecompressionBombError as exc:
        raise ImageError("image_too_large", _too_many_pixels_message()) from exc
    except Exception as exc:  # truncated data, bad CRC, corrupt stream, decoder errors
        raise ImageError("broken_image", _broken_message(_mime_of(img))) from exc


def _orientation(img: Image.Image) -> int:
    try:
        value = img.getexif().get(_EXIF_ORIENTATION_TAG, 1)
    except Exception:  # a corrupt EXIF block is no reason to refuse the pixels
        return 1
    return value if isinstance(value, int) else 1


def _upright(size: tuple[int, int], orientation: int) -> tuple[int, int]:
    return (size[1], size[0]) if orientation in (5, 6, 7, 8) else size


def _srgb_pixels(img: Image.Image, max_pixels: int | None) -> Image.Image:
    """RGB or RGBA pixels within max_pixels, colours in sRGB, with no metadata attached."""
    target = "RGBA" if _has_alpha(img) else "RGB"
    icc = img.info.get("icc_profile")
    if icc and img.mode == "CMYK":  # a CMYK profile only applies before leaving CMYK
        out, icc = _icc_to_srgb(img, icc, target) or img.convert(target), None
    else:
        out = _to_mode(img, target)
    if max_pixels is not None and out.width * out.height > max_pixels:
        out = out.resize(_fit(out.size, max_pixels), Image.Resampling.LANCZOS, reducing_gap=3.0)
    if icc:  # after downscaling: the colour transform then touches far fewer pixels
        out = _icc_to_srgb(out, icc, target) or out
    # Fresh info: nothing from the source (EXIF, XMP, text chunks, ICC, comments) reaches the encoder.
    out.info = {}
    return out


def _icc_to_srgb(img: Image.Image, icc: bytes, target: str) -> Image.Image | None:
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        return ImageCms.profileToProfile(img, source, _SRGB, outputMode=target)
    except Exception:  # a broken profile, or one for another colour space: keep the pixels as they are
        return None


def _to_mode(img: Image.Image, target: str) -> Image.Image:
    if img.mode in ("I", "F") or img.mode.startswith("I;16"):
        return _wide_grey_to_rgb(img)
    return img if img.mode == target else img.convert(target)


def _has_alpha(img: Image.Image) -> bool:
    return img.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in img.info


def _wide_grey_to_rgb(img: Image.Image) -> Image.Image:
    # 16-bit/float greyscale: Pillow's convert() would clip everything above 255 to white.
    import numpy as np

    values = np.asarray(img, dtype=np.float64)
    top = float(values.max()) if values.size else 0.0
    scaled = values * (255.0 / top) if top > 255.0 else values
    return Image.fromarray(np.clip(scaled, 0, 255).astype(np.uint8), "L").convert("RGB")


def _fit(size: tuple[int, int], max_pixels: int) -> tuple[int, int]:
    """The largest size with the same aspect ratio and at most max_pixels pixels."""
    width, height = size
    if width * height <= max_pixels:
        return size
    scale = math.sqrt(max_pixels / (width * height))
    new_w, new_h = max(1, int(width * scale)), max(1, int(height * scale))
    while new_w * new_h > max_pixels and max(new_w, new_h) > 1:  # float rounding guard
        if new_w >= new_h:
            new_w -= 1
        else:
            new_h -= 1
    return new_w, new_h


def _is_lossless_webp(raw: bytes, mime: str) -> bool:
    return mime == "image/webp" and b"VP8L" in raw[12:64]


def _encode(img: Image.Image, *, lossless: bool) -> tuple[bytes, str]:
    out = io.BytesIO()
    if lossless or img.mode == "RGBA":
        # Level 1: several times faster than the default at ~10-20% more bytes; these stay local.
        img.save(out, "PNG", compress_level=1)
        return out.getvalue(), "image/png"
    img.save(out, "JPEG", quality=JPEG_QUALITY, optimize=False)
    return out.getvalue(), "image/jpeg"


def _thumbnail(img: Image.Image) -> bytes:
    thumb = img.copy()
    thumb.thumbnail(THUMBNAIL_SIZE, Image.Resampling.LANCZOS, reducing_gap=2.0)
    out = io.BytesIO()
    thumb.save(out, "WEBP", quality=75, method=2)
    return out.getvalue()


def _mime_of(img: Image.Image) -> str:
    return next((m for m, f in _PIL_FORMATS.items() if f == img.format), "image")


def _broken_message(mime: str) -> str:
    kind = mime.removeprefix("image/").upper()
    return f"The {kind} image is damaged or incomplete and cannot be read."


def _too_many_pixels_message(width: int | None = None, height: int | None = None) -> str:
    declared = f" ({width}x{height} pixels)" if width and height else ""
    return f"The image is too large{declared}; the limit is {MAX_SOURCE_PIXELS // 1_000_000} megapixels."


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"
