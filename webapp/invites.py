"""Demo invite links: ``python -m webapp.invites new|list|revoke`` (thin: parse arguments, call the store).

python -m webapp.invites new --hours 24 --messages 50 --note "workshop"   # prints /?invite=TOKEN
python -m webapp.invites list
python -m webapp.invites revoke TOKEN_OR_ID
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from webapp.config import load_settings
from webapp.store import Store, StoreError, invites


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.invites",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", help="create an invite link")
    new.add_argument("--hours", type=float, required=True, help="valid for this many hours")
    new.add_argument(
        "--messages", type=int, required=True, help="messages all its visitors may send together"
    )
    new.add_argument("--note", default="", help="who it is for (shown by list)")
    commands.add_parser("list", help="all invites with their state and use")
    revoke = commands.add_parser("revoke", help="withdraw an invite at once")
    revoke.add_argument("token", help="the token from the link, or the id shown by list")
    for sub in (new, commands.choices["list"], revoke):
        sub.add_argument("--db", help="SQLAlchemy URL (default: the app's database)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    store = Store(load_settings(db=args.db).db_url)
    try:
        if args.command == "new":
            token, invite = invites.create_invite(
                store, hours=args.hours, messages=args.messages, note=args.note
            )
            print(f"/?invite={token}")
            print(
                f"id {invite.id}, {invite.message_quota} messages, expires {invite.expires_at:%Y-%m-%d %H:%M} UTC",
                file=sys.stderr,
            )
        elif args.command == "list":
            now = datetime.now(UTC)
            for i in invites.list_invites(store):
                print(
                    f"{i.id}  {i.state(now):8}  {i.messages_used}/{i.message_quota} messages  "
                    f"expires {i.expires_at:%Y-%m-%d %H:%M} UTC  {i.note}"
                )
        elif not invites.revoke_invite(store, args.token):
            print("no such invite", file=sys.stderr)
            return 1
        else:
            print("revoked")
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
