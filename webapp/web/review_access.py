"""Who may read reviewer data: one decision shared by the Reviewer API and the Audit tab.

Reviewer data (every owner's chats, blocked text, reasoning) is the most sensitive thing the app holds, so
each handler asks this object on every call; hiding a tab or a route is not protection. A request counts
as a reviewer when it carries a reviewer's or admin's API key (`Authorization: Bearer`) or the UI login
cookie of such a user. Without an auth file the app runs open for its local user only: loopback bind,
loopback `Host`, no foreign `Origin`, never in demo or share mode.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from webapp.web.auth import LOCAL_OWNER, AccessDenied, ApiAccess, is_loopback

log = logging.getLogger("railchat.review")


@dataclass
class GradioLogin:
    """Reads the user name from Gradio's login cookie; the mounted Gradio app is attached once it exists."""

    app: Any = None

    def user(self, cookies: dict[str, str]) -> str | None:
        if self.app is None:
            return None
        cookie_id = self.app.cookie_id
        token = cookies.get(f"access-token-{cookie_id}") or cookies.get(f"access-token-unsecure-{cookie_id}")
        name = self.app.tokens.get(token) if token else None
        return name if isinstance(name, str) else None


@dataclass(frozen=True)
class ReviewAccess:
    api: ApiAccess
    demo: bool = False
    login: GradioLogin = field(default_factory=GradioLogin)

    @property
    def open_locally(self) -> bool:
        return self.api.open_locally and not self.demo

    def reviewer(self, headers: dict[str, str], cookies: dict[str, str]) -> str:
        """The reviewer's identity (``user:NAME`` or ``api:local``) for an HTTP request, else AccessDenied."""
        if self.demo:
            raise AccessDenied(403, "The Reviewer API is off in demo mode.", "api_disabled")
        if self.api.auth is None:
            if self.open_locally and _local_request(headers):
                return LOCAL_OWNER
            raise AccessDenied(
                403, "The Reviewer API is disabled: start the app with --auth-file.", "api_disabled"
            )
        authorization = headers.get("authorization")
        if authorization:
            return self.api.owner(authorization, role="reviewer")
        if not _same_site(headers):
            # A login cookie rides along with requests other sites make (Gradio sets it SameSite=None).
            raise AccessDenied(403, "Cross-site requests cannot use the UI login.", "cross_site")
        return self.ui_reviewer(self.login.user(cookies))

    def ui_reviewer(self, username: str | None) -> str:
        """The identity for a Gradio event from a signed-in UI user, else AccessDenied."""
        if self.demo:
            raise AccessDenied(403, "The audit is off in demo mode.", "api_disabled")
        if self.api.auth is None:
            if self.open_locally:
                return LOCAL_OWNER
            raise AccessDenied(403, "The audit needs an auth file.", "api_disabled")
        user = self.api.auth.users.get(username or "")
        if user is None:
            raise AccessDenied(401, "Sign in as a reviewer, or send a reviewer's API key.", "not_signed_in")
        if not user.has_role("reviewer"):
            raise AccessDenied(403, "This account needs the reviewer role.", "insufficient_role")
        return f"user:{user.name}"

    def may_review(self, username: str | None) -> bool:
        try:
            self.ui_reviewer(username)
        except AccessDenied:
            return False
        return True


def _local_request(headers: dict[str, str]) -> bool:
    """Only the local user's own tools: a web page (DNS rebinding, cross-site form) cannot pass."""
    host = urlsplit("//" + headers.get("host", "")).hostname or ""
    if not is_loopback(host):
        return False
    origin = headers.get("origin")
    if origin is not None:
        origin_host = urlsplit(origin).hostname or ""
        if not is_loopback(origin_host):
            return False
    return headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def _same_site(headers: dict[str, str]) -> bool:
    origin = headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != headers.get("host", ""):
        return False
    return headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def log_read(who: str, what: str, **details: Any) -> None:
    """Every reviewer read leaves a line: who read what (never the content itself)."""
    log.info("reviewer read: %s %s", who, what, extra={"reviewer": who, "read": what, **details})
