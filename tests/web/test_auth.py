"""Auth file: hashed passwords, roles, hashed API keys; who may call /v1/* and /metrics."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.support.service import api_app
from webapp.web.auth import (
    LOCAL_OWNER,
    AccessDenied,
    ApiAccess,
    AuthFile,
    AuthFileError,
    hash_api_key,
    hash_password,
    new_api_key,
    verify_password,
)

ALICE_KEY = new_api_key()
ROOT_KEY = new_api_key()


def write_auth_file(folder: Path) -> Path:
    path = folder / "users.toml"
    path.write_text(f"""
[users.alice]
role = "chatter"
password = "{hash_password("correct horse")}"
api_keys = ["{hash_api_key(ALICE_KEY)}"]

[users.root]
role = "admin"
api_keys = ["{hash_api_key(ROOT_KEY)}"]
""")
    return path


def test_passwords_are_salted_scrypt_hashes() -> None:
    # A password with a space: it cannot turn up in a base64 hash by chance ("pw" did, 1 run in ~30).
    first, second = hash_password("pass word"), hash_password("pass word")
    assert first.startswith("scrypt$") and first != second and "pass word" not in first
    assert verify_password(first, "pass word") and not verify_password(first, "PASS WORD")
    assert not verify_password("garbage", "pass word")


def test_auth_file_users_roles_and_keys(tmp_path: Path) -> None:
    auth = AuthFile.load(write_auth_file(tmp_path))
    alice = auth.check_password("alice", "correct horse")
    assert alice is not None and alice.role == "chatter"
    assert auth.check_password("alice", "wrong") is None
    assert auth.check_password("nobody", "correct horse") is None
    assert auth.check_password("root", "") is None  # no password set: no password login
    assert auth.user_for_api_key(ROOT_KEY).name == "root"  # type: ignore[union-attr]
    assert auth.user_for_api_key("rc-guess") is None
    assert ALICE_KEY not in (tmp_path / "users.toml").read_text()


@pytest.mark.parametrize("entry", ['role = "superuser"', 'api_keys = ["plain-key"]'])
def test_bad_auth_files_are_refused(tmp_path: Path, entry: str) -> None:
    path = tmp_path / "users.toml"
    path.write_text(f"[users.x]\n{entry}\n")
    with pytest.raises(AuthFileError):
        AuthFile.load(path)


def test_json_auth_file(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    path.write_text(
        '{{"users": {{"bob": {{"role": "reviewer", "api_keys": ["{}"]}}}}}}'.format(hash_api_key("rc-bob"))
    )
    assert AuthFile.load(path).user_for_api_key("rc-bob").role == "reviewer"  # type: ignore[union-attr]


def test_access_rules(tmp_path: Path) -> None:
    auth = AuthFile.load(write_auth_file(tmp_path))
    keyed = ApiAccess(auth, open_locally=False)
    assert keyed.owner(f"Bearer {ALICE_KEY}") == "user:alice"  # the owner id the UI gives alice too
    for header in (None, "", "Bearer ", f"Basic {ALICE_KEY}", "Bearer rc-wrong"):
        with pytest.raises(AccessDenied) as caught:
            keyed.owner(header)
        assert caught.value.status == 401
    with pytest.raises(AccessDenied) as caught:
        keyed.owner(f"Bearer {ALICE_KEY}", role="reviewer")
    assert caught.value.status == 403
    assert keyed.owner(f"Bearer {ROOT_KEY}", role="reviewer") == "user:root"
    assert ApiAccess(None, open_locally=True).owner(None) == LOCAL_OWNER
    with pytest.raises(AccessDenied):
        ApiAccess(None, open_locally=False).owner(None)


@pytest.mark.parametrize(
    ("host", "demo", "is_open"),
    [("127.0.0.1", False, True), ("::1", False, True), ("0.0.0.0", False, False), ("127.0.0.1", True, False)],
)
def test_open_only_on_loopback_without_demo(host: str, demo: bool, is_open: bool) -> None:
    from webapp.config import Settings

    assert ApiAccess.from_settings(Settings(host=host, demo=demo)).open_locally is is_open


def test_api_keys_guard_v1_and_metrics_over_http(tmp_path: Path, store, guard, upstream) -> None:
    from tests.support.service import make_service

    service = make_service(store, guard, upstream)
    app = api_app(tmp_path, service, auth_file=write_auth_file(tmp_path))
    with TestClient(app) as client:
        assert client.get("/v1/models").status_code == 401
        assert client.get("/v1/models").json()["error"]["code"] == "invalid_api_key"
        assert client.get("/v1/models", headers={"Authorization": "Bearer rc-nope"}).status_code == 401
        alice = {"Authorization": f"Bearer {ALICE_KEY}"}
        assert client.get("/v1/models", headers=alice).status_code == 200
        refused = client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]})
        assert refused.status_code == 401 and upstream.requests == []
        response = client.post(
            "/v1/chat/completions", headers=alice, json={"messages": [{"role": "user", "content": "hi"}]}
        )
        assert response.status_code == 200
        assert store.get_session(response.headers["x-session-id"]).owner == "user:alice"
        assert client.get("/metrics", headers=alice).status_code == 403  # chatters do not read metrics
        assert client.get("/metrics", headers={"Authorization": f"Bearer {ROOT_KEY}"}).status_code == 200


def test_api_disabled_without_auth_file_off_loopback(tmp_path: Path, store, guard, upstream) -> None:
    from tests.support.service import make_service

    app = api_app(tmp_path, make_service(store, guard, upstream), host="0.0.0.0")
    with TestClient(app) as client:
        response = client.get("/v1/models")
        assert response.status_code == 403 and response.json()["error"]["code"] == "api_disabled"
        assert client.get("/metrics").status_code == 200  # no auth file: scrapers need no key


def test_ui_asks_for_a_login_when_an_auth_file_is_set(tmp_path: Path, store, guard, upstream) -> None:
    from tests.support.paths import RAILS_DIR
    from tests.support.service import make_service
    from webapp.config import load_settings
    from webapp.web.app import create_app

    settings = load_settings(data_dir=tmp_path, rails=RAILS_DIR, auth_file=write_auth_file(tmp_path))
    with TestClient(
        create_app(settings, make_service(store, guard, upstream)), base_url="http://127.0.0.1"
    ) as client:
        assert client.get("/config").status_code == 401  # the UI's data needs a session
        assert client.post("/login", data={"username": "alice", "password": "wrong"}).status_code == 400
        assert (
            client.post("/login", data={"username": "alice", "password": "correct horse"}).status_code == 200
        )
        assert client.get("/config").status_code == 200


def test_ui_is_open_on_loopback_without_an_auth_file(tmp_path: Path, store, guard, upstream) -> None:
    from tests.support.paths import RAILS_DIR
    from tests.support.service import make_service
    from webapp.config import load_settings
    from webapp.web.app import create_app

    settings = load_settings(data_dir=tmp_path, rails=RAILS_DIR)
    with TestClient(
        create_app(settings, make_service(store, guard, upstream)), base_url="http://127.0.0.1"
    ) as client:
        assert client.get("/config").status_code == 200
