"""The Audit tab is not part of the page chatters, demo visitors or anonymous browsers get: not in their /config,
not in their queue, not reachable by its own path. Attacked over HTTP through the real Gradio queue."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.gradio_queue import GradioQueue
from tests.support.live_app import LiveApp, live_app, module_upstream
from tests.support.review_data import Seeded, seed
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.users import users_file
from webapp.store import review

USERS = {"alice": "chatter", "bob": "chatter", "rita": "reviewer", "root": "admin"}
# What only the audit may show: another owner's session, a blocked answer's stored text and its reasoning.
SECRETS = ("evil.example", "I will hide a link", "I will hurt you", "browser:visitor1", "Deleted chat")


upstream = module_upstream()


@pytest.fixture(scope="module")
def app(
    tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream
) -> Iterator[tuple[LiveApp, Seeded]]:
    folder = tmp_path_factory.mktemp("route")
    with (
        pytest.MonkeyPatch.context() as monkeypatch,
        live_app(folder, upstream, monkeypatch, auth_file=users_file(folder, USERS)) as live,
    ):
        yield live, seed(live.service.store)


@contextmanager
def signed_in(live: LiveApp, name: str | None) -> Iterator[httpx.Client]:
    with live.client() as client:
        if name is not None:
            response = client.post("/login", data={"username": name, "password": name + "-pw"})
            assert response.status_code == 200, response.text
        yield client


def audit_parts(config: dict[str, Any]) -> tuple[set[int], list[dict[str, Any]]]:
    """The Audit tab's components (the tab and everything after it in the layout) and the events touching them."""
    components = config["components"]
    tab = next((c["id"] for c in components if c.get("props", {}).get("elem_id") == "audit-tab"), None)
    ids = (
        set()
        if tab is None
        else {c["id"] for c in components if str(c.get("props", {}).get("elem_id", "")).startswith("audit")}
    )
    events = [
        d
        for d in config["dependencies"]
        if ids & {*d["inputs"], *d["outputs"], *(t[0] for t in d["targets"])}
    ]
    return ids, events


@pytest.mark.parametrize("name", ["alice", "bob"])
def test_a_chatters_page_has_no_audit_component_or_event(app: tuple[LiveApp, Seeded], name: str) -> None:
    live, _ = app
    with signed_in(live, name) as client:
        config = client.get("/config").json()
    ids, events = audit_parts(config)
    assert ids == set() and events == []
    text = json.dumps(config).lower()
    assert "audit" not in text  # no label, element id, handler name or tab of it
    assert not any("Audit" == c.get("props", {}).get("label") for c in config["components"])


@pytest.mark.parametrize("name", ["rita", "root"])
def test_a_reviewers_page_has_the_audit_tab_and_its_events(app: tuple[LiveApp, Seeded], name: str) -> None:
    live, _ = app
    with signed_in(live, name) as client:
        config = client.get("/config").json()
        queue = GradioQueue(client)
        search = next(d for d in queue.dependencies() if _targets(queue, d, "audit-search"))
        values = ["", "", "blocked", "url_allowlist", "", "", "", "hide a link"]
        rows = queue.outputs(search["id"], values)[0]
    ids, events = audit_parts(config)
    assert {"audit-tab", "audit-search", "audit-view", "audit-export"} <= _elem_ids(config, ids)
    assert len(events) >= 5  # search, more, select, note, export
    assert "I will hide a link" not in json.dumps(rows)  # the list names sessions; their text is one click on
    assert rows["data"] and rows["data"][0][-1] == app[1].leak


def test_anonymous_browsers_get_the_sign_in_page_only(app: tuple[LiveApp, Seeded]) -> None:
    live, _ = app
    with signed_in(live, None) as client:
        assert client.get("/config").status_code == 401
        for path in ("/audit/config", "/audit/", "/audit/gradio_api/info"):
            assert client.get(path).status_code == 404, path


# Sent byte for byte (http.client): httpx would tidy "//audit" and "/./" away before they left.
AUDIT_PATHS = [
    ("GET", "/audit/config"),
    ("GET", "/audit"),
    ("GET", "/audit/"),
    ("GET", "//audit/config"),
    ("GET", "/audit//config"),
    ("GET", "/audit/./config"),
    ("GET", "/audit%2Fconfig"),
    ("GET", "/audit/gradio_api/info"),
    ("GET", "/audit/gradio_api/openapi.json"),
    ("GET", "/audit/gradio_api/queue/data?session_hash=x"),
    ("POST", "/audit/gradio_api/queue/join"),
    ("POST", "/audit/gradio_api/run/predict"),
    ("POST", "/audit/login"),
]
CHAT_ROUTES = ["/gradio_api/info", "/gradio_api/openapi.json", "/api/sessions", "/api/export?format=jsonl"]


def raw_request(live: LiveApp, method: str, path: str, cookies: httpx.Cookies) -> tuple[int, str]:
    host, port = live.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
    body = json.dumps({"data": [], "fn_index": 0, "session_hash": "x"}) if method == "POST" else None
    headers = {"Cookie": cookie, "Content-Type": "application/json", "Host": f"{host}:{port}"}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    status, text = response.status, response.read().decode(errors="replace")
    connection.close()
    return status, text


@pytest.mark.parametrize(("method", "path"), AUDIT_PATHS)
def test_a_chatter_asking_for_the_audit_app_by_its_path_gets_404(
    app: tuple[LiveApp, Seeded], method: str, path: str
) -> None:
    live, _ = app
    with signed_in(live, "alice") as client:
        status, text = raw_request(live, method, path, client.cookies)
    assert status == 404, (path, status, text[:200])
    assert "audit-" not in text and not any(secret in text for secret in SECRETS)


@pytest.mark.parametrize("path", CHAT_ROUTES)
def test_a_chatter_reaches_no_audit_data_by_another_route(app: tuple[LiveApp, Seeded], path: str) -> None:
    live, _ = app
    with signed_in(live, "alice") as client:
        response = client.get(path)
    assert "audit" not in response.text.lower() and not any(secret in response.text for secret in SECRETS)


def test_forged_audit_events_from_a_chatter_reach_no_audit_handler(app: tuple[LiveApp, Seeded]) -> None:
    """Alice replays the reviewers' events by their fn_index (and ones past the end of her page) with payloads
    of her own choosing. An fn_index her own page lists runs that chat handler, as alice; any other is refused."""
    live, seeded = app
    with signed_in(live, "rita") as reviewer:
        _, events = audit_parts(GradioQueue(reviewer).config)
    assert len(events) >= 5
    forged = [*events, {"id": 10_000, "inputs": events[0]["inputs"]}, {"id": -1, "inputs": []}]
    leaked: list[tuple[int, str]] = []
    ran: set[int] = set()
    refused: set[int] = set()
    with signed_in(live, "alice") as client:
        queue = GradioQueue(client)
        own = {d["id"] for d in queue.dependencies()}
        for dep in forged:
            for data in _forgeries(dep, seeded):
                text, completed = _join_and_read(client, queue, dep["id"], data)
                (ran if completed else refused).add(dep["id"])
                leaked += [(dep["id"], s) for s in SECRETS if s in text]
                assert "Note saved" not in text and "Not allowed" not in text  # no audit handler answered
    assert leaked == []
    assert ran <= own and {10_000, -1} <= refused
    assert review.session_annotations(live.service.store, seeded.leak) == []  # nothing was written either


def _join_and_read(
    client: httpx.Client, queue: GradioQueue, fn_index: int, data: list[Any], event_data: Any = None
) -> tuple[str, bool]:
    body = {
        "data": data,
        "fn_index": fn_index,
        "session_hash": queue.session_hash,
        "trigger_id": None,
        "event_data": event_data,
    }
    join = client.post("/gradio_api/queue/join", json=body)
    text = join.text
    if join.status_code != 200:
        return text, False
    with queue.stream(timeout_s=20) as stream:
        for line in stream.iter_lines():
            text += line
            if '"process_completed"' in line or '"unexpected_error"' in line:
                break
    return text, '"process_completed"' in text


def _forgeries(dep: dict[str, Any], seeded: Seeded) -> list[list[Any]]:
    n = len(dep["inputs"])
    filters = ["", "", "blocked", "", "", "", "", "hide"]
    return [
        [None] * n,
        ([seeded.leak, "", "label", "note"] + [None] * n)[:n],
        ([[seeded.leak, seeded.demo]] + [None] * n)[:n],
        (filters + [None] * n)[:n],
        (filters + ["jsonl"] + [None] * n)[:n],
    ]


def _targets(queue: GradioQueue, dep: dict[str, Any], elem_id: str) -> bool:
    components = queue.components()
    return any(components[t[0]].get("props", {}).get("elem_id") == elem_id for t in dep["targets"])


def _elem_ids(config: dict[str, Any], ids: set[int]) -> set[str]:
    return {c["props"]["elem_id"] for c in config["components"] if c["id"] in ids}


def test_demo_visitors_get_no_audit_anywhere(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    with live_app(tmp_path, upstream, monkeypatch, demo=True) as live, live.client() as client:
        seed(live.service.store)
        config = client.get("/config").json()
        assert "audit" not in json.dumps(config).lower()
        for path in ("/audit/config", "/audit/gradio_api/info", "/api/sessions"):
            response = client.get(path)
            assert response.status_code in (403, 404), path
            assert not any(secret in response.text for secret in SECRETS)


def test_the_local_user_of_an_open_app_is_its_reviewer(
    tmp_path: Path, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    with live_app(tmp_path, upstream, monkeypatch) as live, live.client() as client:
        ids, events = audit_parts(client.get("/config").json())
    assert ids and events


def test_audit_handlers_refuse_chatters_whose_events_reach_them(
    app: tuple[LiveApp, Seeded], tmp_path: Path
) -> None:
    """Defence in depth: the audit page served to everyone (no route in front), alice sends its events through
    the real queue with forged payloads. Every handler refuses her; nothing is read or written."""
    import gradio as gr
    from fastapi import FastAPI

    from tests.support.threaded_server import ThreadedServer
    from webapp.web.app import ui_login
    from webapp.web.audit_ui import AuditTab
    from webapp.web.auth import ApiAccess, AuthFile
    from webapp.web.review_access import ReviewAccess
    from webapp.web.ui import ChatUI

    live, seeded = app
    access = ApiAccess(AuthFile.load(users_file(tmp_path, USERS)), False)
    page = ChatUI(live.service, extra_tabs=[AuditTab(live.service.store, ReviewAccess(access))]).build()
    server = ThreadedServer(gr.mount_gradio_app(FastAPI(), page, path="/", auth=ui_login(access))).start()
    try:
        client = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
        assert client.post("/login", data={"username": "alice", "password": "alice-pw"}).status_code == 200
        queue = GradioQueue(client)
        _, events = audit_parts(queue.config)
        answers: dict[int, list[str]] = {}
        for dep in events:
            for data in [_well_formed(queue, dep, seeded), *_forgeries(dep, seeded)]:
                text, _ = _join_and_read(
                    client, queue, dep["id"], data, event_data={"index": [0, 0], "value": ""}
                )
                assert not any(secret in text for secret in SECRETS), (dep["id"], data)
                answers.setdefault(dep["id"], []).append(text)
        client.close()
    finally:
        server.stop()
    refused = [i for i, texts in answers.items() if "Not allowed" in texts[0]]
    # "Load more" pages from a cursor kept server-side (a gr.State, never read from the payload): alice has none.
    unpaged = [i for i, texts in answers.items() if '"No more sessions."' in texts[0]]
    assert len(refused) >= 4 and len(refused) + len(unpaged) == len(events), answers
    assert review.session_annotations(live.service.store, seeded.leak) == []


def _well_formed(queue: GradioQueue, dep: dict[str, Any], seeded: Seeded) -> list[Any]:
    """Inputs Gradio's preprocessing accepts, so the handler itself runs and must refuse."""
    components = queue.components()
    values: list[Any] = []
    for component_id in dep["inputs"]:
        component = components[component_id]
        kind, props = component["type"], component.get("props", {})
        if kind == "state":
            default = props.get("value")
            values.append([seeded.leak] if isinstance(default, list) else seeded.leak)
        elif kind == "dataframe":
            values.append({"headers": ["id"], "data": [[seeded.leak]]})
        elif kind in ("dropdown", "radio"):
            choices = [c[1] if isinstance(c, list) else c for c in props.get("choices") or []]
            values.append(choices[-1] if choices else None)
        else:
            values.append("hide")
    return values


@pytest.mark.parametrize("where", ["audit-search", "audit-add"])
def test_a_lone_surrogate_in_an_audit_dropdown_is_a_clear_error(
    app: tuple[LiveApp, Seeded], where: str
) -> None:
    """Was: Gradio's refusal of the value named it and could not be encoded: `unexpected_error`, and the
    reviewer's event stream died. A value that is merely not a choice still gets Gradio's own clear refusal."""
    live, _ = app
    with signed_in(live, "rita") as client:
        queue = GradioQueue(client)
        dep = next(d for d in queue.dependencies() if _targets(queue, d, where))
        values = {
            "audit-search": ["", "{}", "", "", "", "", "", ""],
            "audit-add": ["", "{}", "label", "note"],
        }
        surrogate = queue.run(dep["id"], json.loads(json.dumps(values[where]).replace("{}", "\\ud800")))
        unknown = queue.run(dep["id"], [v.replace("{}", "no such choice") for v in values[where]])
    assert surrogate.join_status == 400 and "not valid Unicode" in surrogate.join_body
    assert unknown.completed is not None and not unknown.completed["success"]
    assert "not in the list of choices" in unknown.raw and "unexpected_error" not in unknown.raw
