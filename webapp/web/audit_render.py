"""HTML for the Audit tab: a stored session as reviewers need to read it.

Everything stored is untrusted (a blocked answer may hold the very link or HTML the rails stopped), so every
piece of text is escaped and shown as text: no markdown, no links, no remote images. The only images are
the session's own attachments, served by the Reviewer API to the signed-in reviewer.
"""

from __future__ import annotations

import html
from typing import Any

STATUS_COLOURS = {
    "complete": "ok",
    "blocked": "bad",
    "error": "bad",
    "interrupted": "warn",
    "streaming": "warn",
}


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _when(iso: str | None) -> str:
    """A stored timestamp to the second, in UTC (the store keeps microseconds)."""
    return "" if not iso else iso[:19].replace("T", " ") + " UTC"


def chain_banner(chain: dict[str, Any]) -> str:
    if chain["ok"]:
        return '<div class="audit-chain ok" id="audit-chain">Hash chain verified: nothing was edited.</div>'
    where = f" at message {chain['broken_at']}" if chain.get("broken_at") else ""
    return (
        f'<div class="audit-chain bad" id="audit-chain">Hash chain BROKEN{esc(where)}: '
        f"{esc(chain.get('reason') or '')}</div>"
    )


def transcript_html(detail: dict[str, Any]) -> str:
    s = detail["session"]
    seq_of = {m["id"]: m["seq"] for m in detail["messages"]}
    head = (
        f'<div class="audit-head"><strong>{esc(s["title"] or "Untitled")}</strong> · {esc(s["owner"])} · '
        f"{esc(s['client'])} · {esc(s['model'])} · {esc(s['message_count'])} messages"
        f"{' · deleted by its owner' if s['deleted'] else ''}</div>"
    )
    notes = "".join(_note(n) for n in detail["annotations"])
    session_notes = f'<div class="audit-notes">Session notes: {notes}</div>' if notes else ""
    body = "".join(_message(m, seq_of) for m in detail["messages"])
    return f'<div class="audit" id="audit-transcript">{chain_banner(detail["chain"])}{head}{session_notes}{body}</div>'


def _message(m: dict[str, Any], seq_of: dict[int, int]) -> str:
    status = m["status"]
    badge = f'<span class="badge {STATUS_COLOURS.get(status, "")}">{esc(status)}</span>'
    meta = " · ".join(esc(x) for x in (m["mode"], m["model"], _when(m["created_at"])) if x)
    parts = [f'<div class="audit-msg {esc(m["role"])} {esc(status)}" id="msg-{m["id"]}">']
    parts.append(f'<div class="audit-meta">#{m["seq"]} <b>{esc(m["role"])}</b> {badge} {meta}</div>')
    if m["context"] is not None:
        parts.append(_context(m["context"], seq_of))
    if m["reasoning"]:
        reasoning = f"<pre>{esc(m['reasoning'])}</pre>"
        parts.append(
            f'<details class="audit-reasoning" open><summary>Reasoning</summary>{reasoning}</details>'
        )
    parts.append(_content(m))
    parts.extend(_image(a) for a in m["attachments"])
    if m["rail_events"]:
        parts.append(_verdicts(m["rail_events"]))
    if m["error"] and status != "blocked":
        parts.append(f'<div class="audit-error">Error: {esc(m["error"])}</div>')
    parts.extend(_note(n) for n in m["annotations"])
    parts.append("</div>")
    return "".join(parts)


def _context(context: dict[str, Any], seq_of: dict[int, int]) -> str:
    seen = ", ".join(f"#{seq_of.get(i, '?')}" for i in context["message_ids"]) or "nothing"
    dropped = context.get("dropped") or 0
    trimmed = (
        f"; {dropped} earlier message{'s' if dropped != 1 else ''} dropped by trimming" if dropped else ""
    )
    tokens = f" ({context['tokens']} tokens)" if context.get("tokens") is not None else ""
    return f'<div class="audit-context">The model saw: {seen}{esc(tokens)}{esc(trimmed)}</div>'


def _content(m: dict[str, Any]) -> str:
    text = f"<pre>{esc(m['content'])}</pre>" if m["content"] else "<pre class='empty'>(no text)</pre>"
    if m["status"] != "blocked":
        return f'<div class="audit-content">{text}</div>'
    shown = m.get("shown_content") or ""
    shown_note = f"<div>The chatter was shown: <em>{esc(shown)}</em></div>" if shown else ""
    return (
        f'<div class="audit-content blocked"><div class="blocked-label">BLOCKED: stored for reviewers only'
        f"{': ' + esc(m['error']) if m['error'] else ''}</div>{text}{shown_note}</div>"
    )


def _image(a: dict[str, Any]) -> str:
    if not a.get("url"):
        return f'<div class="audit-image">image not stored: {esc(a.get("error") or "unreadable")}</div>'
    return (
        f'<a class="audit-image" href="{esc(a["url"])}" target="_blank" rel="noopener">'
        f'<img src="{esc(a["url"])}?thumbnail=1" alt="attachment {esc(a["sha256"][:12])}" loading="lazy">'
        f"</a> {esc(a['width'])}x{esc(a['height'])}"
    )


def _verdicts(events: list[dict[str, Any]]) -> str:
    rows = "".join(
        f'<tr class="{"bad" if e["decision"] == "block" else ""}"><td>{esc(e["stage"])}</td><td>{esc(e["rail"])}'
        f"</td><td>{esc(e['decision'])}</td><td>{esc(e['reason'])}</td></tr>"
        for e in events
    )
    return (
        '<table class="audit-verdicts"><tr><th>stage</th><th>rail</th><th>verdict</th><th>reason</th></tr>'
        f"{rows}</table>"
    )


def _note(n: dict[str, Any]) -> str:
    return (
        f'<div class="audit-note">Note: <b>{esc(n["label"])}</b> {esc(n["note"])} '
        f"<small>({esc(n['author'])}, {esc(_when(n['created_at']))})</small></div>"
    )


AUDIT_CSS = """
.audit pre{white-space:pre-wrap;word-break:break-word;margin:.2rem 0;font-family:inherit}
.audit-chain{padding:.4rem .6rem;border-radius:6px;margin-bottom:.5rem;font-weight:600}
.audit-chain.ok{background:#e5f6ea;color:#14532d}.audit-chain.bad{background:#fde2e2;color:#7f1d1d}
.audit-msg{border:1px solid #8884;border-radius:8px;padding:.5rem .7rem;margin:.45rem 0}
.audit-msg.user{background:#8881}.audit-meta{font-size:.85rem;opacity:.85}
.badge{padding:0 .4rem;border-radius:4px;font-size:.8rem;background:#8883}
.badge.ok{background:#bbf7d0;color:#14532d}.badge.bad{background:#fecaca;color:#7f1d1d}
.badge.warn{background:#fde68a;color:#713f12}
.audit-context{font-size:.85rem;border-left:3px solid #60a5fa;padding-left:.5rem;margin:.3rem 0}
.audit-content.blocked{border:2px dashed #dc2626;border-radius:6px;padding:.3rem .5rem}
.blocked-label{color:#b91c1c;font-weight:700;font-size:.85rem}
.audit-verdicts{font-size:.8rem;border-collapse:collapse;margin:.3rem 0}
.audit-verdicts td,.audit-verdicts th{border:1px solid #8885;padding:.1rem .4rem}
.audit-verdicts tr.bad td{color:#b91c1c;font-weight:600}
.audit-image img{max-width:96px;max-height:96px;border-radius:4px;vertical-align:middle}
.audit-note{font-size:.85rem;background:#fef9c3;color:#422006;border-radius:4px;padding:.1rem .4rem;margin:.2rem 0}
"""
