"""`renamerd tokens`: create, list and revoke API tokens."""

from __future__ import annotations

import click

from renamerd.commands.context import AppContext, CliError, accounts, app_command
from renamerd.commands.output import emit, token_json
from renamerd.service.accounts import AccountError


@click.group()
def tokens() -> None:
    """Create, list and revoke API tokens."""


@app_command(tokens, "create")
@click.argument("email")
@click.option("--label", default="", help="what the token is for")
def tokens_create(app: AppContext, email: str, label: str) -> None:
    """Create a token. It is shown once, alone on the last line; only its hash is stored."""
    try:
        row, token = accounts(app).create_token(email, label)
    except AccountError as err:
        raise CliError(str(err)) from err
    click.echo(f"token id {row.id} for {email}; store it now, it will not be shown again:", err=True)
    click.echo(token)


@app_command(tokens, "list")
@click.argument("email")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def tokens_list(app: AppContext, email: str, as_json: bool) -> None:
    """List a user's tokens (never the tokens themselves)."""
    try:
        rows = accounts(app).list_tokens(email)
    except AccountError as err:
        raise CliError(str(err)) from err
    if as_json:
        emit([token_json(t) for t in rows])
        return
    for t in rows:
        state = f"revoked {t.revoked_at:%Y-%m-%d}" if t.revoked_at else "active"
        used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never used"
        click.echo(f"{t.id}\t{t.hint}…\t{state}\t{used}\t{t.label}")


@app_command(tokens, "revoke")
@click.argument("token_id")
def tokens_revoke(app: AppContext, token_id: str) -> None:
    """Revoke a token by its id (see `tokens list`)."""
    try:
        row = accounts(app).revoke_token(token_id)
    except AccountError as err:
        raise CliError(str(err)) from err
    click.echo(f"revoked {row.id}")


def register(cli: click.Group) -> None:
    cli.add_command(tokens)
