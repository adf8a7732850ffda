"""python -m webapp.invites: new prints a link, list shows use and state, revoke withdraws by token or id."""

from __future__ import annotations

import pytest

from webapp import invites as cli
from webapp.store import Store, invites


def test_new_list_revoke(sqlite_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(["new", "--db", sqlite_url, "--hours", "2", "--messages", "30", "--note", "workshop"]) == 0
    )
    link = capsys.readouterr().out.strip()
    assert link.startswith("/?invite=") and len(link) > 30
    token = link.removeprefix("/?invite=")
    with Store(sqlite_url) as store:
        assert invites.find_invite(store, token) is not None
    assert cli.main(["list", "--db", sqlite_url]) == 0
    listed = capsys.readouterr().out
    assert "valid" in listed and "0/30 messages" in listed and "workshop" in listed and token not in listed
    assert cli.main(["revoke", token, "--db", sqlite_url]) == 0
    assert cli.main(["list", "--db", sqlite_url]) == 0
    assert "revoked" in capsys.readouterr().out
    assert cli.main(["revoke", "no-such-token", "--db", sqlite_url]) == 1


def test_bad_numbers_are_a_clear_error(sqlite_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["new", "--db", sqlite_url, "--hours", "0", "--messages", "5"]) == 2
    assert "positive" in capsys.readouterr().err


def test_a_token_never_looks_like_an_option(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = iter(["-starts-with-a-dash-0123456789abcdef", "plain-token-0123456789abcdefgh"])
    monkeypatch.setattr(invites.secrets, "token_urlsafe", lambda n: next(drawn))
    with Store(sqlite_url) as store:
        token, _ = invites.create_invite(store, hours=1, messages=1)
    assert token == "plain-token-0123456789abcdefgh"
    assert cli.main(["revoke", token, "--db", sqlite_url]) == 0
