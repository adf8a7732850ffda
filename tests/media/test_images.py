"""prepare_image: formats, orientation, metadata stripping, budgets, and a corpus of hostile files."""

from __future__ import annotations

import base64
import hashlib
import io
import struct
import zipfile
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageCms, PngImagePlugin

from webapp.config import load_settings
from webapp.media.images import (
    DRAFT_MIN_FRACTION,
    HEIF_SUPPORTED,
    MAX_SOURCE_PIXELS,
    THUMBNAIL_SIZE,
    ImageError,
    PreparedImage,
    prepare_image,
    sniff_mime,
)
from webapp.upstream.profiles import KIMI_MAX_IMAGE_PIXELS

MAX_IMAGE_BYTES = load_settings().max_image_bytes

# ---------------------------------------------------------------- helpers


def encode(img: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **params)
    return out.getvalue()


def solid(color: tuple[int, ...], size: tuple[int, int] = (64, 48), mode: str = "RGB") -> Image.Image:
    return Image.new(mode, size, color)


def decoded(prepared: PreparedImage) -> Image.Image:
    img = Image.open(io.BytesIO(prepared.data))
    img.load()
    return img


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_declaring(width: int, height: int) -> bytes:
    """A well-formed PNG header for a huge image with a tiny (compressed) body: a decompression bomb."""
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    idat = png_chunk(b"IDAT", zlib.compress(b"\x00" * 1024))
    return b"\x89PNG\r\n\x1a\n" + ihdr + idat + png_chunk(b"IEND", b"")


def jpeg_with_exif(img: Image.Image, **tags: int | str) -> bytes:
    exif = Image.Exif()
    for tag, value in tags.items():
        exif[int(tag.removeprefix("t"))] = value
    return encode(img, "JPEG", exif=exif, quality=95)


def assert_clean_error(exc: ImageError, code: str) -> None:
    assert exc.code == code
    message = str(exc)
    assert message.endswith(".") and len(message) > 15
    for internal in ("PIL", "Traceback", "errno", "cannot identify", "Errno"):
        assert internal not in message


# ---------------------------------------------------------------- sniffing


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [
        ("PNG", "image/png"),
        ("JPEG", "image/jpeg"),
        ("WEBP", "image/webp"),
        ("GIF", "image/gif"),
        ("AVIF", "image/avif"),
    ],
)
def test_sniff_mime_recognises_content(fmt: str, mime: str) -> None:
    assert sniff_mime(encode(solid((1, 2, 3)), fmt)) == mime


@pytest.mark.skipif(not HEIF_SUPPORTED, reason="pillow-heif not installed")
def test_sniff_mime_recognises_heic() -> None:
    assert sniff_mime(encode(solid((1, 2, 3)), "HEIF")) == "image/heic"


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"hello",
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"BM\x00\x00",
        b"%PDF-1.7",
        b"RIFF\x00\x00\x00\x00WAVE",
        b"\x89PN",
    ],
)
def test_sniff_mime_refuses_non_images(raw: bytes) -> None:
    assert sniff_mime(raw) is None


# ---------------------------------------------------------------- the happy paths


@pytest.mark.parametrize(
    ("fmt", "params", "out_mime"),
    [
        ("JPEG", {"quality": 95}, "image/jpeg"),
        ("PNG", {}, "image/png"),  # lossless source stays lossless
        ("WEBP", {"quality": 90}, "image/jpeg"),
        ("WEBP", {"lossless": True}, "image/png"),
        ("GIF", {}, "image/png"),
        ("AVIF", {"quality": 90}, "image/jpeg"),
    ],
)
def test_formats_are_decoded_and_reencoded(fmt: str, params: dict[str, object], out_mime: str) -> None:
    raw = encode(solid((200, 30, 40)), fmt, **params)
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    assert prepared.mime == out_mime
    assert (prepared.width, prepared.height) == (64, 48)
    img = decoded(prepared)
    assert img.format == out_mime.split("/")[1].upper()
    assert all(
        abs(a - b) <= 12 for a, b in zip(img.convert("RGB").getpixel((10, 10)), (200, 30, 40), strict=False)
    )


@pytest.mark.skipif(not HEIF_SUPPORTED, reason="pillow-heif not installed")
def test_heic_is_accepted() -> None:
    prepared = prepare_image(encode(solid((10, 200, 10)), "HEIF"), max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    assert prepared.mime == "image/jpeg"
    assert (prepared.width, prepared.height) == (64, 48)


def test_original_facts_are_kept() -> None:
    raw = encode(solid((1, 2, 3), (300, 200)), "PNG")
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=10_000)
    assert prepared.original_sha256 == hashlib.sha256(raw).hexdigest()
    assert prepared.original_size == len(raw)
    assert (prepared.original_width, prepared.original_height) == (300, 200)
    assert prepared.width * prepared.height <= 10_000


def test_data_url_round_trips() -> None:
    prepared = prepare_image(encode(solid((9, 9, 9)), "PNG"), max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    prefix = "data:image/png;base64,"
    url = prepared.data_url()
    assert url.startswith(prefix)
    assert base64.b64decode(url[len(prefix) :]) == prepared.data


def test_thumbnail_is_small_webp() -> None:
    prepared = prepare_image(
        encode(solid((9, 90, 9), (1200, 300)), "JPEG"), max_bytes=MAX_IMAGE_BYTES, max_pixels=None
    )
    thumb = Image.open(io.BytesIO(prepared.thumbnail))
    assert thumb.format == "WEBP" and prepared.thumbnail_mime == "image/webp"
    assert thumb.width <= THUMBNAIL_SIZE[0] and thumb.height <= THUMBNAIL_SIZE[1]
    assert thumb.width == THUMBNAIL_SIZE[0]  # aspect ratio kept: the long side fills the box
    assert len(prepared.thumbnail) < len(prepared.data)


# ---------------------------------------------------------------- orientation and metadata


def quadrant_image() -> Image.Image:
    """Red top-left quadrant on blue, 40x20: any rotation or flip moves the red block somewhere else."""
    img = solid((0, 0, 255), (40, 20))
    img.paste((255, 0, 0), (0, 0, 20, 10))
    return img


def is_red(pixel: tuple[int, ...]) -> bool:
    return pixel[0] > 180 and pixel[2] < 80


@pytest.mark.parametrize(
    ("orientation", "size", "red_at"),
    [
        (1, (40, 20), (2, 2)),  # as stored
        (3, (40, 20), (37, 17)),  # rotated 180: red bottom-right
        (6, (20, 40), (17, 2)),  # rotate 90 clockwise to view: red top-right
        (8, (20, 40), (2, 37)),  # rotate 90 counter-clockwise: red bottom-left
        (2, (40, 20), (37, 2)),  # mirrored: red top-right
    ],
)
def test_exif_orientation_is_applied(
    orientation: int, size: tuple[int, int], red_at: tuple[int, int]
) -> None:
    raw = jpeg_with_exif(quadrant_image(), t274=orientation)
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    img = decoded(prepared)
    assert img.size == size == (prepared.width, prepared.height)
    assert (prepared.original_width, prepared.original_height) == size
    assert is_red(img.getpixel(red_at))
    assert img.getexif().get(274) is None  # no orientation left to apply twice


def test_orientation_applies_after_downscale_too() -> None:
    raw = jpeg_with_exif(quadrant_image().resize((400, 200)), t274=6)
    img = decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=5_000))
    assert img.height > img.width
    assert is_red(img.getpixel((img.width - 3, 3)))


def test_all_metadata_is_stripped_from_jpeg() -> None:
    exif = Image.Exif()
    exif[0x010F] = "SECRET-MAKER"  # Make
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0)}  # GPS IFD
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">SECRET-XMP</x:xmpmeta>'
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    raw = encode(solid((120, 60, 30)), "JPEG", exif=exif, xmp=xmp, icc_profile=icc, comment=b"SECRET-COMMENT")
    assert b"SECRET-MAKER" in raw and b"SECRET-XMP" in raw and b"SECRET-COMMENT" in raw
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    for marker in (b"SECRET", b"Exif\x00", b"http://ns.adobe.com", b"ICC_PROFILE", b"xmpmeta"):
        assert marker not in prepared.data
        assert marker not in prepared.thumbnail
    img = decoded(prepared)
    assert not img.getexif() and "icc_profile" not in img.info and "comment" not in img.info


def test_all_metadata_is_stripped_from_png() -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "SECRET-TEXT")
    info.add_text("Author", "SECRET-ZTXT", zip=True)
    info.add_itxt("XML:com.adobe.xmp", "SECRET-ITXT")
    exif = Image.Exif()
    exif[0x010F] = "SECRET-EXIF"
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    raw = encode(solid((1, 2, 3)), "PNG", pnginfo=info, exif=exif, icc_profile=icc)
    assert b"iCCP" in raw
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    for marker in (b"SECRET", b"tEXt", b"zTXt", b"iTXt", b"eXIf", b"iCCP"):
        assert marker not in prepared.data
    assert decoded(prepared).info == {}


def test_broken_icc_profile_does_not_refuse_the_pixels() -> None:
    raw = encode(solid((50, 100, 150)), "PNG", icc_profile=b"not a real profile" * 10)
    img = decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None))
    assert "icc_profile" not in img.info
    assert img.getpixel((1, 1)) == (50, 100, 150)


# ---------------------------------------------------------------- modes, budgets, options


def test_downscale_keeps_aspect_ratio_within_budget() -> None:
    raw = encode(solid((5, 5, 5), (4000, 1000)), "PNG")
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=1_000_000)
    assert prepared.width * prepared.height <= 1_000_000
    assert prepared.width * prepared.height > 990_000
    assert abs(prepared.width / prepared.height - 4.0) < 0.01


def test_small_images_are_never_upscaled() -> None:
    prepared = prepare_image(
        encode(solid((5, 5, 5), (30, 20)), "PNG"), max_bytes=MAX_IMAGE_BYTES, max_pixels=KIMI_MAX_IMAGE_PIXELS
    )
    assert (prepared.width, prepared.height) == (30, 20)


def test_large_jpeg_uses_the_budget_without_undershooting() -> None:
    noise = np.random.default_rng(0).integers(0, 255, (750, 1000, 3), dtype=np.uint8)
    raw = encode(Image.fromarray(noise).resize((4000, 3000)), "JPEG", quality=80)
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=1_000_000)
    assert 1_000_000 * DRAFT_MIN_FRACTION <= prepared.width * prepared.height <= 1_000_000
    assert abs(prepared.width / prepared.height - 4 / 3) < 0.01
    assert prepared.mime == "image/jpeg"


@pytest.mark.parametrize(
    ("img", "fmt", "out_mode"),
    [
        (solid((10, 20, 30, 128), mode="RGBA"), "PNG", "RGBA"),
        (solid((10, 20, 30, 128), mode="RGBA"), "WEBP", "RGBA"),
        (solid((128,), mode="L"), "PNG", "RGB"),
        (solid((128,), mode="L"), "JPEG", "RGB"),
        (solid((0, 0, 0, 0), mode="CMYK"), "JPEG", "RGB"),
        (solid((1,), mode="1"), "PNG", "RGB"),
    ],
)
def test_colour_modes_become_rgb_or_rgba(img: Image.Image, fmt: str, out_mode: str) -> None:
    out = decoded(prepare_image(encode(img, fmt), max_bytes=MAX_IMAGE_BYTES, max_pixels=None))
    assert out.mode == out_mode


def test_cmyk_colours_survive() -> None:
    raw = encode(solid((0, 255, 255, 0), mode="CMYK"), "JPEG", quality=95)  # pure red in CMYK
    assert is_red(decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)).getpixel((5, 5)))


def test_transparent_palette_gif_keeps_transparency() -> None:
    img = solid((0,), mode="P")
    img.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
    img.paste(1, (0, 0, 10, 10))
    raw = encode(img, "GIF", transparency=1)
    out = decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None))
    assert out.mode == "RGBA"
    assert out.getpixel((2, 2))[3] == 0 and out.getpixel((30, 30))[3] == 255


def test_sixteen_bit_greyscale_is_scaled_not_clipped() -> None:
    ramp = np.tile(np.linspace(0, 65535, 256, dtype=np.uint16), (16, 1))
    raw = encode(Image.fromarray(ramp), "PNG")
    out = np.asarray(decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)).convert("L"))
    assert out[0, 0] < 5 and out[0, 128] in range(120, 136) and out[0, 255] > 250


def test_clahe_is_off_by_default_and_lifts_contrast_when_asked() -> None:
    rng = np.random.default_rng(1)
    flat = (100 + rng.integers(0, 12, (128, 128))).astype(np.uint8)
    raw = encode(Image.fromarray(np.stack([flat] * 3, axis=-1)), "PNG")
    plain = np.asarray(
        decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)).convert("L"), dtype=np.float64
    )
    lifted = np.asarray(
        decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None, clahe=True)).convert("L"),
        dtype=np.float64,
    )
    assert np.array_equal(plain, flat)
    assert lifted.std() > 1.5 * plain.std()


def test_animated_gif_gives_first_frame() -> None:
    frames = [solid(c) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    raw = encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    assert Image.open(io.BytesIO(raw)).n_frames == 3
    assert is_red(
        decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None))
        .convert("RGB")
        .getpixel((5, 5))
    )


def test_animated_webp_gives_first_frame() -> None:
    frames = [solid(c) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    raw = encode(frames[0], "WEBP", save_all=True, append_images=frames[1:], duration=100, lossless=True)
    assert Image.open(io.BytesIO(raw)).n_frames == 3
    assert is_red(
        decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None))
        .convert("RGB")
        .getpixel((5, 5))
    )


# ---------------------------------------------------------------- hostile and broken input

PNG = encode(solid((1, 2, 3), (64, 64)), "PNG")
JPEG = encode(Image.fromarray(np.random.default_rng(2).integers(0, 255, (64, 64, 3), dtype=np.uint8)), "JPEG")


def jpeg_declaring(width: int, height: int) -> bytes:
    """A real JPEG whose frame header (SOF0) is patched to claim huge dimensions."""
    sof = JPEG.index(b"\xff\xc0")
    return JPEG[: sof + 5] + struct.pack(">HH", height, width) + JPEG[sof + 9 :]


def gif_declaring(width: int, height: int) -> bytes:
    """A real GIF whose screen and frame descriptors are patched to claim huge dimensions."""
    raw = bytearray(encode(solid((1, 2, 3)), "GIF"))
    raw[6:10] = struct.pack("<HH", width, height)
    frame = raw.index(b"\x2c\x00\x00\x00\x00")  # image descriptor at offset 0,0
    raw[frame + 5 : frame + 9] = struct.pack("<HH", width, height)
    return bytes(raw)


BAD_CORPUS: dict[str, tuple[bytes, str]] = {
    "zero bytes": (b"", "empty_image"),
    "plain text named .png": (b"hello, this is not an image\n" * 4, "unsupported_image"),
    "svg": (
        b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        "unsupported_image",
    ),
    "html named .jpg": (b"<!DOCTYPE html><html><img src=x onerror=alert(1)></html>", "unsupported_image"),
    "pdf": (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "unsupported_image"),
    "bmp": (encode(solid((1, 2, 3)), "BMP"), "unsupported_image"),
    "tiff": (encode(solid((1, 2, 3)), "TIFF"), "unsupported_image"),
    "zip": (b"PK\x03\x04" + b"\x00" * 40, "unsupported_image"),
    "png magic only": (b"\x89PNG\r\n\x1a\n", "broken_image"),
    "truncated png": (PNG[: len(PNG) // 2], "broken_image"),
    "truncated jpeg": (JPEG[: len(JPEG) // 2], "broken_image"),
    "png with bad crc": (PNG[:29] + b"\x00\x00\x00\x00" + PNG[33:], "broken_image"),
    "jpeg magic then garbage": (b"\xff\xd8\xff" + b"\x13" * 200, "broken_image"),
    "gif header only": (b"GIF89a\x10\x00\x10\x00", "broken_image"),
    "png bomb 100000x100000": (png_declaring(100_000, 100_000), "image_too_large"),
    "png bomb just over the cap": (png_declaring(8_001, 8_000), "image_too_large"),
    "jpeg bomb 65000x65000": (jpeg_declaring(65_000, 65_000), "image_too_large"),
    "gif bomb 65535x65535": (gif_declaring(65_535, 65_535), "image_too_large"),
    "strip 1x100000": (png_declaring(1, 100_000), "image_dimensions"),
    "strip 20000x10": (encode(solid((1, 2, 3), (20_000, 10)), "PNG"), "image_dimensions"),
}


@pytest.mark.parametrize("name", list(BAD_CORPUS))
def test_bad_corpus_gives_clear_errors(name: str) -> None:
    raw, code = BAD_CORPUS[name]
    with pytest.raises(ImageError) as caught:
        prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=KIMI_MAX_IMAGE_PIXELS)
    assert_clean_error(caught.value, code)


def test_svg_error_names_the_format() -> None:
    with pytest.raises(ImageError, match="SVG"):
        prepare_image(BAD_CORPUS["svg"][0], max_bytes=MAX_IMAGE_BYTES, max_pixels=None)


def test_byte_limit_is_checked_before_decoding() -> None:
    with pytest.raises(ImageError) as caught:
        prepare_image(PNG, max_pixels=None, max_bytes=len(PNG) - 1)
    assert_clean_error(caught.value, "image_too_large")
    assert prepare_image(PNG, max_pixels=None, max_bytes=len(PNG)).width == 64


def test_source_pixel_cap_matches_constant() -> None:
    assert 8_001 * 8_000 > MAX_SOURCE_PIXELS >= 8_000 * 8_000


def test_png_with_zip_appended_keeps_pixels_only() -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("evil.html", "<script>alert('polyglot')</script>")
    raw = PNG + archive.getvalue()
    assert zipfile.is_zipfile(io.BytesIO(raw))  # really a polyglot: valid PNG and valid ZIP
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    assert b"PK\x03\x04" not in prepared.data and b"polyglot" not in prepared.data
    assert not zipfile.is_zipfile(io.BytesIO(prepared.data))
    assert prepared.original_sha256 == hashlib.sha256(raw).hexdigest()


def test_jpeg_with_script_appended_keeps_pixels_only() -> None:
    raw = JPEG + b"<script>alert('polyglot')</script>"
    prepared = prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    assert b"<script" not in prepared.data
    assert prepared.data.endswith(b"\xff\xd9")


def test_png_with_html_text_chunk_is_stripped() -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Description", "<html><script>alert(1)</script></html>")
    prepared = prepare_image(
        encode(solid((1, 2, 3)), "PNG", pnginfo=info), max_bytes=MAX_IMAGE_BYTES, max_pixels=None
    )
    assert b"<script" not in prepared.data


@pytest.mark.parametrize(
    "raw", [PNG, JPEG, encode(solid((9, 8, 7)), "GIF"), encode(solid((9, 8, 7)), "WEBP")]
)
def test_every_truncation_is_a_clean_error_or_a_valid_image(raw: bytes) -> None:
    for cut in range(0, len(raw), max(1, len(raw) // 60)):
        try:
            prepared = prepare_image(raw[:cut], max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
        except ImageError as exc:
            assert exc.code in {"empty_image", "unsupported_image", "broken_image"}
        else:
            assert decoded(prepared).size == (prepared.width, prepared.height)


@settings(max_examples=150, deadline=None)
@given(
    magic=st.sampled_from(
        [b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"RIFF\x10\x00\x00\x00WEBP", b""]
    ),
    body=st.binary(max_size=400),
)
def test_fuzzed_bytes_never_crash(magic: bytes, body: bytes) -> None:
    try:
        prepare_image(magic + body, max_bytes=MAX_IMAGE_BYTES, max_pixels=KIMI_MAX_IMAGE_PIXELS)
    except ImageError as exc:
        assert exc.code in {
            "empty_image",
            "unsupported_image",
            "broken_image",
            "image_too_large",
            "image_dimensions",
        }


@settings(max_examples=100, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(0, len(PNG) - 1), st.integers(0, 255)), min_size=1, max_size=6))
def test_corrupted_png_never_crashes(flips: list[tuple[int, int]]) -> None:
    raw = bytearray(PNG)
    for index, value in flips:
        raw[index] = value
    try:
        prepared = prepare_image(bytes(raw), max_bytes=MAX_IMAGE_BYTES, max_pixels=None)
    except ImageError:
        return
    assert prepared.width * prepared.height > 0


def test_bombs_are_refused_even_if_pillows_global_guard_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    # Other libraries sometimes set Image.MAX_IMAGE_PIXELS = None; our own cap must not depend on it.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", None)
    for raw in (
        png_declaring(100_000, 100_000),
        jpeg_declaring(65_000, 65_000),
        gif_declaring(65_535, 65_535),
    ):
        with pytest.raises(ImageError) as caught:
            prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=KIMI_MAX_IMAGE_PIXELS)
        assert caught.value.code == "image_too_large"


@pytest.mark.skipif(not HEIF_SUPPORTED, reason="pillow-heif not installed")
def test_heic_orientation_is_applied_once() -> None:
    exif = Image.Exif()
    exif[274] = 6
    raw = encode(quadrant_image(), "HEIF", exif=exif.tobytes(), quality=95)
    img = decoded(prepare_image(raw, max_bytes=MAX_IMAGE_BYTES, max_pixels=None))
    assert img.size == (20, 40)
    assert is_red(img.getpixel((17, 2))) and not is_red(img.getpixel((2, 2)))
