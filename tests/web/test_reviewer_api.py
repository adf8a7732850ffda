"""The Reviewer API: every endpoint and filter, and who may read it (an access matrix with forged ids)."""

from __future__ import annotations

import csv
import io
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.support.review_data import LEAK, Seeded, seed
from webapp.store import Store
from webapp.web import reviewer_api
from webapp.web.auth import ApiAccess, AuthFile, hash_api_key, hash_password, new_api_key
from webapp.web.review_access import GradioLogin, ReviewAccess

KEYS = {name: new_api_key() for name in ("alice", "bob", "rita", "root")}
ROLES = {"alice": "chatter", "bob": "chatter", "rita": "reviewer", "root": "admin"}


_PASSWORD = hash_password("pw")


def auth_file() -> AuthFile:
    users = {
        name: {"role": ROLES[name], "password": _PASSWORD, "api_keys": [hash_api_key(KEYS[name])]}
        for name in KEYS
    }
    return AuthFile.from_mapping({"users": users})


@dataclass
class FakeGradio:
    """Stands in for the mounted Gradio app: its cookie id and login tokens."""

    cookie_id: str = "cid"
    tokens: dict[str, str] = field(default_factory=lambda: {"tok-alice": "alice", "tok-rita": "rita"})


def make_client(
    store: Store, *, auth: AuthFile | None, open_locally: bool = False, demo: bool = False
) -> TestClient:
    app = FastAPI()
    access = ReviewAccess(ApiAccess(auth, open_locally), demo=demo, login=GradioLogin(FakeGradio()))
    reviewer_api.install(app, store, access)
    return TestClient(app, base_url="http://127.0.0.1:7860")


@pytest.fixture
def seeded(store: Store) -> Seeded:
    return seed(store)


@pytest.fixture
def client(store: Store, seeded: Seeded) -> TestClient:
    return make_client(store, auth=auth_file())


def as_user(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}"}


REVIEWER = as_user("rita")


def routes(s: Seeded) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("GET", "/api/sessions", None),
        ("GET", f"/api/sessions/{s.leak}", None),
        ("GET", f"/api/sessions/{s.image}", None),  # bob's own session
        ("POST", f"/api/sessions/{s.leak}/annotations", {"message_id": None, "label": "x", "note": ""}),
        ("GET", "/api/export?format=jsonl", None),
        ("GET", "/api/export?format=csv&owner=user:bob", None),
        ("GET", f"/api/attachments/{s.image_sha}", None),
    ]


CALLERS: dict[str, tuple[dict[str, str], dict[str, str], int]] = {
    # who: (headers, cookies, expected status class)
    "anonymous": ({}, {}, 401),
    "chatter alice (key)": (as_user("alice"), {}, 403),
    "chatter bob (key)": (as_user("bob"), {}, 403),
    "chatter alice (UI login)": ({}, {"access-token-cid": "tok-alice"}, 403),
    "forged key": ({"Authorization": "Bearer rc-forged"}, {}, 401),
    "reviewer key as Basic": ({"Authorization": f"Basic {KEYS['rita']}"}, {}, 401),
    "forged login cookie": ({}, {"access-token-cid": "tok-forged"}, 401),
    "login cookie of another app": ({}, {"access-token-other": "tok-rita"}, 401),
    "chatter key + reviewer cookie": (as_user("alice"), {"access-token-cid": "tok-rita"}, 403),
    "reviewer (key)": (as_user("rita"), {}, 200),
    "reviewer (UI login)": ({}, {"access-token-unsecure-cid": "tok-rita"}, 200),
    "admin (key)": (as_user("root"), {}, 200),
}


@pytest.mark.parametrize("caller", list(CALLERS))
def test_access_matrix(store: Store, seeded: Seeded, caller: str) -> None:
    headers, cookies, expected = CALLERS[caller]
    client = make_client(store, auth=auth_file())
    client.cookies.update(cookies)
    for method, url, body in routes(seeded):
        response = client.request(method, url, headers=headers, json=body)
        status = 200 if response.status_code in (200, 201) else response.status_code
        assert status == expected, (caller, method, url, response.text[:200])
        if expected != 200:
            assert LEAK not in response.text and "sunny" not in response.text
            assert response.json()["error"]["code"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://attacker.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Content-Type": "text/plain; x=application/json"},
    ],
)
def test_a_reviewers_login_cookie_does_not_work_for_other_sites(
    store: Store, seeded: Seeded, headers: dict[str, str]
) -> None:
    client = make_client(store, auth=auth_file())
    client.cookies.update({"access-token-cid": "tok-rita"})
    url = f"/api/sessions/{seeded.leak}/annotations"
    response = client.post(url, content='{"label": "forged", "message_id": null}', headers=headers)
    assert response.status_code in (400, 403), headers
    assert client.get(f"/api/sessions/{seeded.leak}").json()["annotations"] == []
    same_site = client.post(
        url, json={"label": "mine", "message_id": None}, headers={"Sec-Fetch-Site": "same-origin"}
    )
    assert same_site.status_code == 201


def test_open_locally_only_for_local_tools(store: Store, seeded: Seeded) -> None:
    client = make_client(store, auth=None, open_locally=True)
    assert client.get("/api/sessions").status_code == 200
    for headers in (
        {"Host": "attacker.example"},  # DNS rebinding
        {"Origin": "https://attacker.example"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        response = client.get("/api/sessions", headers=headers)
        assert response.status_code == 403 and LEAK not in response.text, headers
    closed = make_client(store, auth=None, open_locally=False)
    assert closed.get("/api/sessions").status_code == 403


def test_demo_mode_has_no_reviewer_api(store: Store, seeded: Seeded) -> None:
    for auth, open_locally in ((None, True), (auth_file(), False)):
        client = make_client(store, auth=auth, open_locally=open_locally, demo=True)
        assert client.get("/api/sessions", headers=REVIEWER).status_code == 403


def listed(client: TestClient, query: str = "") -> set[str]:
    response = client.get(f"/api/sessions?limit=200&{query}", headers=REVIEWER)
    assert response.status_code == 200, response.text
    return {s["id"] for s in response.json()["sessions"]}


def test_every_filter_over_http(client: TestClient, seeded: Seeded) -> None:
    s = seeded
    cutoff = s.cutoff.isoformat().replace("+00:00", "Z")
    assert listed(client) == {s.weather, s.leak, s.image, s.demo, s.gone}
    assert listed(client, "owner=user:alice") == {s.weather, s.leak}
    assert listed(client, "client=demo") == {s.demo}
    assert listed(client, "status=blocked") == {s.leak, s.demo}
    assert listed(client, "rail=url_allowlist") == {s.leak}
    assert listed(client, "model=m2") == {s.image}
    assert listed(client, f"since={cutoff}") == {s.leak, s.image, s.demo, s.gone}
    assert listed(client, f"until={cutoff}") == {s.weather}
    assert listed(client, "q=sunny") == {s.weather}
    assert listed(client, "q=") == listed(client)


def test_list_shape_and_paging(client: TestClient, seeded: Seeded) -> None:
    first = client.get("/api/sessions?limit=3", headers=REVIEWER).json()
    assert len(first["sessions"]) == 3 and first["next_cursor"]
    second = client.get(f"/api/sessions?limit=3&cursor={first['next_cursor']}", headers=REVIEWER).json()
    assert len(second["sessions"]) == 2 and second["next_cursor"] is None
    leak = next(x for x in first["sessions"] + second["sessions"] if x["id"] == seeded.leak)
    assert set(leak) == {
        "id",
        "owner",
        "client",
        "title",
        "model",
        "created_at",
        "updated_at",
        "message_count",
        "statuses",
        "rails",
        "deleted",
    }
    assert leak["statuses"] == {"complete": 3, "blocked": 1} and leak["rails"] == ["url_allowlist"]


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=201", "limit=ten", "since=yesterday", "until=2026-13-01", "cursor=%21%21"]
)
def test_bad_parameters_are_400_with_a_message(client: TestClient, seeded: Seeded, query: str) -> None:
    response = client.get(f"/api/sessions?{query}", headers=REVIEWER)
    assert response.status_code == 400 and response.json()["error"]["message"]


def test_one_session_whole(client: TestClient, seeded: Seeded) -> None:
    body = client.get(f"/api/sessions/{seeded.leak}", headers=REVIEWER).json()
    assert body["chain"] == {"ok": True, "broken_at": None, "reason": None}
    assert body["session"]["owner"] == "user:alice"
    blocked = next(m for m in body["messages"] if m["id"] == seeded.blocked_answer)
    assert blocked["content"] == LEAK and blocked["status"] == "blocked"  # reviewers see the blocked text
    assert blocked["reasoning"] == "I will hide a link"
    assert blocked["rail_events"][0] | {"latency_ms": 0} == {
        "stage": "output",
        "rail": "url_allowlist",
        "decision": "block",
        "reason": "evil.example",
        "latency_ms": 0,
    }
    seen_id = body["messages"][2]["id"]
    assert blocked["context"] == {"message_ids": [seen_id], "tokens": 40, "dropped": 2}
    for key in (
        "id",
        "seq",
        "role",
        "mode",
        "model",
        "error",
        "created_at",
        "params",
        "tokens",
        "timings",
        "attachments",
        "annotations",
    ):
        assert key in blocked
    assert client.get("/api/sessions/nope", headers=REVIEWER).status_code == 404


def test_attachments_listed_and_served_nosniff(client: TestClient, seeded: Seeded) -> None:
    body = client.get(f"/api/sessions/{seeded.image}", headers=REVIEWER).json()
    attachment = body["messages"][0]["attachments"][0]
    assert attachment["sha256"] == seeded.image_sha and (attachment["width"], attachment["height"]) == (8, 8)
    image = client.get(attachment["url"], headers=REVIEWER)
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    assert image.headers["content-type"] == "image/png"
    assert image.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in image.headers["content-security-policy"]
    thumb = client.get(attachment["url"] + "?thumbnail=1", headers=REVIEWER)
    assert thumb.status_code == 200 and thumb.content != image.content
    assert client.get("/api/attachments/" + "0" * 64, headers=REVIEWER).status_code == 404
    assert client.get("/api/attachments/..%2f..%2fetc%2fpasswd", headers=REVIEWER).status_code in (400, 404)
    assert client.get("/api/attachments/ABC", headers=REVIEWER).status_code == 400


def test_a_stored_non_image_is_never_served_as_something_a_browser_runs(store: Store) -> None:
    response = reviewer_api.image_response(b"<script>alert(1)</script>", None)
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.headers["content-disposition"] == "attachment"


def test_annotations_post_and_come_back(client: TestClient, seeded: Seeded) -> None:
    url = f"/api/sessions/{seeded.leak}/annotations"
    made = client.post(
        url, headers=REVIEWER, json={"message_id": seeded.blocked_answer, "label": "exfil", "note": "ok"}
    )
    assert made.status_code == 201
    assert made.json() | {"id": 0, "created_at": ""} == {
        "id": 0,
        "message_id": seeded.blocked_answer,
        "author": "user:rita",
        "label": "exfil",
        "note": "ok",
        "created_at": "",
    }
    on_session = client.post(
        url, headers=REVIEWER, json={"message_id": None, "label": "reviewed", "note": ""}
    )
    assert on_session.status_code == 201
    body = client.get(f"/api/sessions/{seeded.leak}", headers=REVIEWER).json()
    blocked = next(m for m in body["messages"] if m["id"] == seeded.blocked_answer)
    assert [n["label"] for n in blocked["annotations"]] == ["exfil"]
    assert [n["label"] for n in body["annotations"]] == ["reviewed"]
    assert body["chain"]["ok"]


@pytest.mark.parametrize(
    "body, status",
    [
        ({"message_id": None, "label": ""}, 400),
        ({"message_id": None}, 400),
        ({"message_id": "x", "label": "a"}, 400),
        ({"message_id": None, "label": "a", "author": "user:root"}, 400),  # the author is who calls
        ({"message_id": 999999, "label": "a"}, 404),
    ],
)
def test_bad_annotations(client: TestClient, seeded: Seeded, body: dict[str, Any], status: int) -> None:
    response = client.post(f"/api/sessions/{seeded.leak}/annotations", headers=REVIEWER, json=body)
    assert response.status_code == status, response.text


def test_annotation_on_another_sessions_message_is_refused(client: TestClient, seeded: Seeded) -> None:
    url = f"/api/sessions/{seeded.weather}/annotations"
    response = client.post(url, headers=REVIEWER, json={"message_id": seeded.blocked_answer, "label": "a"})
    assert response.status_code == 404
    form = client.post(
        url,
        headers=REVIEWER,
        content="label=a",
    )
    assert form.status_code == 400


def test_export_jsonl_is_a_streamed_attachment_with_the_filters(client: TestClient, seeded: Seeded) -> None:
    response = client.get("/api/export?format=jsonl&status=blocked", headers=REVIEWER)
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith("attachment; filename=")
    rows = [json.loads(line) for line in response.text.splitlines()]
    assert {r["session_id"] for r in rows} == {seeded.leak, seeded.demo}
    assert any(r["content"] == LEAK for r in rows)
    assert client.get("/api/export?format=xml", headers=REVIEWER).status_code == 400


def test_export_csv_defuses_formulas(client: TestClient, store: Store, seeded: Seeded) -> None:
    session = store.create_session(owner="user:eve", client="ui", model="m1", title='=HYPERLINK("x")')
    store.add_message(session, role="user", content="@SUM(A1)")
    response = client.get("/api/export?format=csv&owner=user:eve", headers=REVIEWER)
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert response.headers["content-type"].startswith("text/csv")
    assert [(r["title"], r["content"]) for r in rows] == [('\'=HYPERLINK("x")', "'@SUM(A1)")]
    assert tuple(rows[0]) == reviewer_api.review_export.EXPORT_FIELDS


@pytest.mark.parametrize("text", ['\uff1dHYPERLINK("x")', "\uff0b1", "\uff0d1", "\uff20SUM(A1)", "\n=1+1"])
def test_export_csv_defuses_full_width_and_hidden_formulas(
    client: TestClient, store: Store, text: str
) -> None:
    session = store.create_session(owner="user:eve", client="ui", model="m1", title="t")
    store.add_message(session, role="user", content=text)
    response = client.get("/api/export?format=csv&owner=user:eve", headers=REVIEWER)
    assert [r["content"] for r in csv.DictReader(io.StringIO(response.text))] == ["'" + text]


def test_export_jsonl_keeps_one_row_per_line_whatever_the_text_holds(
    client: TestClient, store: Store
) -> None:
    forged = 'a\u2028{"session_id": "forged"}\u2029b\x85c'
    session = store.create_session(owner="user:eve", client="ui", model="m1", title=forged)
    store.add_message(session, role="user", content=forged)
    response = client.get("/api/export?format=jsonl&owner=user:eve", headers=REVIEWER)
    rows = [json.loads(line) for line in response.text.splitlines()]
    assert [(r["title"], r["content"]) for r in rows] == [(forged, forged)]


def test_every_read_is_logged_with_who_and_what(
    client: TestClient, seeded: Seeded, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="railchat.review")
    client.get("/api/sessions?q=secret&owner=user:alice", headers=REVIEWER)
    client.get(f"/api/sessions/{seeded.leak}", headers=REVIEWER)
    client.get(f"/api/attachments/{seeded.image_sha}", headers=REVIEWER)
    client.get("/api/export", headers=REVIEWER)
    client.get("/api/sessions", headers=as_user("alice"))  # refused: nothing read, nothing logged as read
    reads = [(r.reviewer, r.read) for r in caplog.records if hasattr(r, "read")]  # type: ignore[attr-defined]
    assert reads == [
        ("user:rita", "sessions"),
        ("user:rita", f"session:{seeded.leak}"),
        ("user:rita", f"attachment:{seeded.image_sha}"),
        ("user:rita", "export"),
    ]
    assert "secret" not in caplog.text  # the search text itself is not logged


def test_chatters_never_read_across_owners_through_v1(tmp_path: Path, service: Any, store: Store) -> None:
    from tests.support.service import api_app

    seeded = seed(store)
    path = tmp_path / "users.toml"
    lines = []
    for name in KEYS:
        lines += [f"[users.{name}]", f'role = "{ROLES[name]}"', f'api_keys = ["{hash_api_key(KEYS[name])}"]']
    path.write_text("\n".join(lines) + "\n")
    client = TestClient(api_app(tmp_path, service, auth_file=path), base_url="http://127.0.0.1:7860")
    body = {"messages": [{"role": "user", "content": "what did we say?"}]}
    for session in (seeded.weather, seeded.leak):  # alice's sessions
        for name in ("bob", "rita"):  # another chatter; a reviewer reads only under /api/
            response = client.post(
                "/v1/chat/completions", headers={**as_user(name), "X-Session-Id": session}, json=body
            )
            assert response.status_code in (400, 403, 404), (name, response.text)
            assert LEAK not in response.text and "sunny" not in response.text
    assert client.get("/api/sessions", headers=as_user("bob")).status_code == 403
    assert client.get("/api/sessions", headers=REVIEWER).status_code == 200


@pytest.mark.parametrize("caller", ["user:bob", "user:rita", "browser:forged", "api:local", "user:alice "])
def test_outside_api_nobody_opens_another_owners_chat(service: Any, store: Store, caller: str) -> None:
    seeded = seed(store)
    for session in (seeded.weather, seeded.leak):  # alice's
        assert service.sessions.owned(caller, session) is None
        assert service.sessions.transcript(caller, session) is None
        assert not service.sessions.delete(caller, session)
        assert session not in {s.id for s in service.sessions.recent(caller)}
    assert service.sessions.transcript("user:alice", seeded.leak) is not None
