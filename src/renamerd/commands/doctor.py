"""`renamerd doctor`: check the whole installation, one line per check."""

from __future__ import annotations

import sys

import click

from renamerd.commands.context import AppContext, app_command


def register(cli: click.Group) -> None:
    @app_command(cli, "doctor")
    def doctor(app: AppContext) -> None:
        """Check the installation: config, database (reachable, migrated), secrets key,
        tesseract and its languages, the OCR backend, each connection's credentials,
        server.public_url, mail and webhook, free space. One line per check (ok, warning,
        error, with what to do); exit code 1 when any check is an error, else 0."""
        from renamerd.runtime.doctor import ERROR, WARNING, run_checks

        findings = run_checks(app.config_path)
        for finding in findings:
            click.echo(finding.line())
        errors = sum(f.level == ERROR for f in findings)
        warnings = sum(f.level == WARNING for f in findings)
        click.echo(f"{len(findings)} checks: {errors} error(s), {warnings} warning(s)", err=True)
        sys.exit(1 if errors else 0)
