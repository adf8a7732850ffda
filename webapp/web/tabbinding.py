"""A Gradio tab's ``session_hash``, bound to the browser that chose it.

The page picks a random ``session_hash`` and Gradio keys everything about the tab by it alone: the tab's
``gr.State`` (which chat is open), its event stream (``/queue/data?session_hash=``: every word of every
answer as it streams), ``/cancel``. Whoever learns it (a log line with the query string, a proxy, an
extension) could read the tab's answers from any other browser, or close its chat. So before Gradio sees
it, every ``session_hash`` is replaced by an HMAC of (the browser's signed id, the hash): the page works
unchanged, and another browser that sends the same hash gets a tab of its own. Stateless, so it holds across
restarts and workers like the signed id it rests on.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

HEARTBEAT = re.compile(r"(/gradio_api/heartbeat/)([^/]*)$")


class TabBinding:
    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(b"railchat tab\0" + secret.encode()).digest()

    def bind(self, browser: str | None, session_hash: str) -> str:
        return hmac.new(self._key, f"{browser or ''}\0{session_hash}".encode(), hashlib.sha256).hexdigest()[
            :32
        ]

    def scope(self, scope: MutableMapping[str, Any], browser: str | None) -> MutableMapping[str, Any]:
        """``scope`` with the session hash in its query string and heartbeat path bound to ``browser``."""
        query = scope.get("query_string", b"").decode("latin-1")
        # Decoded first, as Gradio's router decodes it: 'session%5Fhash=' is its session_hash too.
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k == "session_hash" for k, _ in pairs):
            pairs = [(k, self.bind(browser, v) if k == "session_hash" else v) for k, v in pairs]
            scope = {**scope, "query_string": urlencode(pairs).encode("latin-1")}
        match = HEARTBEAT.search(scope.get("path", ""))
        if match is not None:
            path = scope["path"][: match.start(2)] + self.bind(browser, match.group(2))
            scope = {**scope, "path": path, "raw_path": path.encode()}
        return scope

    def body(self, payload: object, browser: str | None) -> bool:
        """Bind the ``session_hash`` of an event, cancel or reset body in place; whether there was one."""
        if not isinstance(payload, dict) or not isinstance(payload.get("session_hash"), str):
            return False
        payload["session_hash"] = self.bind(browser, payload["session_hash"])
        return True
