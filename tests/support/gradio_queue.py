"""Drive a mounted Gradio app the way an attacker would: raw HTTP to /gradio_api/queue/join and its SSE stream.

Tests that prove an event input is refused must go through Gradio's real queue (preprocessing, file caching,
postprocessing), not call the handlers directly: the bugs live in what Gradio does around the handlers.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class EventResult:
    """What one queued event produced: the HTTP status of the join, and every SSE message until it completed."""

    join_status: int
    join_body: str
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def raw(self) -> str:
        return self.join_body + json.dumps(self.messages)

    @property
    def completed(self) -> dict[str, Any] | None:
        return next((m for m in self.messages if m.get("msg") == "process_completed"), None)


class GradioQueue:
    """A minimal Gradio 6 queue client over httpx: look up events in /config, join, read the SSE stream."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.config: dict[str, Any] = client.get("/config").json()
        # One browser tab: Gradio keeps per-tab state (gr.State, dropdown choices) under this hash.
        self.session_hash = secrets.token_hex(6)

    def components(self) -> dict[int, dict[str, Any]]:
        return {c["id"]: c for c in self.config["components"]}

    def dependencies(self) -> list[dict[str, Any]]:
        return list(self.config["dependencies"])

    def fn_index(self, api_name: str) -> int:
        for index, dep in enumerate(self.dependencies()):
            if dep.get("api_name") == api_name:
                return int(dep.get("id", index))
        raise KeyError(api_name)

    def join_turn(self, text: str) -> dict[str, Any]:
        """Send ``text`` as an Instant turn; the body its own tab's Stop would send (``/gradio_api/cancel``)."""
        submit = self.fn_index("on_submit")
        event_id = self.join(submit, [{"text": text, "files": []}, None, "Instant"]).json()["event_id"]
        return {"session_hash": self.session_hash, "fn_index": submit, "event_id": event_id}

    def join(self, fn_index: int, data: list[Any]) -> httpx.Response:
        dep = next(d for d in self.dependencies() if d.get("id") == fn_index)
        trigger = dep["targets"][0][0] if dep.get("targets") else None
        body = {"data": data, "fn_index": fn_index, "session_hash": self.session_hash, "trigger_id": trigger}
        # json.dumps escapes to ASCII, so payloads a browser could never encode (lone surrogates) still go out.
        headers = {"Content-Type": "application/json"}
        return self.client.post("/gradio_api/queue/join", content=json.dumps(body), headers=headers)

    def stream(self, timeout_s: float = 30) -> Any:
        return self.client.stream(
            "GET", "/gradio_api/queue/data", params={"session_hash": self.session_hash}, timeout=timeout_s
        )

    def run(self, fn_index: int, data: list[Any], *, timeout_s: float = 30) -> EventResult:
        join = self.join(fn_index, data)
        result = EventResult(join.status_code, join.text)
        if join.status_code != 200:
            return result
        with self.stream(timeout_s) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                result.messages.append(message)
                if message.get("msg") in ("process_completed", "unexpected_error"):
                    break
        return result

    def outputs(self, fn_index: int, data: list[Any]) -> list[Any]:
        """Run an event that must succeed and return its final output values."""
        result = self.run(fn_index, data)
        assert result.completed is not None and result.completed["success"], result.raw[-500:]
        return list(result.completed["output"]["data"])


def file_urls(text: str) -> list[str]:
    """Every /gradio_api/file= URL Gradio handed back in an event's output."""
    urls = []
    for part in text.split('"')[1:]:
        if "/gradio_api/file=" in part:
            urls.append(part[part.index("/gradio_api/file=") :])
    return urls


def browser_owner(client: httpx.Client) -> str:
    """The owner id of the browser ``client`` plays: the signed id in the cookie the app issued it."""
    from webapp.web.ownership import COOKIE, OWNER_PREFIX

    value = client.cookies.get(COOKIE)
    assert value, "the app issued no browser cookie"
    return OWNER_PREFIX + value.split(".")[0]  # id.issued.signature
