"""The streamed delta chunks are the typed OpenAI chunks, byte for byte, however they are built."""

import json

import pytest

from webapp.web.api.response import Completion

TEXTS = ["word ", "", 'quotes " and \\ back', "line\nbreak\ttab", "é ü 中文 🙂", "\x00 nul", "</script>"]


@pytest.mark.parametrize("field", ["content", "reasoning"])
def test_text_chunks_equal_the_typed_chunk(field):
    completion = Completion("m")
    for text in TEXTS:
        assert completion.text_chunk(field, text) == completion.chunk({field: text})
        body = json.loads(completion.text_chunk(field, text)[len("data: ") :])
        assert body["choices"][0]["delta"] == {field: text}
