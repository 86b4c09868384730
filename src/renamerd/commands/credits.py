"""`renamerd credits`: grant, deduct and show credits."""

from __future__ import annotations

import click

from renamerd.commands.context import AppContext, CliError, accounts, app_command
from renamerd.commands.output import emit, iso
from renamerd.service.accounts import AccountError
from renamerd.service.credits import Credits, CreditsError
from renamerd.service.deductions import deduct


@click.group()
def credits() -> None:
    """Grant, deduct and show credits."""


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
        "email": user.email, "granted": lot.amount, "expires_at": iso(lot.expires_at),
        "credits": acc.credits.balance(user.id),
    })


@app_command(credits, "deduct")
@click.argument("email")
@click.argument("amount", type=click.IntRange(min=1))
@click.option("--reason", required=True, help="why (a refunded purchase...); kept in the ledger")
def credits_deduct(app: AppContext, email: str, amount: int, reason: str) -> None:
    """Take credits away (refund of a purchase): from the lots that expire first, never below
    zero; ledgered as kind "deduct"."""
    acc = accounts(app)
    try:
        user = acc.get_user(email)
        left = deduct(acc.credits, user.id, amount, reason=reason)
    except (AccountError, CreditsError) as err:
        raise CliError(f"{email}: {err}" if "balance" in str(err) else str(err)) from err
    emit({"email": user.email, "deducted": amount, "credits": left})


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
             "remaining": lot.remaining, "granted_at": iso(lot.granted_at),
             "expires_at": iso(lot.expires_at), "reason": lot.reason}
            for lot in cr.lots(user.id)
        ],
        "ledger": [
            {"at": iso(e.created_at), "delta": e.delta, "kind": e.kind, "ref": e.ref,
             "reason": e.reason}
            for e in cr.ledger(user.id, limit=20)
        ],
    })


def register(cli: click.Group) -> None:
    cli.add_command(credits)
