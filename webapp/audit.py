"""Verify the hash chains of stored sessions (see webapp/store/chain.py for what a link covers).

    python -m webapp.audit verify [--session ID] [--db URL]

prints one line per session and, for a broken one, the first broken link; exits 1 if any is broken.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from webapp.store import MessageInfo, Store
from webapp.store.chain import FINAL_STATUSES, GENESIS, canonical_json, link_hash, sha256_hex


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    first_broken_seq: int | None = None
    reason: str = ""


def verify_session(store: Store, session_id: str) -> VerifyResult:
    session = store.get_session(session_id)
    if session is None:
        return VerifyResult(False, None, f"no session {session_id!r}")
    messages = store.messages(session_id)
    problem = _check_messages(messages) or _check_links(messages)
    if problem is not None:
        return problem
    linked = [m for m in messages if m.hash is not None]
    head = max(linked, key=lambda m: m.chain_pos or 0).hash if linked else GENESIS
    if session.chain_length != len(linked) or session.chain_head != head:
        after = max((m.seq for m in messages), default=0) + 1
        return VerifyResult(False, after, "the chain's recorded end does not match: messages were removed")
    return VerifyResult(True)


def _check_messages(messages: Sequence[MessageInfo]) -> VerifyResult | None:
    for expected_seq, m in enumerate(messages, start=1):
        if m.seq != expected_seq:
            return VerifyResult(False, expected_seq, f"message seq {expected_seq} is missing")
        if m.status in FINAL_STATUSES and m.hash is None:
            return VerifyResult(False, m.seq, f"final message ({m.status}) has no hash")
        if m.status not in FINAL_STATUSES and m.hash is not None:
            return VerifyResult(False, m.seq, f"message in status {m.status!r} has a hash")
        for a in m.attachments:
            if sha256_hex(a.data) != a.data_sha256:
                return VerifyResult(False, m.seq, f"attachment {a.position} bytes were changed")
    return None


def _check_links(messages: Sequence[MessageInfo]) -> VerifyResult | None:
    prev = GENESIS
    linked = sorted((m for m in messages if m.hash is not None), key=lambda m: m.chain_pos or 0)
    for position, m in enumerate(linked, start=1):
        if m.chain_pos != position:
            return VerifyResult(False, m.seq, f"chain position {position} is missing")
        if m.prev_hash != prev:
            return VerifyResult(False, m.seq, "does not link to the previous message")
        pairs = [(a.sha256, a.data_sha256) for a in m.attachments]
        payload = canonical_json(seq=m.seq, role=m.role, content=m.content, reasoning=m.reasoning,
                                 status=m.status, attachments=pairs)
        if link_hash(prev, payload) != m.hash:
            return VerifyResult(False, m.seq, "content, reasoning, status or attachments were changed")
        prev = m.hash
    return None


def _open_store(args: argparse.Namespace) -> Store:
    if args.db:
        return Store(args.db)
    from webapp.config import Settings  # RAILCHAT_DB or the app's default database

    return Store(Settings().db_url)


def _verify(args: argparse.Namespace) -> int:
    store = _open_store(args)
    try:
        if args.session:
            session_ids = [args.session]
        else:
            session_ids = [s.id for s in store.list_sessions(include_deleted=True, limit=1_000_000_000)]
        broken = 0
        for session_id in session_ids:
            result = verify_session(store, session_id)
            if result.ok:
                print(f"{session_id}: ok")
            else:
                broken += 1
                seq = result.first_broken_seq
                where = f"first broken at seq {seq}" if seq else "broken"
                print(f"{session_id}: BROKEN, {where}: {result.reason}")
        print(f"{len(session_ids)} session(s) checked, {broken} broken")
        return 1 if broken else 0
    finally:
        store.close()


def _export(args: argparse.Namespace) -> int:
    store = _open_store(args)
    try:
        if store.get_session(args.session) is None:
            print(f"no session {args.session}", file=sys.stderr)
            return 1
        sys.stdout.write(store.export_jsonl(args.session))
        return 0
    finally:
        store.close()


def _import(args: argparse.Namespace) -> int:
    store = _open_store(args)
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
        print(store.import_jsonl(text))
        return 0
    except ValueError as exc:  # a tampered or malformed export is refused, with the reason
        print(f"import refused: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webapp.audit", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check the hash chain of one or all sessions")
    verify.add_argument("--session", help="session id (default: every session, deleted ones included)")
    export = commands.add_parser("export", help="write one session as JSON lines to standard output")
    export.add_argument("--session", required=True)
    load = commands.add_parser("import", help="read a JSON-lines export (its hash chain is checked); prints the id")
    load.add_argument("file", help="path, or - for standard input")
    for command in (verify, export, load):
        command.add_argument("--db", help="SQLAlchemy URL (default: RAILCHAT_DB or the app's default database)")
    args = parser.parse_args(argv)
    return {"verify": _verify, "export": _export, "import": _import}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
