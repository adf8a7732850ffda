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
