"""Notifications from a running daemon: jobs waiting for credits, a stopped connection, polls
failing again and again; to a real SMTP server and webhook receiver, once a day per kind."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from notify_servers import SmtpServer, WebhookReceiver, start_smtp, start_webhook
from renamerd.config import Settings
from renamerd.runtime import notifications
from renamerd.runtime.connector_pool import stop_connection
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database
from renamerd.storage.models import Job

from .e2e import invoice_pdf, renamerd, stop, wait_for, write_config

SECRET = "whsec-daemon"


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server, controller = start_smtp()
    yield server
    controller.stop()


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    receiver, httpd = start_webhook(SECRET)
    yield receiver
    httpd.shutdown()
    httpd.server_close()


def _notify_sections(smtp: SmtpServer, webhook: WebhookReceiver) -> str:
    return (f'[mail]\nhost = "127.0.0.1"\nport = {smtp.port}\nstarttls = false\n'
            'from = "renamerd@example.org"\n'
            f'[notify]\nwebhook_url = "{webhook.url}"\nwebhook_secret = "{SECRET}"\n'
            'webhook_allow_networks = ["127.0.0.1/32"]\nretry_backoff_s = 0.1\n')


@pytest.mark.slow
def test_jobs_waiting_for_credits_are_told_once_across_restarts(
        tmp_path: Path, smtp: SmtpServer, webhook: WebhookReceiver) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(3):
        (inbox / f"doc{i}.pdf").write_bytes(invoice_pdf(i))
    db_url = f"sqlite:///{tmp_path / 'renamerd.db'}"
    config = write_config(
        tmp_path / "config.toml", db_url=db_url, state=tmp_path / "state", signup=1,
        connections=[{"name": "inbox", "provider": "local", "owner": "owner@example.com",
                      "watch": str(inbox), "target": str(tmp_path / "library"),
                      "poll_seconds": 1, "options": {"stable_checks": 1}}])
    config.write_text(config.read_text() + _notify_sections(smtp, webhook))
    smtp.fail_next = 1  # the first delivery is refused once: retried
    webhook.statuses = [503]
    db = Database(db_url)
    db.upgrade()
    proc = renamerd("worker", config=config, log=tmp_path / "renamerd.log")
    try:
        wait_for(lambda: J.JobQueue(db).counts().get(J.PENDING_CREDITS) == 2, 60,
                 "2 jobs pending credits", proc)
        assert len(smtp.wait_for(1)) == 1 and len(webhook.wait_for(1)) == 1
        assert stop(proc) == 0
        (inbox / "doc9.pdf").write_bytes(invoice_pdf(9))  # another one after a restart
        proc = renamerd("worker", config=config, log=tmp_path / "renamerd.log")
        wait_for(lambda: J.JobQueue(db).counts().get(J.PENDING_CREDITS) == 3, 60,
                 "3 jobs pending credits", proc)
        time.sleep(2)
    finally:
        stop(proc)
    (mail,) = smtp.messages
    assert smtp.failed == 1 and mail["To"] == "owner@example.com"
    # the count is read when the first job waits: the second may still be running then
    assert mail["Subject"] in ("renamerd: 2 documents wait for credits",
                               "renamerd: 1 document waits for credits")
    (delivery,) = webhook.deliveries
    assert webhook.attempts == 2 and delivery["event"] == "pending_credits"
    assert delivery["data"]["pending"] in (1, 2) and webhook.bad_signatures == 0


def test_stopped_and_failing_connections_are_told_by_the_relay(
        db: Database, tmp_path: Path, smtp: SmtpServer, webhook: WebhookReceiver) -> None:
    settings = Settings(
        database={"url": db.url},
        mail={"host": "127.0.0.1", "port": smtp.port, "starttls": False},
        notify={"webhook_url": webhook.url, "webhook_secret": SECRET,
                "webhook_allow_networks": ["127.0.0.1/32"], "poll_failures": 3})
    owner = Accounts(db, settings).create_user("ada@example.org")
    relay = notifications.start(settings, db, lambda name: (owner.id, "gdrive"))
    try:
        stop_connection(db, "gd", "invalid_grant: token revoked")
        for _ in range(5):  # the third failure in a row tells; the others do not
            notifications.poll_failed("scans", "TransientError: 503")
        notifications.poll_succeeded("scans")
        job = Job(connection="gd", owner_id=owner.id, file_id="f", revision="1",
                  source_path="/f.pdf", name="f.pdf", state=J.PENDING_CREDITS)
        with db.write_session() as s:
            s.add(job)
        J.emit(job, J.RUNNING, J.PENDING_CREDITS)
        smtp.wait_for(3)
        webhook.wait_for(3)
    finally:
        relay.stop(10)
    subjects = sorted(m["Subject"] for m in smtp.messages)
    assert subjects == ["renamerd: 1 document waits for credits",
                        "renamerd: connection gd needs you to sign in again",
                        "renamerd: connection scans keeps failing"]
    events = sorted(d["event"] for d in webhook.deliveries)
    assert events == ["connection_failing", "connection_stopped", "pending_credits"]
    stopped = next(d for d in webhook.deliveries if d["event"] == "connection_stopped")
    assert stopped["data"]["error"] == "invalid_grant: token revoked"
    failing = next(d for d in webhook.deliveries if d["event"] == "connection_failing")
    assert failing["data"]["failures"] == 3
