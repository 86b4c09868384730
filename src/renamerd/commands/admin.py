"""Admin commands: db, users, tokens, credits, teams. Output is JSON where scripts read it."""

from __future__ import annotations

import json
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, app_command
from renamerd.service.accounts import AccountError, Accounts, TeamView
from renamerd.service.credits import Credits, CreditsError
from renamerd.storage.models import ApiToken, User


def user_json(user: User) -> dict[str, Any]:
    return {"id": user.id, "email": user.email, "name": user.name}


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def token_json(token: ApiToken) -> dict[str, Any]:
    return {
        "id": token.id, "label": token.label, "hint": token.hint + "…",
        "created_at": _iso(token.created_at), "last_used_at": _iso(token.last_used_at),
        "revoked_at": _iso(token.revoked_at),
    }


def team_json(view: TeamView) -> dict[str, Any]:
    return {
        "id": view.team.id, "name": view.team.name,
        "members": [user_json(u) for u in view.members],
    }


def emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def accounts(app: AppContext) -> Accounts:
    return Accounts(app.db, app.settings)


def register(cli: click.Group) -> None:
    @cli.group()
    def db() -> None:
        """Database schema."""

    @app_command(db, "upgrade")
    def db_upgrade(app: AppContext) -> None:
        """Apply pending migrations (also done at every start)."""
        app.db.upgrade()
        click.echo(f"database at revision {app.db.current_revision()}")

    @cli.group()
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

    @cli.group()
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

    @cli.group()
    def credits() -> None:
        """Grant and show credits."""

    @app_command(credits, "grant")
    @click.argument("email")
    @click.argument("amount", type=int)
    @click.option("--valid-days", type=int, default=None, help="default: credits.validity_days")
    @click.option("--reason", default="", help="kept in the ledger")
    @click.option("--source", type=click.Choice(["grant", "purchase"]), default="grant")
    def credits_grant(
        app: AppContext, email: str, amount: int, valid_days: int | None, reason: str, source: str
    ) -> None:
        """Grant credits; pending jobs of the user (at most 30 days old) resume at once."""
        acc = accounts(app)
        try:
            user = acc.get_user(email)
            lot = acc.credits.grant(
                user.id, amount, source=source, valid_days=valid_days, reason=reason
            )
        except (AccountError, CreditsError) as err:
            raise CliError(str(err)) from err
        emit({
            "email": user.email, "granted": lot.amount, "expires_at": _iso(lot.expires_at),
            "credits": acc.credits.balance(user.id),
        })

    @app_command(credits, "show")
    @click.argument("email")
    def credits_show(app: AppContext, email: str) -> None:
        """Balance, lots and the latest ledger entries of a user, as JSON."""
        acc = accounts(app)
        try:
            user = acc.get_user(email)
        except AccountError as err:
            raise CliError(str(err)) from err
        cr: Credits = acc.credits
        emit({
            "email": user.email,
            "credits": cr.balance(user.id),
            "metered": cr.enabled,
            "lots": [
                {"id": lot.id, "source": lot.source, "amount": lot.amount,
                 "remaining": lot.remaining, "granted_at": _iso(lot.granted_at),
                 "expires_at": _iso(lot.expires_at), "reason": lot.reason}
                for lot in cr.lots(user.id)
            ],
            "ledger": [
                {"at": _iso(e.created_at), "delta": e.delta, "kind": e.kind, "ref": e.ref,
                 "reason": e.reason}
                for e in cr.ledger(user.id, limit=20)
            ],
        })

    @cli.group()
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
