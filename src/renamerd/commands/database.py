"""`renamerd db`: the database schema."""

from __future__ import annotations

import click

from renamerd.commands.context import AppContext, app_command


@click.group()
def db() -> None:
    """Database schema."""


@app_command(db, "upgrade")
def db_upgrade(app: AppContext) -> None:
    """Apply pending migrations (also done at every start)."""
    app.db.upgrade()
    click.echo(f"database at revision {app.db.current_revision()}")


def register(cli: click.Group) -> None:
    cli.add_command(db)
