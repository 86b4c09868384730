"""`renamerd users`: create and list users."""

from __future__ import annotations

import click

from renamerd.commands.context import AppContext, CliError, accounts, app_command
from renamerd.commands.output import emit, user_json
from renamerd.service.accounts import AccountError


@click.group()
def users() -> None:
    """Create and list users."""


@app_command(users, "create")
@click.argument("email")
@click.option("--name", default="", help="display name")
def users_create(app: AppContext, email: str, name: str) -> None:
    """Create a user (with the signup credits) and print it as JSON."""
    try:
        emit(user_json(accounts(app).create_user(email, name)))
    except AccountError as err:
        raise CliError(str(err)) from err


@app_command(users, "list")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def users_list(app: AppContext, as_json: bool) -> None:
    """List users."""
    rows = accounts(app).list_users()
    if as_json:
        emit([user_json(u) for u in rows])
        return
    for u in rows:
        click.echo(f"{u.id}\t{u.email}\t{u.name}")


def register(cli: click.Group) -> None:
    cli.add_command(users)
