"""Low-severity side doors (issue 14, finding 8), over real HTTP: text that cannot be encoded, resent history
without a size cap, owner ids a browser chooses, Gradio routes without a login check.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, live_app, module_live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream
from tests.web.test_auth import write_auth_file
from webapp.turn.inputs import MAX_HISTORY_MESSAGES
from webapp.web.app import browser_state_secret
from webapp.web.ownership import COOKIE, OwnerIds

DAY = 24 * 3600.0

upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with module_live_app(tmp_path_factory, upstream, "edges") as live:
        yield live


def post_raw(client, body: str, session_id: str | None = None):
    headers = {"Content-Type": "application/json", **({"X-Session-Id": session_id} if session_id else {})}
    return client.post("/v1/chat/completions", content=body, headers=headers)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("where", ["message", "history"])
def test_a_lone_surrogate_is_a_clear_400_and_the_message_is_kept(
    app: LiveApp, stream: bool, where: str
) -> None:
    messages = [{"role": "user", "content": "hi \\ud800 there"}]
    if where == "history":
        messages = [{"role": "user", "content": "old \\udfff"}, {"role": "assistant", "content": "ok"}]
        messages.append({"role": "user", "content": "hi there"})
    body = json.dumps({"model": "any", "stream": stream, "messages": messages}).replace("\\\\u", "\\u")
    with app.client() as client:
        response = post_raw(client, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    session_id = response.headers["x-session-id"]
    stored = app.service.store.messages(session_id)
    assert stored[-1].role == "user" and stored[-1].status == "error"
    assert stored[-1].content.startswith("hi ")  # kept, with U+FFFD where the surrogate was
    assert "\ufffd" in json.dumps([m.content for m in stored], ensure_ascii=False)


CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    "where, body",
    [
        # The attack pass (issue 14) found these gave a plain-text 500 and lost the message.
        (
            "system",
            {"messages": [{"role": "system", "content": "be \\ud800"}, {"role": "user", "content": "hi"}]},
        ),
        (
            "tool result",
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": None, "tool_calls": [CALL]},
                    {"role": "tool", "tool_call_id": "c1", "content": "x \\udc00"},
                ]
            },
        ),
        (
            "tool call arguments",
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{**CALL, "function": {"name": "f", "arguments": '{"a": "\\ud800"}'}}],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "x"},
                ]
            },
        ),
        ("stop", {"messages": [{"role": "user", "content": "hi"}], "stop": ["\\ud800"]}),
        (
            "tool definition",
            {
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "f", "description": "\\ud800"}}],
            },
        ),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_request_is_a_clear_400(app: LiveApp, where: str, body: dict) -> None:
    raw = json.dumps({"model": "any", **body}).replace("\\\\u", "\\u")
    with app.client() as client:
        response = post_raw(client, raw)
    assert response.status_code == 400, where
    assert response.json()["error"]["code"] in ("invalid_request", "invalid_text")


@pytest.mark.parametrize(
    "event, data",
    [
        ("on_submit", [{"text": "hi \ud800", "files": []}, None, "Instant"]),
        ("on_submit", [{"text": "hi", "files": []}, None, "Inst\udc00ant"]),  # a radio's value
        ("on_pick", ["\ud800", None]),  # the chat list, a dropdown: Gradio's refusal names the value
    ],
)
def test_a_lone_surrogate_in_a_ui_event_is_a_clear_400(
    app: LiveApp, upstream: ScriptedUpstream, event: str, data: list
) -> None:
    """The page never sends one. Gradio could not send back a refusal that names it: the event ended in its
    `unexpected_error` and the tab's event stream died (the UI's message was kept and reported before; the
    API still keeps it and answers 400)."""
    before = len(upstream.requests)
    with app.client() as client:
        queue = GradioQueue(client)
        queue.outputs(queue.fn_index("on_load"), [""])
        result = queue.run(queue.fn_index(event), data)
        after = queue.run(
            queue.fn_index("on_submit"), [{"text": "still here?", "files": []}, None, "Instant"]
        )
    assert result.join_status == 400 and "not valid Unicode" in result.join_body
    assert after.completed is not None and after.completed["success"]  # the tab goes on
    assert len(upstream.requests) == before + 1


def test_resent_history_has_a_size_cap(app: LiveApp, upstream: ScriptedUpstream) -> None:
    before = len(upstream.requests)
    chunk = "word " * 20_000  # 100,000 characters, the default message limit
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": chunk} for i in range(80)]  # 8 MB
    body = {"model": "any", "messages": [*history, {"role": "user", "content": "and now?"}]}
    with app.client() as client:
        response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 400 and response.json()["error"]["code"] == "history_too_long"
    assert len(upstream.requests) == before


def test_resent_history_has_a_cap_on_its_messages_too(app: LiveApp, upstream: ScriptedUpstream) -> None:
    """Short messages passed the character cap in any number, and each costs its storage and rail checks:
    20,000 of two words (0.8 MB) held the server for 110 s and its health check for 30 s."""
    before = len(upstream.requests)
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"hi {i}"}
        for i in range(MAX_HISTORY_MESSAGES + 2)
    ]
    body = {"model": "any", "messages": [*history, {"role": "user", "content": "and now?"}]}
    with app.client() as client:
        response = client.post("/v1/chat/completions", json=body)
        assert response.status_code == 400 and response.json()["error"]["code"] == "history_too_long"
        assert "messages" in response.json()["error"]["message"]
    assert len(upstream.requests) == before


@pytest.mark.parametrize(
    "forgery",
    [
        {"cookies": {COOKIE: "victim-id-learned-somehow"}},  # unsigned
        {"cookies": {COOKIE: "victim-id-learned-somehow.00000000000000000000000000000000"}},  # forged
        {"cookies": {COOKIE: "victim-id-learned-somehow."}},
        {"headers": {"x-railchat-browser": "victim-id-learned-somehow"}},  # only the server vouches
        {"headers": {"Cookie": f'{COOKIE}="victim-id-learned-somehow\\"; x'}},  # a malformed cookie
    ],
)
def test_a_browser_cannot_choose_its_owner_id(app: LiveApp, forgery: dict) -> None:
    store = app.service.store
    victim = "browser:victim-id-learned-somehow"
    session_id = store.create_session(owner=victim, client="ui", model="m", title="Victim's secret chat")
    store.add_message(session_id, role="user", content="my secret", mode="instant")
    with app.client(cookies=forgery.get("cookies"), headers=forgery.get("headers")) as client:
        queue = GradioQueue(client)
        loaded = queue.run(queue.fn_index("on_load"), [session_id])  # its id in the URL, too
        # (A cookie that never parses makes each request a new browser, whose tab no other request reaches.)
        assert "my secret" not in loaded.raw and "Victim's secret chat" not in loaded.raw
        for claimed in (victim, {"path": "x"}):  # data the old BrowserState input took: ignored now
            opened = queue.run(queue.fn_index("on_pick"), [session_id, {"owner": claimed}])
            assert "my secret" not in opened.raw


def test_a_signed_browser_id_finds_its_chats_again_after_a_restart(
    tmp_path, upstream: ScriptedUpstream, monkeypatch
) -> None:
    with live_app(tmp_path, upstream, monkeypatch) as first_run:
        with first_run.client() as client:
            tab = GradioQueue(client)
            tab.outputs(tab.fn_index("on_submit"), [{"text": "remember me", "files": []}, None, "Instant"])
            cookie = client.cookies.get(COOKIE)
            assert cookie
    with live_app(tmp_path, upstream, monkeypatch) as second_run:  # same data folder, same key
        with second_run.client(cookies={COOKIE: cookie}) as client:
            reloaded = GradioQueue(client)  # a reload: a new tab, the same cookie
            sessions = reloaded.outputs(reloaded.fn_index("on_load"), [""])[3]
            assert len(sessions["choices"]) == 1 and client.cookies.get(COOKIE) == cookie
        with second_run.client() as stranger:
            other = GradioQueue(stranger)
            assert other.outputs(other.fn_index("on_load"), [""])[3]["choices"] == []


def test_gradio_routes_without_a_login_check_need_one_under_an_auth_file(
    tmp_path, upstream, monkeypatch
) -> None:
    with live_app(tmp_path, upstream, monkeypatch, auth_file=write_auth_file(tmp_path)) as live:
        with live.client() as client:
            cancel = {"session_hash": "s", "fn_index": 1, "event_id": "e"}
            assert client.post("/gradio_api/cancel", json=cancel).status_code == 401
            assert client.post("/gradio_api/reset", json={"event_id": "e"}).status_code == 401
            assert client.get("/gradio_api/heartbeat/s").status_code == 401
            login = client.post("/login", data={"username": "alice", "password": "correct horse"})
            assert login.status_code == 200
            # past the login check: an event this tab never joined is not its to cancel (liveevents.py)
            signed_in = client.post("/gradio_api/cancel", json=cancel)
            assert signed_in.status_code == 404 and "No such event" in signed_in.text


@pytest.mark.parametrize(("age_days", "reaches_its_chats"), [(364, True), (366, False)])
def test_a_replayed_browser_id_past_its_lifetime_reaches_no_chats(
    app: LiveApp, age_days: int, reaches_its_chats: bool
) -> None:
    """Was: a signed id never expired on the server, so a cookie copied once opened its chats for ever."""
    secret = browser_state_secret(app.data_dir)
    issued_then = OwnerIds(secret, lifetime_s=10_000 * DAY, clock=lambda: time.time() - age_days * DAY)
    browser, cookie = issued_then.issue()
    session_id = app.service.store.create_session(
        owner=f"browser:{browser}", client="ui", model="m", title="Mine"
    )
    app.service.store.add_message(session_id, role="user", content="my old secret", mode="instant")
    with app.client() as replay:
        reissued = replay.get("/config", headers={"Cookie": f"{COOKIE}={cookie}"}).cookies.get(COOKIE)
    held = reissued or cookie  # what the browser holds from then on
    with app.client(headers={"Cookie": f"{COOKIE}={held}"}) as client:
        queue = GradioQueue(client)
        listed = queue.outputs(queue.fn_index("on_load"), [session_id])
    assert ("my old secret" in json.dumps(listed)) is reaches_its_chats
    assert (reissued is None) is reaches_its_chats  # an expired id is replaced by a fresh one
