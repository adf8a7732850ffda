"""Initial schema: sessions, messages, blobs, attachments, rail events, context records, annotations.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(255), nullable=False),
        sa.Column("client", sa.String(16), nullable=False),
        sa.Column("title", sa.String(500), nullable=True),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("chain_head", sa.String(64), nullable=False),
        sa.Column("chain_length", sa.Integer(), nullable=False),
    )
    op.create_index("ix_sessions_owner_updated", "sessions", ["owner", "updated_at"])

    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("reasoning", sa.Text(), nullable=False),
        sa.Column("shown_content", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(32), nullable=True),
        sa.Column("params", sa.JSON(), nullable=True),
        sa.Column("model", sa.String(255), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("ttft_ms", sa.Float(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=True),
        sa.Column("finish_reason", sa.String(64), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("context_tokens", sa.Integer(), nullable=True),
        sa.Column("context_dropped", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("chain_pos", sa.Integer(), nullable=True),
        sa.Column("prev_hash", sa.String(64), nullable=True),
        sa.Column("hash", sa.String(64), nullable=True),
        sa.UniqueConstraint("session_id", "seq", name="uq_messages_session_seq"),
    )
    op.create_index("ix_messages_status", "messages", ["status"])

    op.create_table(
        "blobs",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )

    op.create_table(
        "attachments",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("mime", sa.String(100), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("data_sha256", sa.String(64), sa.ForeignKey("blobs.sha256"), nullable=False),
        sa.Column("thumbnail_sha256", sa.String(64), sa.ForeignKey("blobs.sha256"), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_attachments_message", "attachments", ["message_id"])

    op.create_table(
        "rail_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("stage", sa.String(32), nullable=False),
        sa.Column("rail", sa.String(100), nullable=False),
        sa.Column("decision", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_rail_events_message", "rail_events", ["message_id"])
    op.create_index("ix_rail_events_rail", "rail_events", ["rail"])

    op.create_table(
        "context_records",
        sa.Column("answer_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"),
                  nullable=False),
    )
    op.create_index("ix_context_records_message", "context_records", ["message_id"])

    op.create_table(
        "annotations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("author", sa.String(255), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_annotations_message", "annotations", ["message_id"])


def downgrade() -> None:
    for table in ("annotations", "context_records", "rail_events", "attachments", "blobs", "messages",
                  "sessions"):
        op.drop_table(table)
