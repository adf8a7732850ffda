"""Reviewers and demo visitors: annotations with a label and on whole sessions, the indexes the reviewers'
filters need, demo invites, visitors, rate-limit hits and turn slots (shared by every app replica).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_sessions_updated", "sessions", ["updated_at", "id"])
    op.create_index("ix_sessions_client_updated", "sessions", ["client", "updated_at"])
    op.drop_index("ix_messages_status", table_name="messages")
    op.create_index("ix_messages_status_session", "messages", ["status", "session_id"])
    op.create_index("ix_attachments_sha256", "attachments", ["sha256"])
    op.drop_index("ix_rail_events_rail", table_name="rail_events")
    _rail_events_by_session()
    _annotations_on_sessions()
    _demo_tables()


def _rail_events_by_session() -> None:
    with op.batch_alter_table("rail_events") as batch:
        batch.add_column(sa.Column("session_id", sa.String(64), nullable=True))
    op.execute(
        "UPDATE rail_events SET session_id = "
        "(SELECT messages.session_id FROM messages WHERE messages.id = rail_events.message_id)"
    )
    with op.batch_alter_table("rail_events") as batch:
        batch.alter_column("session_id", existing_type=sa.String(64), nullable=False)
        batch.create_foreign_key(
            "fk_rail_events_session", "sessions", ["session_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_index("ix_rail_events_rail_decision", ["rail", "decision", "session_id"])


def _annotations_on_sessions() -> None:
    with op.batch_alter_table("annotations") as batch:
        batch.add_column(sa.Column("session_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("label", sa.String(100), nullable=False, server_default=""))
        batch.alter_column("message_id", existing_type=sa.Integer(), nullable=True)
    op.execute(
        "UPDATE annotations SET session_id = "
        "(SELECT messages.session_id FROM messages WHERE messages.id = annotations.message_id)"
    )
    with op.batch_alter_table("annotations") as batch:
        batch.alter_column("session_id", existing_type=sa.String(64), nullable=False)
        batch.alter_column("label", existing_type=sa.String(100), server_default=None)
        batch.create_foreign_key(
            "fk_annotations_session", "sessions", ["session_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_index("ix_annotations_session", ["session_id"])


def _demo_tables() -> None:
    op.create_table(
        "invites",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("message_quota", sa.Integer(), nullable=False),
        sa.Column("messages_used", sa.Integer(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "demo_visitors",
        sa.Column("owner", sa.String(255), primary_key=True),
        sa.Column("invite_id", sa.String(32), sa.ForeignKey("invites.id", ondelete="CASCADE"), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "rate_hits",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("visitor", sa.String(255), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_rate_hits_visitor_at", "rate_hits", ["visitor", "at"])
    op.create_table(
        "turn_slots",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("visitor", sa.String(255), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_turn_slots_state", "turn_slots", ["state", "expires_at"])


def downgrade() -> None:
    for table in ("turn_slots", "rate_hits", "demo_visitors", "invites"):
        op.drop_table(table)
    with op.batch_alter_table("annotations") as batch:
        batch.drop_index("ix_annotations_session")
        batch.drop_constraint("fk_annotations_session", type_="foreignkey")
        batch.drop_column("label")
        batch.drop_column("session_id")
    with op.batch_alter_table("rail_events") as batch:
        batch.drop_index("ix_rail_events_rail_decision")
        batch.drop_constraint("fk_rail_events_session", type_="foreignkey")
        batch.drop_column("session_id")
    op.create_index("ix_rail_events_rail", "rail_events", ["rail"])
    op.drop_index("ix_attachments_sha256", table_name="attachments")
    op.drop_index("ix_messages_status_session", table_name="messages")
    op.create_index("ix_messages_status", "messages", ["status"])
    op.drop_index("ix_sessions_client_updated", table_name="sessions")
    op.drop_index("ix_sessions_updated", table_name="sessions")
