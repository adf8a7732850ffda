"""Tool turns: an assistant message's tool calls (OpenAI's shape, JSON) and the call a tool result answers.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.add_column(sa.Column("tool_calls", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("tool_call_id", sa.String(128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("tool_call_id")
        batch.drop_column("tool_calls")
