from __future__ import annotations

import cv2
import numpy as np

from webapp.media.describe import describe_image


def encoded(bgr: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", bgr)
    assert ok
    return data.tobytes()


def qr_picture(text: str) -> bytes:
    code = cv2.QRCodeEncoder.create().encode(text)
    code = cv2.resize(code, (code.shape[1] * 8, code.shape[0] * 8), interpolation=cv2.INTER_NEAREST)
    code = cv2.copyMakeBorder(code, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    return encoded(cv2.cvtColor(code, cv2.COLOR_GRAY2BGR))


def test_size_shape_and_dominant_colours() -> None:
    picture = np.zeros((200, 400, 3), np.uint8)
    picture[:, :300] = (200, 60, 30)  # BGR: mostly blue
    picture[:, 300:] = (255, 255, 255)
    description = describe_image(encoded(picture), "image 1")
    assert description.text == "[image 1: 400x200 px, landscape; mostly blue and white]"
    assert description.qr_texts == ()


def test_qr_code_text_is_read() -> None:
    description = describe_image(qr_picture("https://evil.test/pay"))
    assert description.qr_texts == ("https://evil.test/pay",)
    assert 'a QR code reading "https://evil.test/pay"' in description.text


def test_unreadable_bytes_are_said_plainly() -> None:
    assert describe_image(b"not an image", "image 2").text == "[image 2: could not be read]"
