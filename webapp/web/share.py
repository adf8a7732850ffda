"""`--share`: Gradio's public link (an frp tunnel to Gradio's share servers) when this machine can reach
them. It is opened in the background: without internet the app keeps serving locally and says so.
Every visitor of a shared link gets demo rules (see webapp/web/demo.py); the caller makes sure of that.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from typing import Any

Tunnel = Callable[..., str]
Say = Callable[[str], None]


def _gradio_tunnel(host: str, port: int, token: str) -> str:
    from gradio.networking import setup_tunnel

    return setup_tunnel(host, port, token, None, None)


def open_share_link(host: str, port: int, *, say: Say, tunnel: Tunnel | None = None) -> str | None:
    """The public URL, or None after a clear warning; never raises."""
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    try:
        url = (tunnel or _gradio_tunnel)(local, port, secrets.token_urlsafe(32))
    except Exception as exc:  # no internet, blocked port, missing frpc binary: all mean "no public link"
        say(f"warning: no public --share link ({type(exc).__name__}: {exc}); serving locally only.")
        return None
    say(f"Public link (demo rules apply): {url}")
    return url


def share_in_background(host: str, port: int, *, say: Say, tunnel: Tunnel | None = None) -> threading.Thread:
    kwargs: dict[str, Any] = {"say": say, "tunnel": tunnel}
    thread = threading.Thread(
        target=open_share_link, args=(host, port), kwargs=kwargs, name="railchat-share", daemon=True
    )
    thread.start()
    return thread
