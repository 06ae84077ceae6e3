"""Alembic migrations of the Ironside database."""
