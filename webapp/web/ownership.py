"""Anonymous owners: ids the server issues and signs, so a browser can keep its id but never choose one.

An anonymous visitor owns their chats by an id kept in the browser (localStorage). Every event payload is
written by the client, so an id taken as sent would let anyone who learns another visitor's id (a shared
screen, a log line, a browser extension) read their chats. The browser therefore keeps a token: the owner id
and an HMAC over it, keyed with the app's stable browser-state secret. Only a token with a valid HMAC is an
owner; anything else gets a fresh id.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict

OWNER_PREFIX = "browser:"
MAX_TABS = 10_000  # tabs whose owner is remembered while their first events race


class OwnerIds:
    def __init__(self, secret: str | None) -> None:
        # A key of its own, derived from the shared secret (which also encrypts Gradio's BrowserState).
        material = (secret or secrets.token_urlsafe(32)).encode()
        self._key = hashlib.sha256(b"railchat anonymous owner ids\x00" + material).digest()
        self._tabs: OrderedDict[str, str] = OrderedDict()

    def settle(self, token: object, tab: str | None) -> tuple[str, str]:
        """(owner, token) for a browser tab: the owner its token names, else the one already given to this
        tab (its page-load and a first message can reach the server in either order), else a new one."""
        owner = self.owner_of(token) or (self._tabs.get(tab) if tab else None) or self.issue()[0]
        if tab:
            self._tabs[tab] = owner
            self._tabs.move_to_end(tab)
            while len(self._tabs) > MAX_TABS:
                self._tabs.popitem(last=False)
        return owner, self.token_for(owner)

    def issue(self) -> tuple[str, str]:
        """A fresh owner id and the token the browser keeps for it."""
        owner = OWNER_PREFIX + secrets.token_urlsafe(16)
        return owner, self.token_for(owner)

    def token_for(self, owner: str) -> str:
        return f"{owner}.{self._mac(owner)}"

    def owner_of(self, token: object) -> str | None:
        """The owner id a token was issued for, or None if it is not one of ours."""
        if not isinstance(token, str) or not token.startswith(OWNER_PREFIX):
            return None
        owner, _, mac = token.rpartition(".")
        if not owner or not hmac.compare_digest(mac.encode(), self._mac(owner).encode()):
            return None
        return owner

    def _mac(self, owner: str) -> str:
        return hmac.new(self._key, owner.encode(), hashlib.sha256).hexdigest()[:32]
