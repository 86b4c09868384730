"""The `renamerd` command. Each command group lives in its own module under `commands/`,
exposing `register(cli: click.Group)`; this file only wires them together.

Every command takes `--config FILE` and `--verbose` (before or after the command name). Errors
print one line on stderr and exit non-zero: 2 for a bad config or bad usage, 1 for anything else
(`commands.errors.describe` words them); `--verbose` adds the traceback.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, config_option
from renamerd.commands.errors import describe

#: command modules, in help order; each has `register(cli)`
COMMAND_MODULES = [
    "renamerd.commands.database",
    "renamerd.commands.doctor",
    "renamerd.commands.users",
    "renamerd.commands.tokens",
    "renamerd.commands.credits",
    "renamerd.commands.teams",
    "renamerd.commands.connect",
    "renamerd.commands.api",
    "renamerd.commands.daemon",
    "renamerd.commands.reload",
    "renamerd.commands.jobs",
    "renamerd.commands.rename",
    "renamerd.commands.evaluate",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@config_option
@click.version_option(package_name="renamerd")
@click.pass_context
def cli(ctx: click.Context, /, **_: Any) -> None:
    """renamerd: rename and file documents in local folders and cloud drives."""
    ctx.ensure_object(AppContext)


for _module in COMMAND_MODULES:
    importlib.import_module(_module).register(cli)


def main(argv: list[str] | None = None) -> None:
    app = AppContext()
    try:
        cli.main(args=argv, prog_name="renamerd", standalone_mode=False, obj=app)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.UsageError as err:
        click.echo(f"error: {err.format_message()}", err=True)
        sys.exit(2)
    except CliError as err:
        _fail(app, err, err.message, err.exit_code)
    except click.ClickException as err:
        _fail(app, err, err.format_message(), err.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as err:  # one line for anything else; --verbose shows where
        message, code = describe(err, app)
        _fail(app, err, message, code)


def _fail(app: AppContext, err: BaseException, message: str, code: int) -> None:
    if app.verbose:
        traceback.print_exception(err, file=sys.stderr)
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
