"""Alembic environment. `webapp.store.engine.upgrade` passes an open connection in `config.attributes`."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from webapp.store.models import Base
from webapp.store.textsearch import is_search_index

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds tables for later revisions.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=lambda name, *_: not is_search_index(name),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    if context.is_offline_mode():
        context.configure(
            url=config.get_main_option("sqlalchemy.url"), target_metadata=Base.metadata, literal_binds=True
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


run_migrations()
