"""`renamerd users`: create, list, passwords, invitations, the admin flag, disable/enable,
unlock (sign-in), delete."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from renamerd.commands.context import AppContext, CliError, accounts, app_command
from renamerd.commands.output import emit, user_json
from renamerd.service.accounts import AccountError
from renamerd.storage.models import User

if TYPE_CHECKING:
    from renamerd.service.sign_in_limits import SignInThrottle


@click.group()
def users() -> None:
    """Create and list users; passwords, invitations, admins."""


def _user(app: AppContext, email: str) -> User:
    try:
        return accounts(app).get_user(email)
    except AccountError as err:
        raise CliError(str(err)) from err


@app_command(users, "create")
@click.argument("email")
@click.option("--name", default="", help="display name")
@click.option("--admin", is_flag=True, help="give the user the admin flag (the Admin page)")
def users_create(app: AppContext, email: str, name: str, admin: bool) -> None:
    """Create a user (with the signup credits) and print it as JSON."""
    from renamerd.service.user_admin import UserAdmin

    try:
        user = accounts(app).create_user(email, name)
        if admin:
            user = UserAdmin(app.db).set_admin(user.email)
    except AccountError as err:
        raise CliError(str(err)) from err
    emit(user_json(user))


@app_command(users, "list")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def users_list(app: AppContext, as_json: bool) -> None:
    """List users."""
    rows = accounts(app).list_users()
    if as_json:
        emit([user_json(u) for u in rows])
        return
    for u in rows:
        flags = ",".join(f for f, on in (("admin", u.is_admin), ("disabled", u.disabled)) if on)
        click.echo(f"{u.id}\t{u.email}\t{u.name}\t{flags}".rstrip())


def _read_password() -> str:
    """One line from stdin; on a terminal, asked twice without echo."""
    if sys.stdin.isatty():
        value: str = click.prompt("New password", hide_input=True, confirmation_prompt=True)
        return value
    line = sys.stdin.readline()
    if not line:
        raise CliError("no password on standard input (give it as one line)", exit_code=2)
    return line.rstrip("\r\n")


@app_command(users, "set-password")
@click.argument("email")
def users_set_password(app: AppContext, email: str) -> None:
    """Set the web password (one line from stdin; on a terminal it is asked twice, hidden).
    Ends the user's web sessions."""
    from renamerd.service.passwords import Passwords
    from renamerd.service.web_sessions import WebSessions

    user = _user(app, email)
    password = _read_password()
    try:
        Passwords(app.db).set_password(user.id, password)
    except AccountError as err:
        raise CliError(str(err)) from err
    ended = WebSessions(app.db, app.settings.web).end_all(user.id)
    click.echo(f"password set for {user.email}" + (f"; {ended} session(s) ended" if ended else ""))


@app_command(users, "invite")
@click.argument("email")
def users_invite(app: AppContext, email: str) -> None:
    """Print a one-time link (valid web.invite_days, 7) where the user picks a password;
    creates the user (with the signup credits) when missing."""
    from renamerd.service.invites import Invites

    try:
        user = accounts(app).ensure_user(email)
    except AccountError as err:
        raise CliError(str(err)) from err
    if user.disabled:
        raise CliError(f"{user.email} is disabled; enable it first")
    invites = Invites(app.db, app.settings)
    token = invites.create(user.id)
    click.echo(f"invitation for {user.email}, valid {app.settings.web.invite_days} days, "
               "usable once:", err=True)
    click.echo(invites.link(token))


@app_command(users, "set-admin")
@click.argument("email")
@click.option("--off", is_flag=True, help="take the admin flag away")
def users_set_admin(app: AppContext, email: str, off: bool) -> None:
    """Give a user the admin flag (or take it with --off)."""
    from renamerd.service.user_admin import UserAdmin

    try:
        user = UserAdmin(app.db).set_admin(email, not off)
    except AccountError as err:
        raise CliError(str(err)) from err
    click.echo(f"{user.email} is {'no longer ' if off else ''}an admin")


def _set_disabled(app: AppContext, email: str, disabled: bool) -> User:
    from renamerd.service.user_admin import UserAdmin

    try:
        return UserAdmin(app.db).set_disabled(email, disabled)
    except AccountError as err:
        raise CliError(str(err)) from err


@app_command(users, "disable")
@click.argument("email")
def users_disable(app: AppContext, email: str) -> None:
    """Disable a user: sign-in, web sessions and API tokens are refused, their connections
    are not polled and their queued jobs pause (until `users enable`)."""
    click.echo(f"{_set_disabled(app, email, True).email} is disabled; their queued jobs "
               "are paused")


@app_command(users, "enable")
@click.argument("email")
def users_enable(app: AppContext, email: str) -> None:
    """Enable a disabled user again (tokens work again, paused jobs resume; sessions stay
    ended)."""
    click.echo(f"{_set_disabled(app, email, False).email} is enabled")


def _unlock_account(throttle: SignInThrottle, email: str) -> str:
    """Clear the account's failed sign-ins; what was done, in one line."""
    lock = throttle.lockouts([email]).get(email)
    forgotten = throttle.clear_account(email)
    if lock is None:
        return f"{email} was not locked out; {forgotten} failed sign-in(s) forgotten"
    where = "from every address" if lock.everywhere else "at " + ", ".join(lock.addresses)
    return (f"{email} may sign in again: it was locked out {where} until "
            f"{lock.until:%Y-%m-%d %H:%M} UTC; {forgotten} failed sign-in(s) forgotten")


@app_command(users, "unlock")
@click.argument("email", required=False)
@click.option("--address", default=None, metavar="ADDRESS",
              help="unlock this client address instead (every account's sign-in from it)")
def users_unlock(app: AppContext, email: str | None, address: str | None) -> None:
    """Lift a sign-in lock at once: forget the user's failed sign-ins (from every address),
    or with --address those from one client address (over every account)."""
    import ipaddress

    from renamerd.config import hide_password
    from renamerd.service.sign_in_limits import SignInThrottle

    if (email is None) == (address is None):
        raise CliError("give an e-mail or --address, not both", exit_code=2)
    if address is not None:
        address = address.strip()
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise CliError(f"{address!r} is not an IP address", exit_code=2) from None
    user = _user(app, email) if email is not None else None  # unknown: told so first
    throttle = SignInThrottle(app.settings.limits, app.settings.web)
    if throttle.in_process:
        raise CliError("limits.storage_url is empty: the failed sign-ins are counted in the "
                       "memory of the running renamerd process, out of this command's reach; "
                       + ("unlock in the web app (Admin, Unlock sign-in) or " if user else "")
                       + "restart renamerd (set limits.storage_url to a Redis to unlock here)")
    try:
        if user is not None:
            click.echo(_unlock_account(throttle, user.email))
        else:
            forgotten = throttle.clear_address(address or "")
            click.echo(f"{address} may sign in again: {forgotten} failed sign-in(s) from it "
                       "forgotten (over all accounts, and each account's there)")
    except throttle.storage.base_exceptions as err:
        url = hide_password(app.settings.limits.storage_url)
        raise CliError(f"the limits storage {url} is unreachable ({err}): is it running, "
                       "and is limits.storage_url right?") from err
    finally:
        throttle.close()


@app_command(users, "delete")
@click.argument("email")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
def users_delete(app: AppContext, email: str, yes: bool) -> None:
    """Delete a user: tokens, sessions, invitations, jobs and their history go; the credit
    ledger keeps anonymous entries. Not undoable."""
    import sys

    from renamerd.service.user_admin import UserAdmin

    if not yes:
        if not sys.stdin.isatty():
            raise CliError("deleting an account cannot be undone: add --yes", exit_code=2)
        click.confirm(f"Delete {email} and everything of theirs? This cannot be undone",
                      abort=True)
    try:
        UserAdmin(app.db).delete(email, app.settings)
    except AccountError as err:
        raise CliError(str(err)) from err
    click.echo(f"{email} is deleted")


def register(cli: click.Group) -> None:
    cli.add_command(users)
