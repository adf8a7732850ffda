from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from webapp.upstream.client import status_error
from webapp.upstream.sse import delta_batches
from webapp.upstream.wire import Delta, ImagesNotSupported, StreamResult, UpstreamError, UpstreamUnavailable


def event(delta: dict[str, object], finish: str | None = None) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"


BODY = (
    event({"content": "Grüße, "})
    + event({"reasoning": "hmm "})
    + event({"content": "世界 "})
    + event({}, "stop")
    + b'data: {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}\n\n'
    + b"data: [DONE]\n\n"
)


async def pieces(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def read(*parts: bytes) -> tuple[list[list[Delta]], StreamResult]:
    result = StreamResult()
    return [batch async for batch in delta_batches(pieces(*parts), result)], result


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, len(BODY)])
async def test_any_cut_of_the_body_gives_the_same_deltas_and_result(size: int) -> None:
    parts = [BODY[i : i + size] for i in range(0, len(BODY), size)]  # cuts inside UTF-8 sequences too
    batches, result = await read(*parts)
    deltas = [(d.kind, d.text) for batch in batches for d in batch]
    assert deltas == [("answer", "Grüße, "), ("reasoning", "hmm "), ("answer", "世界 ")]
    assert (result.finish_reason, result.prompt_tokens, result.completion_tokens) == ("stop", 7, 3)


async def test_what_arrived_in_one_piece_comes_out_as_one_batch() -> None:
    batches, _ = await read(event({"content": "a "}) + event({"content": "b "}), event({}, "stop"))
    assert [[d.text for d in batch] for batch in batches] == [["a ", "b "]]


async def test_crlf_lines_and_other_fields_are_read_like_plain_ones() -> None:
    body = b": keep-alive\r\n\r\nevent: message\r\n" + event({"content": "x "}).replace(b"\n", b"\r\n")
    batches, _ = await read(body, event({}, "stop"))
    assert [d.text for batch in batches for d in batch] == ["x "]


async def test_a_body_cut_in_the_middle_of_a_line_is_an_unfinished_reply() -> None:
    with pytest.raises(UpstreamError, match="before finishing"):
        await read(event({"content": "a "}), event({}, "stop")[:-12])


async def test_a_payload_that_is_not_json_is_an_upstream_error_not_a_crash() -> None:
    with pytest.raises(UpstreamError, match="cannot read"):
        await read(event({"content": "a "}), b"data: {not json\n\n")
    with pytest.raises(UpstreamError, match="cannot read"):
        await read(b"data: [1, 2]\n\n")


async def test_nothing_after_done_is_read() -> None:
    batches, result = await read(event({}, "stop") + b"data: [DONE]\n\n" + event({"content": "late "}))
    assert batches == [] and result.finish_reason == "stop"


@pytest.mark.parametrize(
    ("status", "body", "kind", "detail"),
    [
        (
            400,
            '{"object": "error", "message": "m is not a multimodal model"}',
            ImagesNotSupported,
            "multimodal",
        ),
        (
            400,
            '{"error": {"message": "This model\'s maximum context length is 4096"}}',
            UpstreamError,
            "4096",
        ),
        (503, "<html>bad gateway</html>", UpstreamUnavailable, "<html>bad gateway</html>"),
        (422, '{"error": "plain string"}', UpstreamError, "plain string"),
    ],
)
def test_a_refusal_is_classified_from_its_status_and_body(
    status: int, body: str, kind: type[UpstreamError], detail: str
) -> None:
    error = status_error(status, body)
    assert type(error) is kind and error.status == status and detail in error.detail
