"""The UI's chat operations, driven directly (no browser): how pipeline events and stored chats become
Chatbot messages, and that the chat shown always comes from the store."""

from __future__ import annotations

import re

from tests.support.chatview import copied, shown
from tests.support.scripted_upstream import Script
from tests.support.service import make_service
from webapp.guard.urlpolicy import UrlPolicy
from webapp.turn.events import ContextInfo
from webapp.web.ui import INSTANT, THINKING, ChatMarkdown, ChatUI, UIState, context_meter


async def turn(ui: ChatUI, text: str, state: UIState, mode: str = INSTANT, files: list[str] | None = None):
    return [view async for view in ui.turn(text, files or [], state, mode)]


def contents(history) -> str:
    return "\n".join(str(m["content"]) for m in history)


async def test_reasoning_panel_is_open_while_streaming_and_closed_with_duration(
    store, guard, upstream
) -> None:
    ui = ChatUI(make_service(store, guard, upstream, profile="kimi-k2.5"))
    upstream.push(Script(reasoning=["Step one. " * 30, "Step two. " * 30], answer=["Done."], delay_s=0.05))
    statuses = []
    async for view in ui.turn("Think about it", [], UIState(), THINKING):
        statuses += [m["metadata"]["status"] for m in view.history if m.get("metadata")]
    assert statuses[0] == "pending" and statuses[-1] == "done"
    thought = view.history[1]
    assert thought["metadata"]["title"].startswith("Thought for ")
    assert thought["content"].startswith("<p>Step one.")
    assert (view.history[2]["role"], shown(view.history[2])) == ("assistant", "<p>Done.</p>\n")
    assert copied(view.history[2]) == "Done."
    assert upstream.chat_bodies[0]["chat_template_kwargs"] == {"thinking": True}


async def test_a_streaming_message_gets_its_copy_source_once_settled(store, guard, upstream) -> None:
    """The hidden copy of the text doubles a message; a streaming one is resent whole for every word."""
    ui = ChatUI(make_service(store, guard, upstream, profile="kimi-k2.5"))
    upstream.push(Script(reasoning=["Step one. ", "Step two. "], answer=["Done ", "and ", "dusted."]))
    views = await turn(ui, "Think about it", UIState(), THINKING)
    streaming = [m for v in views[:-1] for m in v.history[1:]]
    assert any("Done" in m["content"] for m in streaming)  # the answer was streamed before it settled
    assert not any("copy-source" in m["content"] for m in streaming)
    thought, answer = views[-1].history[1:]
    assert (copied(thought), copied(answer)) == ("Step one. Step two. ", "Done and dusted.")
    assert copied(views[-1].history[0]) == "Think about it"  # the user's own message has it from the start


async def test_thinking_choice_is_ignored_when_the_model_cannot_think(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream, profile="smollm2-cpu"))
    await turn(ui, "Hi", UIState(), THINKING)
    assert "chat_template_kwargs" not in upstream.chat_bodies[0]


async def test_rail_block_is_a_notice_in_the_chat_and_its_host_is_no_link(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    views = await turn(ui, "open www.google.com", UIState())
    last = views[-1].history[-1]["content"]
    assert 'class="notice notice-rail"' in last and "www.google.com" in last
    assert "<a " not in contents(views[-1].history)


async def test_error_notice_when_the_model_server_is_down(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.stop()
    views = await turn(ui, "Hi", UIState())
    assert "notice-error" in views[-1].history[-1]["content"] and "unavailable" in contents(views[-1].history)


async def test_session_continues_across_turns_and_the_chat_comes_from_the_store(
    store, guard, upstream
) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    state = UIState()
    await turn(ui, "First", state)
    first_session = state.session_id
    views = await turn(ui, "Second", state)
    assert state.session_id == first_session
    assert [m.role for m in store.messages(first_session)] == ["user", "assistant", "user", "assistant"]
    assert "First" in contents(views[0].history)  # rebuilt from the store, not from the browser


async def test_a_non_image_file_is_refused_by_name_and_the_message_kept(
    store, guard, upstream, tmp_path
) -> None:
    fake = tmp_path / "holiday.png"
    fake.write_text("<html>not a picture</html>")
    ui = ChatUI(make_service(store, guard, upstream))
    state = UIState()
    views = await turn(ui, "look at this", state, files=[str(fake)])
    assert "holiday.png" in views[-1].history[-1]["content"]
    assert upstream.requests == []
    assert store.messages(state.session_id)[0].content == "look at this"


def test_context_meter_explains_the_answers_reserve() -> None:
    assert context_meter(ContextInfo(120, 4096, 0)) == "Context: 120 / 4,096 tokens"
    assert context_meter(ContextInfo(120, 4096, 0, at_most=True)) == "Context: at most 120 / 4,096 tokens"
    meter = context_meter(ContextInfo(120, 4096, 3, budget=3008))
    assert meter.startswith("Context: 120 / 3,008 tokens (the model's 4,096-token window less 1,088 kept")
    assert meter.endswith("3 earlier messages not sent")


def test_links_the_rails_would_block_are_plain_text() -> None:
    markdown = ChatMarkdown(UrlPolicy(["ok.example"]).allows)
    html = markdown.render(
        "[click here](https://evil.example.org/win) [fine](https://ok.example/a) www.google.com "
        "<https://evil.test/> ![x](https://evil.example/?q=secret) [me](/gradio_api/file=/etc/passwd) "
        "[js](javascript:alert(1)) <img src=//evil.shop/x> a@b.com https://ok.example/b"
    )
    assert html.count("<a ") == 2 and html.count('href="https://ok.example/') == 2
    assert "<img" not in html and "evil" not in html.split("<p>")[0]
    assert "[click here](https://evil.example.org/win)" in html


def test_a_code_fence_names_no_class_but_its_language() -> None:
    # "```a<TAB>mermaid" gave <code class="language-a\tmermaid">: the page's Mermaid ran over it (see markdown.py)
    markdown = ChatMarkdown(UrlPolicy([]).allows)
    for info in ("a\tmermaid", "a\fmermaid", 'x"mermaid', "a\u00a0mermaid", "x\\tmermaid"):
        html = markdown.render(f"```{info}\nflowchart LR\n```\n")
        classes = [c for attr in re.findall(r'class="([^"]*)"', html) for c in attr.split()]
        assert "mermaid" not in classes and all(
            re.fullmatch(r"[\w-]+|language-[\w+#.-]+", c) for c in classes
        )
    assert '<code class="language-python">' in markdown.render("```python title\nx\n```")


async def test_an_answer_cut_at_the_length_limit_says_so_live_and_when_reopened(
    store, guard, upstream
) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.push(
        Script(answer=["The three reasons are: fir"], finish_reason="length"), Script(answer=["Done."])
    )
    state = UIState(owner="browser:alice")
    cut = (await turn(ui, "Why?", state))[-1].history
    assert shown(cut[-2]) == "<p>The three reasons are: fir</p>\n"
    assert "notice-info" in cut[-1]["content"] and "reached its length limit" in cut[-1]["content"]
    whole = (await turn(ui, "continue", state))[-1].history
    assert "reached its length limit" not in whole[-1]["content"] and shown(whole[-1]) == "<p>Done.</p>\n"
    reopened = ui.resume(state.session_id, UIState(owner="browser:alice"))
    assert reopened is not None and contents(reopened).count("reached its length limit") == 1


async def test_resume_shows_refusals_not_blocked_text_and_only_to_the_owner(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    upstream.push(Script(answer=["ok"]), Script(answer=["see ![x](https://evil.example/a.png)"]))
    state = UIState(owner="browser:alice")
    await turn(ui, "First", state)
    await turn(ui, "Second", state)
    history = ui.resume(state.session_id, UIState(owner="browser:alice"))
    assert history is not None
    text = contents(history)
    assert "First" in text and "ok" in text
    assert "https://evil.example" not in text and "Sorry, I can&#x27;t help with that" in text
    assert ui.resume(state.session_id, UIState(owner="browser:mallory")) is None


async def test_sessions_are_listed_per_owner_searched_renamed_deleted_and_restored(
    store, guard, upstream
) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    alice, bob = UIState(owner="browser:alice"), UIState(owner="browser:bob")
    await turn(ui, "Alice's question", alice)
    await turn(ui, "Bob's question", bob)
    assert [label.split(" · ")[0] for label, _ in ui.session_choices("browser:alice")] == ["Alice's question"]
    assert ui.session_choices("browser:alice", "ALICE") and not ui.session_choices("browser:alice", "bob")
    assert ui.rename(alice, "  Holiday   plans ") and ui.title_of(alice) == "Holiday plans"
    assert not ui.rename(UIState(owner="browser:bob", session_id=alice.session_id), "mine now")
    session = alice.session_id
    assert ui.delete(alice) == session
    assert ui.session_choices("browser:alice") == []
    assert len(store.list_sessions(include_deleted=True)) == 2  # kept for audit
    assert not ui.undo_delete(UIState(owner="browser:bob"), session)
    assert ui.undo_delete(alice, session) and alice.session_id == session


async def test_retry_answers_the_stored_message_again_without_a_second_copy(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    state = UIState(owner="browser:alice")
    upstream.stop()
    await turn(ui, "Hello?", state)
    upstream.start()
    upstream.push(Script(answer=["Back again."]))
    reopened = UIState(owner="browser:alice", session_id=state.session_id)  # e.g. after a reload
    views = [v async for v in ui.retry(reopened, INSTANT)]
    assert [shown(m) for m in views[-1].history] == ["<p>Hello?</p>\n", "<p>Back again.</p>\n"]
    roles = [(m.role, m.status) for m in store.messages(state.session_id)]
    assert roles == [("user", "complete"), ("assistant", "error"), ("assistant", "complete")]
    assert upstream.chat_bodies[-1]["messages"][-1] == {"role": "user", "content": "Hello?"}


async def test_retry_with_nothing_sent_yet_says_so(store, guard, upstream) -> None:
    ui = ChatUI(make_service(store, guard, upstream))
    views = [v async for v in ui.retry(UIState(owner="browser:alice"), INSTANT)]
    assert "Nothing to retry yet" in views[-1].history[-1]["content"]
    assert store.list_sessions(include_deleted=True) == []


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
    history = views[-1].history
    assert any(
        "notice-info" in str(m["content"]) and "cannot see images" in str(m["content"]) for m in history
    )
    assert (history[-1]["role"], shown(history[-1])) == ("assistant", "<p>Hello there!</p>\n")
