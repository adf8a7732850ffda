"""The UI's chat handler, driven directly (no browser): how pipeline events become Chatbot messages."""

from __future__ import annotations

from tests.support.scripted_upstream import Script
from tests.support.service import make_service
from webapp.turn.events import ContextInfo, TurnDone
from webapp.web.ui import INSTANT, THINKING, ChatUI, UIState, context_meter, user_messages


async def turn(ui: ChatUI, text: str, state: UIState, mode: str = INSTANT, files: list[str] | None = None):
    return [view async for view in ui.turn(text, files or [], [], state, mode)]


async def test_reasoning_panel_is_open_while_streaming_and_closed_with_duration(
    store, guard, upstream
) -> None:
    ui = ChatUI(make_service(store, guard, upstream, profile="kimi-k2.5"))
    upstream.push(Script(reasoning=["Step one. " * 30, "Step two. " * 30], answer=["Done."], delay_s=0.05))
    statuses = []
    async for view in ui.turn("Think about it", [], [], UIState(), THINKING):
        statuses += [m["metadata"]["status"] for m in view.history if m.get("metadata")]
    assert statuses[0] == "pending" and statuses[-1] == "done"
    final = view.history
    thought = final[1]
    assert thought["metadata"]["status"] == "done"
    assert thought["metadata"]["title"].startswith("Thought for ")
    assert thought["content"].startswith("Step one.")
    assert final[2] == {"role": "assistant", "content": "Done."}
    assert upstream.chat_bodies[0]["chat_template_kwargs"] == {"thinking": True}


async def test_thinking_choice_is_ignored_when_the_model_cannot_think(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream, profile="smollm2-cpu"))
    await turn(ui, "Hi", UIState(), THINKING)
    assert "chat_template_kwargs" not in upstream.chat_bodies[0]


async def test_rail_block_shows_a_distinct_notice(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    views = await turn(ui, "open http://169.254.169.254/latest/meta-data", UIState())
    assert "notice-rail" in views[-1].notice
    assert views[-1].history[-1]["content"].startswith("🛡️")


async def test_error_notice_when_the_model_server_is_down(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.stop()
    views = await turn(ui, "Hi", UIState())
    assert "notice-error" in views[-1].notice and "unavailable" in views[-1].notice


async def test_session_continues_across_turns(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    state = UIState()
    await turn(ui, "First", state)
    first_session = state.session_id
    await turn(ui, "Second", state)
    assert state.session_id == first_session
    assert [m.role for m in store.messages(first_session)] == ["user", "assistant", "user", "assistant"]


async def test_a_non_image_file_is_refused_by_name_and_the_message_kept(
    store, guard, upstream, tmp_path
) -> None:
    fake = tmp_path / "holiday.png"
    fake.write_text("<html>not a picture</html>")
    ui = ChatUI(make_service(store, guard, upstream))
    state = UIState()
    views = await turn(ui, "look at this", state, files=[str(fake)])
    assert "holiday.png" in views[-1].notice
    assert upstream.requests == []
    assert store.messages(state.session_id)[0].content == "look at this"


def test_context_meter_mentions_dropped_messages() -> None:
    assert context_meter(ContextInfo(120, 4096, 0)) == "Context: 120 / 4,096 tokens"
    assert context_meter(ContextInfo(3900, 4096, 3)).endswith("3 earlier messages not sent")


def test_user_images_are_shown_as_files() -> None:
    assert user_messages("hi", ["/x/a.png"]) == [
        {"role": "user", "content": {"path": "/x/a.png"}},
        {"role": "user", "content": "hi"},
    ]


def test_done_event_type_is_exported() -> None:
    assert TurnDone("complete", 1).kind == "ok"


async def test_resume_shows_refusals_not_blocked_text_and_only_to_the_owner(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.push(Script(answer=["ok"]), Script(answer=["see ![x](https://evil.example/a.png)"]))
    state = UIState(owner="browser:alice")
    await turn(ui, "First", state)
    await turn(ui, "Second", state)
    history = ui.resume(state.session_id, UIState(owner="browser:alice"))
    text = str(history)
    assert "First" in text and "ok" in text
    assert "https://evil.example" not in text and "Sorry, I can't help with that" in text
    assert ui.resume(state.session_id, UIState(owner="browser:mallory")) == []


async def test_sessions_are_listed_per_owner_and_deleted_chats_disappear(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    alice, bob = UIState(owner="browser:alice"), UIState(owner="browser:bob")
    await turn(ui, "Alice's question", alice)
    await turn(ui, "Bob's question", bob)
    assert [label.split(" · ")[0] for label, _ in ui.session_choices("browser:alice")] == ["Alice's question"]
    assert ui.delete(alice)
    assert ui.session_choices("browser:alice") == []
    assert len(store.list_sessions(include_deleted=True)) == 2  # kept for audit


async def test_text_only_model_shows_an_info_notice_and_still_answers(
    store, guard, upstream, tmp_path
) -> None:
    import io

    from PIL import Image

    picture = tmp_path / "blue.png"
    buffer = io.BytesIO()
    Image.new("RGB", (40, 40), "blue").save(buffer, "PNG")
    picture.write_bytes(buffer.getvalue())
    ui = ChatUI(make_service(store, guard, upstream, profile="smollm2-cpu"))
    views = await turn(ui, "What is it?", UIState(), files=[str(picture)])
    assert "notice-info" in views[-1].notice and "cannot see images" in views[-1].notice
    assert views[-1].history[-1] == {"role": "assistant", "content": "Hello there!"}
