"""`renamerd teams`: teams and their members."""

from __future__ import annotations

import click

from renamerd.commands.context import AppContext, CliError, accounts, app_command
from renamerd.commands.output import emit, team_json
from renamerd.service.accounts import AccountError


@click.group()
def teams() -> None:
    """Teams: a user is in at most one."""


@app_command(teams, "create")
@click.argument("name")
def teams_create(app: AppContext, name: str) -> None:
    """Create a team and print it as JSON."""
    try:
        team = accounts(app).create_team(name)
    except AccountError as err:
        raise CliError(str(err)) from err
    emit({"id": team.id, "name": team.name, "members": []})


@app_command(teams, "add-member")
@click.argument("team")
@click.argument("email")
def teams_add(app: AppContext, team: str, email: str) -> None:
    """Add a user to a team (by team name or id)."""
    try:
        emit(team_json(accounts(app).add_member(team, email)))
    except AccountError as err:
        raise CliError(str(err)) from err


@app_command(teams, "remove-member")
@click.argument("team")
@click.argument("email")
def teams_remove(app: AppContext, team: str, email: str) -> None:
    """Remove a user from a team."""
    try:
        emit(team_json(accounts(app).remove_member(team, email)))
    except AccountError as err:
        raise CliError(str(err)) from err


@app_command(teams, "list")
def teams_list(app: AppContext) -> None:
    """All teams with their members, as JSON."""
    emit([team_json(v) for v in accounts(app).list_teams()])


def register(cli: click.Group) -> None:
    cli.add_command(teams)
