"""Checks that reach out: each connection's provider (one cheap call), `server.public_url`, and
the notification channels (mail server, webhook address)."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from renamerd.config import ConnectionSettings, Settings
from renamerd.connectors import AuthError, ConnectorError, TransientError
from renamerd.runtime.connector_pool import ConnectorPool
from renamerd.runtime.doctor.findings import Finding, TimedOut, error, ok, warning, within
from renamerd.storage.database import Database
from renamerd.storage.models import ConnectionState

#: seconds one connection's check may take (its connector retries transient errors itself)
CONNECTION_TIMEOUT_S = 60.0
URL_TIMEOUT_S = 10.0


def check_connections(settings: Settings, db: Database) -> list[Finding]:
    """One finding per configured connection: its provider accepts the credentials (one cheap
    call, `stat_path` of the watched folder) and the connection is not stopped."""
    pool = ConnectorPool(settings, db)  # the config file's connections and the users'
    if not pool.by_name:
        pool.close()
        return [ok("connections", "none configured")]
    try:
        return [_check_connection(pool, db, conf) for conf in list(pool.by_name.values())]
    finally:
        pool.close()


def _check_connection(pool: ConnectorPool, db: Database, conf: ConnectionSettings) -> Finding:
    check = f"connection {conf.name}"
    if not conf.enabled:
        return ok(check, f"{conf.provider}: disabled (enabled = false)")
    try:
        within(CONNECTION_TIMEOUT_S, lambda: _probe(pool, conf))
    except AuthError as err:
        return error(check, f"{conf.provider} refused the credentials ({err}): run `renamerd "
                            f"connect {conf.provider} --connection {conf.name}`")
    except TransientError as err:
        return warning(check, f"{conf.provider} did not answer now ({err}): try again later")
    except TimedOut as err:
        return warning(check, f"{conf.provider}: {err}")
    except (ConnectorError, OSError) as err:
        return error(check, f"{conf.provider}: {err}")
    with db.session() as s:
        state = s.get(ConnectionState, conf.name)
    if state is not None and state.status == "stopped":
        return error(check, f"{conf.provider} answers now, but the service stopped the "
                            f"connection ({state.error}): restart the service to resume it")
    if conf.provider == "local":
        return ok(check, f"local: {conf.watch} readable, {conf.target_root} writable")
    return ok(check, f"{conf.provider}: credentials accepted; {conf.watch} checked")


def _probe(pool: ConnectorPool, conf: ConnectionSettings) -> None:
    """Open the connector (secrets resolved, stored token decrypted) and make one cheap call."""
    if conf.provider == "local":
        _check_local_folders(conf)
    connector = pool.open_new(conf.name)
    connector.stat_path(conf.watch)


def _check_local_folders(conf: ConnectionSettings) -> None:
    watch = Path(conf.watch)
    if not watch.is_dir():
        raise ConnectorError(f"the watched folder {watch} does not exist: create it")
    if not os.access(watch, os.R_OK | os.W_OK | os.X_OK):
        raise ConnectorError(f"{watch} is not readable and writable by this user")
    target = Path(conf.target_root)
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConnectorError(f"the target {target} is not writable by this user")


def check_public_url(settings: Settings) -> Finding:
    """`server.public_url` answers `/healthz` (when set)."""
    url = str(getattr(settings.server, "public_url", "") or "")
    if not url:
        return ok("public_url", "not set (server.public_url)")
    probe = url.rstrip("/") + "/healthz"
    try:
        response = httpx.get(probe, timeout=URL_TIMEOUT_S, follow_redirects=True)
    except httpx.HTTPError as err:
        return error("public_url", f"{probe} cannot be reached ({type(err).__name__}: {err}): "
                                   "is the service running, and the proxy in front of it?")
    if response.status_code != 200:
        return error("public_url", f"{probe} answered HTTP {response.status_code}: the "
                                   "address does not lead to this renamerd")
    return ok("public_url", f"{probe} answers")


def check_notifications(settings: Settings) -> list[Finding]:
    """The mail server accepts a session (and the login), the webhook address is allowed."""
    from renamerd.service.notify.mail import check_mail_server
    from renamerd.service.notify.webhook import check_webhook_address

    findings = []
    if settings.mail.host:
        problem = check_mail_server(settings.mail)
        where = f"{settings.mail.host}:{settings.mail.port}"
        findings.append(error("mail", f"{where}: {problem}") if problem else
                        ok("mail", f"{where} accepts a session"))
    if settings.notify.webhook_url:
        problem = check_webhook_address(settings.notify)
        findings.append(error("webhook", problem) if problem else
                        ok("webhook", f"{settings.notify.webhook_url} is an allowed address"))
    return findings
