"""--share: a public link when the tunnel opens, else a warning and the app keeps serving (no traffic leaves)."""

from __future__ import annotations

from webapp.web.share import open_share_link


def test_a_public_link_is_announced() -> None:
    said: list[str] = []
    url = open_share_link(
        "0.0.0.0", 7860, say=said.append, tunnel=lambda host, port, token: f"https://x.test/{port}"
    )
    assert url == "https://x.test/7860" and "demo rules apply" in said[0]


def test_offline_is_a_warning_not_a_crash() -> None:
    said: list[str] = []

    def offline(host: str, port: int, token: str) -> str:
        raise RuntimeError("Could not get share link from Gradio API Server.")

    assert open_share_link("127.0.0.1", 7860, say=said.append, tunnel=offline) is None
    assert said[0].startswith("warning: no public --share link") and "serving locally" in said[0]
