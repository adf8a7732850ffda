"""Command line for reviewers: verify hash chains, export and re-import sessions.

    python -m webapp.audit verify [--session ID] [--db URL]
    python -m webapp.audit export --session ID [--db URL] > session.jsonl
    python -m webapp.audit import session.jsonl [--db URL]

``verify`` prints one line per session and, for a broken one, the first broken link; exits 1 if any is broken.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from webapp.store import Store
from webapp.store.audit import verify_session


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
    load = commands.add_parser(
        "import", help="read a JSON-lines export (its hash chain is checked); prints the id"
    )
    load.add_argument("file", help="path, or - for standard input")
    for command in (verify, export, load):
        command.add_argument(
            "--db", help="SQLAlchemy URL (default: RAILCHAT_DB or the app's default database)"
        )
    args = parser.parse_args(argv)
    return {"verify": _verify, "export": _export, "import": _import}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
