"""An auth file of users who each sign in with the password NAME-pw, and signing a test client in."""

from __future__ import annotations

from pathlib import Path

import httpx

from webapp.web.auth import hash_password


def users_file(folder: Path, users: dict[str, str]) -> Path:
    """``users``: name -> role. Each user's password is their name followed by "-pw"."""
    path = folder / "users.toml"
    path.write_text(
        "".join(
            f'[users.{n}]\nrole = "{r}"\npassword = "{hash_password(n + "-pw")}"\n' for n, r in users.items()
        )
    )
    return path


def sign_in(client: httpx.Client, name: str) -> None:
    response = client.post("/login", data={"username": name, "password": name + "-pw"})
    assert response.status_code == 200, response.text


def keyed_users_file(folder: Path, names: list[str]) -> tuple[Path, dict[str, str]]:
    """Chatters with one API key each (no password): the file and each user's key."""
    from webapp.web.auth import hash_api_key, new_api_key

    keys = {name: new_api_key() for name in names}
    path = folder / "keys.toml"
    path.write_text(
        "".join(f'[users.{n}]\nrole = "chatter"\napi_keys = ["{hash_api_key(k)}"]\n' for n, k in keys.items())
    )
    return path, keys
