"""Gradio's side doors, attacked over HTTP through the real queue (/gradio_api/queue/join + SSE).

Every event of the app's own /config gets each of its inputs pointing at server files and URLs. Nothing may be
served back, copied into the upload folder, or fetched: an egress log (loopback proxy + refusing resolver)
records any attempt to reach another host, and never lets one leave the machine.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image

from tests.support.egress import EgressLog
from tests.support.gradio_queue import EventResult, GradioQueue, file_urls
from tests.support.live_app import LiveApp, live_app, module_upstream
from tests.support.scripted_upstream import ScriptedUpstream

CANARY = "railchat-canary-7f3a"


upstream = module_upstream()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream):
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("RAILCHAT_TEST_CANARY", CANARY)  # so /proc/self/environ holds a marker
        with live_app(tmp_path_factory.mktemp("doors"), upstream, monkeypatch) as live:
            yield live


@pytest.fixture
def egress(monkeypatch: pytest.MonkeyPatch):
    with EgressLog().install(monkeypatch) as log:
        yield log


def file_data(path: str) -> dict[str, Any]:
    return {"path": path, "meta": {"_type": "gradio.FileData"}}


def poisoned_inputs(queue: GradioQueue, dep: dict[str, Any], target: str) -> list[Any]:
    """The event's inputs, each file-capable one naming ``target``; the others hold ordinary values."""
    components = queue.components()
    values: list[Any] = []
    for component_id in dep["inputs"]:
        kind = components[component_id]["type"]
        if kind == "multimodaltextbox":
            values.append({"text": "look", "files": [file_data(target)]})
        elif kind == "chatbot":
            values.append([{"role": "user", "content": [{"type": "file", "file": file_data(target)}]}])
        elif kind == "radio":
            values.append("Instant")
        elif kind == "browserstate":
            values.append("")
        elif kind in ("dropdown", "state"):
            values.append(file_data(target) if kind == "dropdown" else None)
        else:
            values.append(file_data(target))
    return values


def served(app: LiveApp, result: EventResult) -> str:
    """Everything an attacker gets back from one event: the stream, and every file it links to."""
    with app.client() as client:
        return result.raw + "".join(
            client.get(url[url.index("/gradio_api") :]).text for url in file_urls(result.raw)
        )


def secrets_on_disk(app: LiveApp) -> dict[str, str]:
    """Server files worth stealing, each with a marker that must never reach the attacker."""
    key = app.data_dir / "browser-state.key"
    link_dir = app.upload_dir / ("0" * 64)
    link_dir.mkdir(parents=True, exist_ok=True)
    if not (link_dir / "key.png").is_symlink():
        (link_dir / "key.png").symlink_to(key)  # a symlink inside the upload folder still names the key
    return {
        "/etc/passwd": "root:x:0:0",
        str(app.data_dir / "railchat.db"): "SQLite format 3",
        str(key): key.read_text().strip(),
        "/proc/self/environ": CANARY,
        str(link_dir / "key.png"): key.read_text().strip(),
        str(app.upload_dir / ".." / "browser-state.key"): key.read_text().strip(),
    }


def test_no_event_input_reads_a_server_file(app: LiveApp) -> None:
    leaks = []
    with app.client() as client:
        queue = GradioQueue(client)
        for target, marker in secrets_on_disk(app).items():
            for dep in queue.dependencies():
                result = queue.run(dep["id"], poisoned_inputs(queue, dep, target))
                if marker in served(app, result):
                    leaks.append((dep["api_name"], target))
    assert leaks == []
    copies = [p for p in app.upload_dir.rglob("*") if p.is_file() and not p.is_symlink()]
    assert not any(b"SQLite format 3" in p.read_bytes() or b"root:x:0:0" in p.read_bytes() for p in copies)


def test_the_submit_payload_from_the_issue_is_refused(app: LiveApp) -> None:
    history = [{"role": "user", "content": [{"type": "file", "file": file_data("/etc/passwd")}]}]
    with app.client() as client:
        queue = GradioQueue(client)
        submit = queue.fn_index("on_submit")
        for data in (
            [
                {"text": "", "files": []},
                history,
                None,
                "browser:x",
                "Instant",
            ],  # the issue's payload, verbatim
            [{"text": "hi", "files": [file_data("/etc/passwd")]}, None, "Instant"],
            [{"text": "hi", "files": [{"path": "/etc/passwd"}]}, None, "Instant"],  # no meta tag either
        ):
            result = queue.run(submit, data)
            assert "root:x:0:0" not in served(app, result)
            assert result.join_status == 400 and "/etc/passwd" not in result.join_body


def test_file_route_serves_uploads_only_and_never_echoes_the_path(app: LiveApp) -> None:
    with app.client() as client:
        for target in ("/etc/passwd", str(app.data_dir / "railchat.db"), f"{app.upload_dir}/../railchat.db"):
            response = client.get(f"/gradio_api/file={target}")
            assert (
                response.status_code == 404
                and "railchat.db" not in response.text
                and "passwd" not in response.text
            )
        upload = app.upload(client, "pic.png", png_bytes())
        assert client.get(f"/gradio_api/file={upload['path']}").content == png_bytes()


def test_an_uploaded_image_still_reaches_the_model(app: LiveApp, upstream) -> None:
    with app.client() as client:
        queue = GradioQueue(client)
        upload = app.upload(client, "pic.png", png_bytes())
        result = queue.run(
            queue.fn_index("on_submit"), [{"text": "what is this?", "files": [upload]}, None, "Instant"]
        )
    assert result.completed is not None and result.completed["success"]
    parts = upstream.chat_bodies[-1]["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in parts)


@pytest.mark.parametrize(
    "route",
    [
        "/gradio_api/file=https://evil.test/x.png",
        "/gradio_api/file=http://evil.test/x.png",
        "/gradio_api/file=//evil.test/x.png",
        "/gradio_api/proxy=https://evil.test/x.png",
        "//gradio_api/file=https://evil.test/x.png",
    ],
)
def test_gradio_fetches_no_url_for_a_visitor(app: LiveApp, egress: EgressLog, route: str) -> None:
    with app.client() as client:
        response = client.get(route)
    assert response.status_code in (400, 404) and "evil.test" not in response.text
    assert egress.attempts == []


def test_no_event_input_makes_the_server_fetch_a_url(app: LiveApp, egress: EgressLog) -> None:
    with app.client() as client:
        queue = GradioQueue(client)
        for url in ("https://evil.test/x.png", "http://evil.test/x.png", "HTTPS://evil.test/x.png"):
            for dep in queue.dependencies():
                queue.run(dep["id"], poisoned_inputs(queue, dep, url))
    assert egress.attempts == []


def png_bytes(color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buffer, format="PNG")
    return buffer.getvalue()


def test_an_upload_is_usable_only_by_the_browser_that_made_it(app: LiveApp, upstream) -> None:
    """Gradio names an upload by its content's hash: a path learned from another visitor must not work."""
    with app.client() as alice, app.client() as mallory:
        upload = app.upload(alice, "alice.png", png_bytes(color=(1, 2, 3)))
        before = len(upstream.chat_bodies)
        thief = GradioQueue(mallory)
        submit = thief.fn_index("on_submit")
        for named in (upload, {"path": upload["path"]}):
            stolen = thief.run(submit, [{"text": "what is this?", "files": [named]}, None, "Instant"])
            assert stolen.join_status == 400 and upload["path"] not in stolen.join_body
        bare = thief.run(submit, [{"text": "what is this?", "files": [upload["path"]]}, None, "Instant"])
        assert bare.completed is not None and not bare.completed["success"]  # Gradio wants a FileData
        assert mallory.get(f"/gradio_api/file={upload['path']}").status_code == 404
        assert alice.get(f"/gradio_api/file={upload['path']}").content == png_bytes(color=(1, 2, 3))
        owner = GradioQueue(alice)
        mine = owner.run(
            owner.fn_index("on_submit"), [{"text": "and this?", "files": [upload]}, None, "Instant"]
        )
    assert len(upstream.chat_bodies) == before + 1  # only Alice's own turn reached the model
    assert mine.completed is not None and mine.completed["success"]


def test_an_upload_with_a_forged_browser_id_belongs_to_a_fresh_id(app: LiveApp) -> None:
    """A forged cookie is replaced (Set-Cookie) and the upload is bound to the new id, not the claimed one."""
    forged = {"Cookie": "railchat-visitor=someone-else.00000000000000000000000000000000"}
    with app.client() as client:
        response = client.post(
            "/gradio_api/upload",
            files={"files": ("f.png", png_bytes(color=(9, 9, 9)), "image/png")},
            headers=forged,
        )
        issued = response.cookies.get("railchat-visitor")
        path = response.json()[0]
        assert issued and not issued.startswith("someone-else")
        client.cookies.clear()
        assert client.get(f"/gradio_api/file={path}", headers=forged).status_code == 404
        owned = client.get(f"/gradio_api/file={path}", headers={"Cookie": f"railchat-visitor={issued}"})
        assert owned.status_code == 200


def test_a_handler_refuses_another_browsers_upload_too(app: LiveApp) -> None:
    """Defence in depth behind the middleware: ChatUI checks the uploader again."""
    import asyncio

    from webapp.web.ui import ChatUI, UIState
    from webapp.web.uploads import UploadLedger

    with app.client() as alice:
        upload = app.upload(alice, "a.png", png_bytes(color=(4, 5, 6)))
    # A ledger under another key (another app's secret): Alice's mark is not its mark.
    ui = ChatUI(app.service, uploads=UploadLedger(app.upload_dir, secret="not this app's secret"))

    async def views() -> list:
        turn = ui.browser_turn("hi", [upload["path"]], UIState(owner="browser:m"), "Instant")
        return [v async for v in turn]

    shown = asyncio.run(views())
    assert "Files must be uploaded through this page." in json.dumps(shown[-1].history)


@pytest.mark.parametrize(
    "method, route",
    [
        ("GET", "/gradio_api/dev/reload"),  # held a connection open, polling every 50 ms, for anyone
        ("POST", "/gradio_api/process_recording"),  # took a video and answered with it (ffmpeg if installed)
        ("POST", "/gradio_api/component_server"),
        ("GET", "/gradio_api/monitoring"),
        ("GET", "/gradio_api/profiling/traces"),
        ("GET", "/gradio_api/custom_component/x/client/y/z.js"),
        ("POST", "/gradio_api/vibe-edit"),
    ],
)
def test_gradio_routes_the_page_never_uses_are_closed(app: LiveApp, method: str, route: str) -> None:
    import httpx

    files = {"video": ("v.mp4", b"\x00" * 64, "video/mp4")} if "recording" in route else None
    with app.client() as client:  # a held-open stream would end in a read timeout, not a status
        response = client.request(method, route, files=files, timeout=httpx.Timeout(10.0))
    assert response.status_code == 404
