"""What a CLI command needs: settings and database, opened lazily, and the error it raises.

With `--verbose` (before or after the command name) a command says on stderr which config file
and which database it uses (password hidden), and an error comes with its traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from renamerd.config import ConfigFileError, Settings, hide_password, load_settings
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database, open_database

F = TypeVar("F", bound=Callable[..., Any])


class CliError(click.ClickException):
    """One clear line for the user; exit code 1 unless told otherwise."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it on the class


class AppContext:
    def __init__(self) -> None:
        self.config_path: str | None = None
        self.verbose = False
        #: the config file the settings came from, absolute (None: embedded defaults)
        self.loaded_from: str | None = None
        self._settings: Settings | None = None
        self._db: Database | None = None

    @property
    def settings(self) -> Settings:
        """The settings (read once). Raises CliError (exit code 2) for a bad config."""
        if self._settings is None:
            try:
                self._settings = load_settings(self.config_path)
            except ConfigFileError as err:
                raise CliError(str(err), exit_code=2) from err
            source = self._settings.source_file
            self.loaded_from = str(Path(source).resolve()) if source else None
            self.say(f"config: {self.loaded_from or 'embedded defaults (no config file found)'}")
        return self._settings

    @property
    def db(self) -> Database:
        """The database, migrated to head (opened once). Its errors are SQLAlchemy's, mapped
        to one line by `commands.errors.describe`."""
        if self._db is None:
            self.say(f"database: {hide_password(self.settings.database.url)}")
            self._db = open_database(self.settings)
        return self._db

    def say(self, line: str) -> None:
        """Print `line` on stderr with --verbose."""
        if self.verbose:
            click.echo(f"renamerd: {line}", err=True)


def _remember_config(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    app = ctx.ensure_object(AppContext)
    if value:
        app.config_path = value


def _remember_verbose(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(AppContext).verbose = True


def config_option(fn: F) -> F:
    """`--config FILE` and `--verbose`, accepted on the group and on every command."""
    fn = click.option(
        "--verbose", "-v", "verbose", is_flag=True, expose_value=False, is_eager=True,
        callback=_remember_verbose,
        help="say which config file and database are used; tracebacks with errors",
    )(fn)
    return click.option(
        "--config", "config", metavar="FILE", expose_value=False, is_eager=True,
        callback=_remember_config,
        help="config file (default: $RENAMERD_CONFIG, ./config.toml, /etc/renamerd/config.toml)",
    )(fn)


def app_command(group: click.Group | None = None, name: str | None = None, **kwargs: Any
                ) -> Callable[[F], F]:
    """Decorator: a command (of `group`, or a top-level one to `add_command` when no group is
    given) that receives the AppContext as first argument and takes `--config`."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kw: Any) -> Any:
            return fn(click.get_current_context().ensure_object(AppContext), *args, **kw)

        make = group.command if group is not None else click.command
        return make(name, **kwargs)(config_option(wrapper))  # type: ignore[return-value]

    return decorate


def accounts(app: AppContext) -> Accounts:
    """The account service on the command's database and settings."""
    return Accounts(app.db, app.settings)
