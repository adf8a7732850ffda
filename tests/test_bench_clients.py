"""The load benchmark's Gradio client speaks the queue protocol as the page does, so its errors are the app's."""

import httpx

from bench.clients import GradioSubmit, gradio_turn
from tests.support.gradio_sessions import FakeGradioQueue

ANSWER = "Lisbon is lovely in spring."


def _chat(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": "q"}, {"role": "assistant", "content": text}]


async def test_a_turn_and_the_events_chained_after_it_share_one_session() -> None:
    queue = FakeGradioQueue(
        {
            1: [[None, _chat("Lisbon is")], [None, _chat(ANSWER)]],
            2: [[{"__type__": "update", "interactive": True}]],
            3: [[["chat 1"]]],
        }
    )
    submit = GradioSubmit("http://app", 1, 7, 1, (None, None), 0, then=((2, (None,)), (3, (None,))))
    async with httpx.AsyncClient(transport=queue.transport()) as client:
        turns = [await gradio_turn(client, submit, "q", ANSWER) for _ in range(3)]
    assert [t.error for t in turns] == [None, None, None]
    assert all(t.complete and t.first_s is not None for t in turns)
    assert queue.dropped == set()
