"""Alembic migrations of the session store; run in code by `Store` (no alembic.ini)."""
