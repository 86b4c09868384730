"""`renamerd connect PROVIDER --connection NAME`: authorise an account, store its refresh token.

The provider's class does the talking (`connect_flow`: Google loopback redirect, Dropbox PKCE code
paste, Microsoft device code) and returns a refresh token; this command checks the connection and
the secrets key first, so nobody goes through a consent page for nothing, then stores the token
encrypted with `secrets_store`.
"""

from __future__ import annotations

from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, app_command
from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import ConnectorError, load_connector, resolve_options
from renamerd.service import secrets as secrets_store


def find_connection(settings: Settings, name: str) -> ConnectionSettings:
    """The configured connection called `name`. Raises CliError naming the configured ones."""
    for conn in settings.connections:
        if conn.name == name:
            return conn
    known = ", ".join(c.name for c in settings.connections) or "none"
    where = settings.source_file or "the embedded defaults"
    raise CliError(f"unknown connection {name!r} in {where} (configured: {known})")


def connect_flow(provider: str) -> Any:
    """The provider class's `connect_flow` classmethod. Raises CliError when the provider is
    unknown, its extra is missing, or it has no interactive flow."""
    try:
        cls = load_connector(provider)
    except ConnectorError as err:
        raise CliError(str(err)) from err
    flow = getattr(cls, "connect_flow", None)
    if not callable(flow):
        raise CliError(f"provider {provider!r} has no account to connect")
    return flow


def register(cli: click.Group) -> None:
    @app_command(cli, "connect")
    @click.argument("provider", metavar="gdrive|dropbox|onedrive")
    @click.option("--connection", "connection", required=True, metavar="NAME",
                  help="the [[connections]] entry to authorise")
    def connect(app: AppContext, provider: str, connection: str) -> None:
        """Authorise an account for a connection and store its refresh token, encrypted.

        Runs the provider's sign-in for a person at a terminal (Google: browser and loopback
        redirect; Dropbox: paste a code; Microsoft: device code). Needs the secrets key
        (RENAMERD_SECRETS__KEY, [secrets] key_file or key). Running it again replaces the token.
        """
        settings = app.settings
        conn = find_connection(settings, connection)
        if conn.provider != provider:
            raise CliError(
                f"connection {connection!r} uses provider {conn.provider!r}, not {provider!r}; "
                f"run: renamerd connect {conn.provider} --connection {connection}"
            )
        try:
            secrets_store.fernet(settings)
        except secrets_store.SecretsKeyError as err:
            raise CliError(str(err)) from err
        flow = connect_flow(provider)
        try:
            options = resolve_options(conn.options)
        except ConnectorError as err:
            raise CliError(f"connection {connection!r}: {err}") from err

        def prompt(text: str) -> str:
            return str(click.prompt(text, type=str))

        try:
            token = flow(options, echo=click.echo, prompt=prompt)
        except ConnectorError as err:
            raise CliError(f"connecting {connection!r} failed: {err}") from err
        if not isinstance(token, str) or not token:
            raise CliError(f"provider {provider!r} returned no refresh token")
        secrets_store.store_refresh_token(app.db, settings, conn.name, token)
        click.echo(f"connection {connection!r} is connected; its refresh token is stored "
                   "encrypted in the database")
        if "refresh_token" in conn.options or "refresh_token_file" in conn.options:
            click.echo("note: the refresh_token set in the config takes precedence over the "
                       "stored one; remove it from [connections.options] to use this one")
