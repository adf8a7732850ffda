"""The Audit tab's handlers: who may call them (every handler, forged names too) and what they show."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from tests.support.review_data import LEAK, Seeded, seed
from webapp.store import Store, review
from webapp.web.audit_render import transcript_html
from webapp.web.audit_ui import WHOLE_SESSION, AuditTab
from webapp.web.auth import ApiAccess, AuthFile
from webapp.web.review_access import ReviewAccess
from webapp.web.reviewer_api import session_detail

USERS = {"alice": "chatter", "bob": "chatter", "rita": "reviewer", "root": "admin"}


def tab(store: Store, *, auth: bool = True, open_locally: bool = False, demo: bool = False) -> AuditTab:
    users = AuthFile.from_mapping({"users": {n: {"role": r} for n, r in USERS.items()}}) if auth else None
    return AuditTab(store, ReviewAccess(ApiAccess(users, open_locally), demo=demo))


@pytest.fixture
def seeded(store: Store) -> Seeded:
    return seed(store)


def every_handler(audit: AuditTab, s: Seeded, username: str | None) -> dict[str, Any]:
    return {
        "list": audit.list_view(username, {}).status,
        "session": audit.session_view(username, s.leak).status,
        "annotate": audit.annotate_view(username, s.leak, "", "x", "y").status,
        "export": audit.export_view(username, {}, "jsonl"),
        "overview": audit.overview_view(username, {})[3],
    }


@pytest.mark.parametrize("username", [None, "", "alice", "bob", "rita ", "RITA", "user:rita", "nobody"])
def test_nobody_but_reviewers_gets_anything_from_any_handler(
    store: Store, seeded: Seeded, username: str | None
) -> None:
    audit = tab(store)
    assert not audit.access.may_review(username)
    results = every_handler(audit, seeded, username)
    for name, status in results.items():
        assert status.startswith("Not allowed") or "Not allowed" in status, (name, status)
    assert audit.list_view(username, {}).rows.empty
    assert audit.session_view(username, seeded.leak).html == ""
    assert review.session_annotations(store, seeded.leak) == []  # nothing was written either


@pytest.mark.parametrize("username", ["rita", "root"])
def test_reviewers_and_admins_use_every_handler(store: Store, seeded: Seeded, username: str) -> None:
    audit = tab(store)
    assert audit.access.may_review(username)
    results = every_handler(audit, seeded, username)
    assert not any("Not allowed" in v for v in results.values()), results
    assert results["annotate"] == "Note saved."
    assert 'href="/api/export?format=jsonl"' in results["export"]


def test_demo_and_closed_modes_have_no_audit(store: Store, seeded: Seeded) -> None:
    for audit in (tab(store, demo=True), tab(store, auth=False, open_locally=False)):
        assert not audit.access.may_review(None)
        assert audit.list_view("rita", {}).status.startswith("Not allowed")
    local = tab(store, auth=False, open_locally=True)  # the single local user of a loopback app
    assert local.access.may_review(None) and not local.list_view(None, {}).rows.empty


def test_filters_reach_the_list(store: Store, seeded: Seeded) -> None:
    audit = tab(store)
    view = audit.list_view("rita", {"status": "blocked", "rail": "url_allowlist"})
    assert view.ids == [seeded.leak] and view.status == "1 session"
    assert list(view.rows["blocked by"]) == ["url_allowlist"]
    assert audit.list_view("rita", {"since": "not a date"}).status.startswith("Check the filters")


def test_transcript_shows_what_the_model_saw_reasoning_and_the_verdict(store: Store, seeded: Seeded) -> None:
    view = tab(store).session_view("rita", seeded.leak)
    assert "The model saw: #3 (40 tokens); 2 earlier messages dropped by trimming" in view.html
    assert "I will hide a link" in view.html and "BLOCKED: stored for reviewers only" in view.html
    assert "url_allowlist" in view.html and "Hash chain verified" in view.html
    assert view.targets[0] == (WHOLE_SESSION, "") and len(view.targets) == 5


def test_stored_text_is_shown_as_text_never_as_markup(store: Store, seeded: Seeded) -> None:
    detail = session_detail(store, seeded.leak)
    assert detail is not None
    detail["messages"][0]["content"] = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    page = transcript_html(detail)
    assert "<img src=x" not in page and "<script>" not in page and "&lt;script&gt;" in page
    assert LEAK in page  # the blocked answer is readable, as plain text
    assert 'src="https://evil.example' not in page and 'href="https://evil' not in page


def test_images_are_thumbnails_through_the_reviewer_api(store: Store, seeded: Seeded) -> None:
    html = tab(store).session_view("rita", seeded.image).html
    assert f'src="/api/attachments/{seeded.image_sha}?thumbnail=1"' in html


def test_annotations_land_on_the_chosen_message_or_the_session(store: Store, seeded: Seeded) -> None:
    audit = tab(store)
    audit.annotate_view("rita", seeded.leak, str(seeded.blocked_answer), "exfil", "prompt injection")
    audit.annotate_view("root", seeded.leak, "", "reviewed", "")
    notes = review.session_annotations(store, seeded.leak)
    assert [(n.message_id, n.label, n.author) for n in notes] == [
        (seeded.blocked_answer, "exfil", "user:rita"),
        (None, "reviewed", "user:root"),
    ]
    bad = audit.annotate_view("rita", seeded.leak, str(seeded.blocked_answer), "", "no label")
    assert bad.status.startswith("Not saved") and bad.unchanged
    forged = audit.annotate_view("rita", seeded.leak, "not-a-number", "x", "")
    assert forged.status.startswith("Not saved")


def test_overview_frames_for_the_plots(store: Store, seeded: Seeded) -> None:
    turns, blocks, errors, problem = tab(store).overview_view("rita", {})
    assert problem == "" and isinstance(turns, pd.DataFrame)
    assert int(turns["count"].sum()) == 5 and set(blocks["rail"]) == {"url_allowlist", "moderation"}
    assert int(errors["count"].sum()) == 1


def test_the_tab_builds(store: Store) -> None:
    import gradio as gr

    with gr.Blocks():
        with gr.Tabs():
            built = tab(store).build()
    assert (
        isinstance(built, gr.Tab) and built.label == "Audit" and built.visible is True
    )  # its app is for reviewers only
