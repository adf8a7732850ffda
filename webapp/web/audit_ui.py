"""The Audit tab: the Reviewer API as a page, for reviewers and admins.

The tab is only part of the app reviewers are routed to (audit_route.py): chatters and demo visitors are
served an app without it. Still, every handler asks `ReviewAccess` again with the signed-in user of that very
event, and reads are logged like the API's.
Handlers take and return plain values (``*_view`` methods) so tests drive them without a browser; the
Gradio wiring at the bottom only moves values in and out. Exports are links to `/api/export` (streamed
and access-checked there), never files in Gradio's cache, where any URL-holder could fetch them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import gradio as gr
import pandas as pd

from webapp.store import Store, StoreError, review
from webapp.web.audit_render import AUDIT_CSS, esc, transcript_html
from webapp.web.auth import AccessDenied
from webapp.web.review_access import ReviewAccess, log_read
from webapp.web.reviewer_api import BadRequest, filter_from, session_detail

FILTERS = ("owner", "client", "status", "rail", "model", "since", "until", "q")
STATUSES = ["", "complete", "blocked", "error", "interrupted", "streaming"]
CLIENTS = ["", "ui", "api", "demo"]
LIST_COLUMNS = ["updated", "owner", "client", "title", "messages", "statuses", "blocked by", "id"]
WHOLE_SESSION = "The whole session"


@dataclass(frozen=True)
class ListView:
    rows: pd.DataFrame
    ids: list[str]
    next_cursor: str | None
    status: str


@dataclass(frozen=True)
class SessionView:
    html: str
    targets: list[tuple[str, str]]  # (label, message id or "") for the annotation picker
    status: str
    unchanged: bool = False  # keep the transcript on screen as it is


def _username(request: Any) -> str | None:
    return getattr(request, "username", None) if request is not None else None


def _refused(exc: AccessDenied) -> str:
    return f"Not allowed: {exc.message}"


class AuditTab:
    def __init__(self, store: Store, access: ReviewAccess) -> None:
        self.store = store
        self.access = access

    # -- handlers ----------------------------------------------------------------------------------------------

    def list_view(self, username: str | None, values: dict[str, str], cursor: str | None = None) -> ListView:
        empty = pd.DataFrame(columns=LIST_COLUMNS)
        try:
            who = self.access.ui_reviewer(username)
            f = filter_from({k: v for k, v in values.items() if v})
            page = review.list_sessions(self.store, f, limit=50, cursor=cursor)
        except AccessDenied as exc:
            return ListView(empty, [], None, _refused(exc))
        except (BadRequest, StoreError) as exc:
            return ListView(empty, [], None, f"Check the filters: {getattr(exc, 'message', exc)}")
        log_read(who, "sessions", count=len(page.sessions), via="audit tab")
        rows = pd.DataFrame(
            [
                [
                    f"{s.updated_at:%Y-%m-%d %H:%M}",
                    s.owner,
                    s.client,
                    (s.title or "")[:60],
                    s.message_count,
                    ", ".join(f"{k} {v}" for k, v in sorted(s.statuses.items())),
                    ", ".join(s.rails),
                    s.id,
                ]
                for s in page.sessions
            ],
            columns=LIST_COLUMNS,
        )
        found = f"{len(page.sessions)} session{'s' if len(page.sessions) != 1 else ''}"
        return ListView(
            rows,
            [s.id for s in page.sessions],
            page.next_cursor,
            found + (", more below" if page.next_cursor else ""),
        )

    def session_view(self, username: str | None, session_id: str) -> SessionView:
        try:
            who = self.access.ui_reviewer(username)
        except AccessDenied as exc:
            return SessionView("", [], _refused(exc))
        detail = session_detail(self.store, session_id) if session_id else None
        if detail is None:
            return SessionView("", [], "No such session.")
        log_read(who, f"session:{session_id}", via="audit tab")
        targets = [(WHOLE_SESSION, "")] + [
            (f"#{m['seq']} {m['role']} ({m['status']})", str(m["id"])) for m in detail["messages"]
        ]
        return SessionView(transcript_html(detail), targets, f"Session {session_id}")

    def annotate_view(
        self, username: str | None, session_id: str, target: str, label: str, note: str
    ) -> SessionView:
        try:
            who = self.access.ui_reviewer(username)
            message_id = int(target) if target else None
            review.add_annotation(
                self.store, session_id, message_id=message_id, author=who, label=label or "", note=note or ""
            )
        except AccessDenied as exc:
            return SessionView("", [], _refused(exc))
        except (StoreError, ValueError) as exc:
            return SessionView("", [], f"Not saved: {exc}", unchanged=True)
        view = self.session_view(username, session_id)
        return SessionView(view.html, view.targets, "Note saved.")

    def export_view(self, username: str | None, values: dict[str, str], fmt: str) -> str:
        try:
            self.access.ui_reviewer(username)
        except AccessDenied as exc:
            return esc(_refused(exc))
        query = urlencode(
            {"format": fmt if fmt in ("jsonl", "csv") else "jsonl", **{k: v for k, v in values.items() if v}}
        )
        href = f"/api/export?{query}"
        return f'<a id="audit-export-link" href="{esc(href)}" download>Download the filtered sessions ({esc(fmt)})</a>'

    def overview_view(
        self, username: str | None, values: dict[str, str]
    ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]:
        turns = pd.DataFrame(columns=["period", "status", "count"])
        blocks = pd.DataFrame(columns=["rail", "stage", "count"])
        errors = pd.DataFrame(columns=["period", "count"])
        try:
            who = self.access.ui_reviewer(username)
            data = review.overview(self.store, filter_from({k: v for k, v in values.items() if v}))
        except AccessDenied as exc:
            return turns, blocks, errors, _refused(exc)
        except (BadRequest, StoreError) as exc:
            return turns, blocks, errors, f"Check the filters: {getattr(exc, 'message', exc)}"
        log_read(who, "overview", via="audit tab")
        return (
            pd.DataFrame(data["turns"], columns=turns.columns),
            pd.DataFrame(data["blocks"], columns=blocks.columns),
            pd.DataFrame(data["errors"], columns=errors.columns),
            "",
        )

    # -- Gradio --------------------------------------------------------------------------------------------------

    def build(self) -> gr.Tab:
        with gr.Tab("Audit", id="audit", elem_id="audit-tab") as tab:
            c = build_layout()
        self._wire(c)
        return tab

    def _wire(self, c: AuditLayout) -> None:
        def values(*args: Any) -> dict[str, str]:
            return {name: str(v or "").strip() for name, v in zip(FILTERS, args, strict=True)}

        # Gradio hands a gr.Request only to parameters it can see, so the filters are spelled out.
        def on_search(owner, client, status, rail, model, since, until, q, request: gr.Request):
            chosen = values(owner, client, status, rail, model, since, until, q)
            view = self.list_view(_username(request), chosen)
            turns, blocks, errors, problem = self.overview_view(_username(request), chosen)
            return view.rows, view.ids, view.next_cursor, view.status or problem, turns, blocks, errors

        def on_more(
            owner, client, status, rail, model, since, until, q, shown, known, after, request: gr.Request
        ):
            if not after:
                return gr.skip(), gr.skip(), gr.skip(), "No more sessions."
            chosen = values(owner, client, status, rail, model, since, until, q)
            view = self.list_view(_username(request), chosen, cursor=after)
            rows = (
                pd.concat([shown, view.rows], ignore_index=True)
                if isinstance(shown, pd.DataFrame)
                else view.rows
            )
            return rows, list(known or []) + view.ids, view.next_cursor, view.status

        def on_select(known: list[str], evt: gr.SelectData, request: gr.Request) -> tuple[Any, ...]:
            row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
            session_id = known[row] if isinstance(row, int) and 0 <= row < len(known or []) else ""
            view = self.session_view(_username(request), session_id)
            return view.html, gr.update(choices=view.targets, value=""), session_id, view.status

        def on_add(session_id: str, which: str, lab: str, text: str, request: gr.Request) -> tuple[Any, str]:
            view = self.annotate_view(_username(request), session_id, which or "", lab, text)
            return (gr.skip() if view.unchanged else view.html), view.status

        def on_export(owner, client, status, rail, model, since, until, q, fmt, request: gr.Request) -> str:
            chosen = values(owner, client, status, rail, model, since, until, q)
            return self.export_view(_username(request), chosen, fmt)

        c.search.click(on_search, c.filters, [c.table, c.ids, c.cursor, c.info, *c.plots])
        c.more.click(on_more, [*c.filters, c.table, c.ids, c.cursor], [c.table, c.ids, c.cursor, c.info])
        c.table.select(on_select, [c.ids], [c.transcript, c.target, c.opened, c.info])
        c.add.click(on_add, [c.opened, c.target, c.label, c.note], [c.transcript, c.info])
        c.export.click(on_export, [*c.filters, c.fmt], [c.link])


@dataclass(frozen=True)
class AuditLayout:
    filters: list[Any]
    search: gr.Button
    info: gr.Markdown
    table: gr.Dataframe
    more: gr.Button
    ids: gr.State
    cursor: gr.State
    opened: gr.State
    transcript: gr.HTML
    target: gr.Dropdown
    label: gr.Textbox
    note: gr.Textbox
    add: gr.Button
    fmt: gr.Radio
    export: gr.Button
    link: gr.HTML
    plots: tuple[Any, ...]


def build_layout() -> AuditLayout:
    gr.HTML(f"<style>{AUDIT_CSS}</style>")
    with gr.Row():
        filters: list[Any] = [
            gr.Textbox(label="Owner", placeholder="user:alice", elem_id="audit-owner", scale=2),
            gr.Dropdown(CLIENTS, value="", label="Client", elem_id="audit-client", scale=1),
            gr.Dropdown(STATUSES, value="", label="Status", elem_id="audit-status", scale=1),
            gr.Textbox(label="Blocked by rail", placeholder="url_allowlist", elem_id="audit-rail", scale=1),
            gr.Textbox(label="Model", elem_id="audit-model", scale=1),
        ]
    with gr.Row():
        filters += [
            gr.Textbox(label="Since (ISO date)", placeholder="2026-11-30", elem_id="audit-since"),
            gr.Textbox(label="Until", elem_id="audit-until"),
            gr.Textbox(
                label="Text", placeholder="words in a message or its reasoning", elem_id="audit-q", scale=2
            ),
        ]
        search = gr.Button("Search", variant="primary", elem_id="audit-search")
    info = gr.Markdown("", elem_id="audit-info")
    table = gr.Dataframe(
        headers=LIST_COLUMNS, interactive=False, elem_id="audit-sessions", wrap=True, max_height=320
    )
    more = gr.Button("Load more", size="sm", elem_id="audit-more")
    with gr.Row():
        with gr.Column(scale=3):
            transcript = gr.HTML("", elem_id="audit-view")
        with gr.Column(scale=1, min_width=240):
            target = gr.Dropdown([], label="Note on", elem_id="audit-target")
            label = gr.Textbox(label="Label", placeholder="correct block", elem_id="audit-label")
            note = gr.Textbox(label="Note", lines=3, elem_id="audit-note")
            add = gr.Button("Add note", elem_id="audit-add")
            fmt = gr.Radio(["jsonl", "csv"], value="jsonl", label="Export format", elem_id="audit-format")
            export = gr.Button("Export the filtered set", elem_id="audit-export")
            link = gr.HTML("", elem_id="audit-export-box")
    with gr.Accordion("Overview", open=True, elem_id="audit-overview"):
        with gr.Row():
            plots = (
                gr.BarPlot(x="period", y="count", color="status", title="Answers by day and status"),
                gr.BarPlot(x="rail", y="count", color="stage", title="Blocks by rail"),
                gr.LinePlot(x="period", y="count", title="Errors and interruptions over time"),
            )
    return AuditLayout(
        filters,
        search,
        info,
        table,
        more,
        gr.State([]),
        gr.State(None),
        gr.State(""),
        transcript,
        target,
        label,
        note,
        add,
        fmt,
        export,
        link,
        plots,
    )
