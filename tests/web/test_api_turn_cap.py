"""API turns at once, over real HTTP (attack pass, session 15): a client that opened streamed answers and never
read them held every one it opened (its upstream request, the pipeline, the buffers), for as long as it liked.
Now each API key holds at most `api_turns_per_key`, and all keys together `api_turns`; the next is a 429 with
a code, its message stored with the refusal as the answer."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.support.live_app import LiveApp, module_live_app, module_upstream, wait_for
from tests.support.scripted_upstream import Script, ScriptedUpstream
from tests.support.users import keyed_users_file
from webapp.turn.turncap import RETRY_S, TurnCap

PER_KEY, TOTAL = 2, 3


upstream = module_upstream()


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return keyed_users_file(tmp_path_factory.mktemp("keys"), ["alice", "bob", "carol"])


@pytest.fixture(scope="module")
def live(
    tmp_path_factory: pytest.TempPathFactory, upstream: ScriptedUpstream, keys: tuple[Path, dict[str, str]]
) -> Iterator[LiveApp]:
    upstream.default = Script(endless=True, delay_s=0.02)  # an answer that lasts until its reader leaves
    settings = {"auth_file": keys[0], "api_turns": TOTAL, "api_turns_per_key": PER_KEY}
    with module_live_app(tmp_path_factory, upstream, "turncap", **settings) as live:
        yield live


@pytest.fixture
def app(live: LiveApp, upstream: ScriptedUpstream) -> Iterator[LiveApp]:
    """The shared app, and after each test every turn it held given back (the next test starts at none)."""
    cap = live.service.admission
    assert isinstance(cap, TurnCap)
    yield live
    wait_for(lambda: upstream_streams_open(upstream) == 0 and not cap.running)


def ask(client: httpx.Client, key: str, text: str, *, stream: bool = True) -> httpx.Request:
    body = {"model": "any", "stream": stream, "messages": [{"role": "user", "content": text}]}
    headers = {"Authorization": f"Bearer {key}"}
    return client.build_request("POST", "/v1/chat/completions", json=body, headers=headers)


def send(held: ExitStack, client: httpx.Client, request: httpx.Request) -> httpx.Response:
    """Sent, its head read, its body not: a turn let through is held open (a slow reader), never awaited."""
    response = client.send(request, stream=True)
    held.callback(response.close)
    return response


def hold(held: ExitStack, client: httpx.Client, key: str, text: str) -> httpx.Response:
    response = send(held, client, ask(client, key, text))
    assert response.status_code == 200, response.read()
    return response


def refused_and_kept(app: LiveApp, response: httpx.Response, code: str, text: str) -> None:
    assert response.status_code == 429
    assert response.read() and response.json()["error"]["code"] == code, response.text
    # what the openai SDK reads to wait before its retry, and the error type OpenAI sends with a 429
    assert response.headers["Retry-After"] == str(RETRY_S)
    assert response.json()["error"]["type"] == "requests"
    session_id = response.headers["X-Session-Id"]
    user, answer = app.service.store.messages(session_id)
    assert (user.role, user.content) == ("user", text)
    assert (answer.role, answer.status) == ("assistant", "error") and answer.error


def upstream_streams_open(upstream: ScriptedUpstream) -> int:
    return sum(1 for r in upstream.requests if r.disconnected is None and not r.finished)


def test_one_key_holds_at_most_its_share_and_the_next_is_429_with_the_message_kept(
    app: LiveApp, upstream: ScriptedUpstream, keys: tuple[Path, dict[str, str]]
) -> None:
    alice, bob = keys[1]["alice"], keys[1]["bob"]
    with app.client() as client, ExitStack() as held:
        for n in range(PER_KEY):
            hold(held, client, alice, f"held {n}")
        for stream in (True, False):
            text = f"one more, stream={stream}"
            refused = send(held, client, ask(client, alice, text, stream=stream))
            refused_and_kept(app, refused, "too_many_turns", text)
        hold(held, client, bob, "bob is not alice")  # another key still gets its turn
        assert upstream_streams_open(upstream) == PER_KEY + 1


def test_all_keys_together_hold_at_most_the_total(
    app: LiveApp, upstream: ScriptedUpstream, keys: tuple[Path, dict[str, str]]
) -> None:
    users = keys[1]
    with app.client() as client, ExitStack() as held:
        for n, name in enumerate(["alice", "alice", "bob"]):
            hold(held, client, users[name], f"held {n}")
        text = "carol has none yet"
        refused_and_kept(app, send(held, client, ask(client, users["carol"], text)), "server_busy", text)
        assert upstream_streams_open(upstream) == TOTAL


def test_a_closed_stream_gives_its_turn_back(
    app: LiveApp, upstream: ScriptedUpstream, keys: tuple[Path, dict[str, str]]
) -> None:
    alice = keys[1]["alice"]
    with app.client() as client, ExitStack() as held:
        first = hold(held, client, alice, "first")
        hold(held, client, alice, "second")
        refused_and_kept(
            app, send(held, client, ask(client, alice, "too soon")), "too_many_turns", "too soon"
        )
        first.close()
        wait_for(lambda: upstream_streams_open(upstream) == PER_KEY - 1)
        wait_for(
            lambda: send(held, client, ask(client, alice, "third")).status_code == 200
        )  # its slot is given back as the closed turn's clean-up ends
