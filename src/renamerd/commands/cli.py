"""The `renamerd` command. Each command group lives in its own module under `commands/`,
exposing `register(cli: click.Group)`; this file only wires them together.

Every command takes `--config FILE` (before or after the command name). Errors print one line
and exit non-zero: 2 for a bad config or bad usage, 1 for anything else.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, config_option

#: command modules, in help order; each has `register(cli)`
COMMAND_MODULES = [
    "renamerd.commands.database",
    "renamerd.commands.users",
    "renamerd.commands.tokens",
    "renamerd.commands.credits",
    "renamerd.commands.teams",
    "renamerd.commands.connect",
    "renamerd.commands.api",
    "renamerd.commands.daemon",
    "renamerd.commands.jobs",
    "renamerd.commands.engine",
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
    try:
        cli.main(args=argv, prog_name="renamerd", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.UsageError as err:
        click.echo(f"error: {err.format_message()}", err=True)
        sys.exit(2)
    except CliError as err:
        click.echo(f"error: {err.message}", err=True)
        sys.exit(err.exit_code)
    except click.ClickException as err:
        click.echo(f"error: {err.format_message()}", err=True)
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
