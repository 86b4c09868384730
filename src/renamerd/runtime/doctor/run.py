"""The order of the checks, and what each needs from the ones before it."""

from __future__ import annotations

import os

from renamerd.config import ConfigFileError, Settings, load_settings
from renamerd.runtime.doctor import local, ocr, remote
from renamerd.runtime.doctor.findings import Finding, error, warning
from renamerd.storage.database import Database


def run_checks(config_path: str | os.PathLike[str] | None = None) -> list[Finding]:
    """Every check of the installation whose config is found as commands find it (an explicit
    `config_path`, $RENAMERD_CONFIG, ./config.toml, /etc/renamerd/config.toml). Read-only."""
    try:
        settings = load_settings(config_path)
    except ConfigFileError as err:
        return [error("config", f"{err}; fix it (every key: docs/configuration.md)")]
    findings = [local.check_config(settings)]
    db, found = local.check_database(settings)
    findings += found
    try:
        findings += _with_settings(settings, db)
    finally:
        if db is not None:
            db.dispose()
    return findings


def _with_settings(settings: Settings, db: Database | None) -> list[Finding]:
    findings: list[Finding] = []
    if db is not None:
        findings.append(local.check_secrets(settings, db))
    findings.append(ocr.check_tesseract(settings))
    findings.append(ocr.check_backend(settings))
    if db is not None:
        findings += remote.check_connections(settings, db)
    elif settings.connections:
        findings.append(warning("connections", "not checked: they need the database (above)"))
    findings.append(remote.check_public_url(settings))
    findings += remote.check_notifications(settings)
    findings += local.check_folders(settings)
    return findings
