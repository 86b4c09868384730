"""Admin commands: db, users, tokens, credits, teams."""

from __future__ import annotations

import click

from renamerd.context import AppContext, app_command


def register(cli: click.Group) -> None:
    @cli.group()
    def db() -> None:
        """Database schema."""

    @app_command(db, "upgrade")
    def db_upgrade(app: AppContext) -> None:
        """Apply pending migrations (also done at every start)."""
        app.db.upgrade()
        click.echo(f"database at revision {app.db.current_revision()}")
