"""`renamerd tokens`: create, list and revoke API tokens."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, accounts, app_command
from renamerd.commands.output import emit, token_json
from renamerd.service.accounts import AccountError
from renamerd.storage.models import utcnow

_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


class Duration(click.ParamType):  # type: ignore[type-arg]  # (generic in click 8.2+)
    """`90d`, `12h`, `30m` (days, hours, minutes) as a timedelta."""

    name = "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> timedelta:
        if isinstance(value, timedelta):
            return value
        match = re.fullmatch(r"\s*(\d+)\s*([dhm])\s*", str(value))
        if match is None or int(match.group(1)) == 0:
            self.fail(f"{value!r} is not a duration like 90d, 12h or 30m", param, ctx)
        return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


@click.group()
def tokens() -> None:
    """Create, list and revoke API tokens."""


@app_command(tokens, "create")
@click.argument("email")
@click.option("--label", default="", help="what the token is for")
@click.option("--expires-in", "expires_in", type=Duration(), default=None,
              help="lifetime: 90d, 12h, 30m (default: tokens.max_lifetime_days, else never)")
def tokens_create(app: AppContext, email: str, label: str, expires_in: timedelta | None) -> None:
    """Create a token. It is shown once, alone on the last line; only its hash is stored."""
    try:
        row, token = accounts(app).create_token(email, label, expires_in)
    except AccountError as err:
        raise CliError(str(err)) from err
    until = f", expires {row.expires_at:%Y-%m-%d %H:%M} UTC" if row.expires_at else ""
    click.echo(f"token id {row.id} for {email}{until}; store it now, it will not be shown again:",
               err=True)
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
    now = utcnow()
    for t in rows:
        if t.revoked_at:
            state = f"revoked {t.revoked_at:%Y-%m-%d}"
        elif t.expires_at and t.expires_at <= now:
            state = f"expired {t.expires_at:%Y-%m-%d}"
        else:
            state = "active"
        expiry = f"expires {t.expires_at:%Y-%m-%d %H:%M}" if t.expires_at else "no expiry"
        used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never used"
        click.echo(f"{t.id}\t{t.hint}…\t{state}\t{expiry}\t{used}\t{t.label}")


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
