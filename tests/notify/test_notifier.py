"""Who is told what, once a day: switches, opt-outs, the day's claim across processes and
restarts, the facts of each kind, the digest; delivered to a real SMTP server and webhook."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from notify_servers import SmtpServer, WebhookReceiver
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.notify import Notifier, opted_out, set_opt_out
from renamerd.storage.database import Database
from renamerd.storage.models import Job, NotificationSent, utcnow

from .conftest import SECRET


class Clock:
    def __init__(self) -> None:
        self.now = utcnow().replace(hour=12)

    def __call__(self) -> Any:
        return self.now


def _settings(db: Database, smtp: SmtpServer | None, webhook: WebhookReceiver | None,
              **notify: Any) -> Settings:
    mail = {"host": smtp.host, "port": smtp.port, "starttls": False, "timeout_s": 5,
            "from": "renamerd@example.org"} if smtp else {}
    hook = {"webhook_url": webhook.url, "webhook_secret": SECRET,
            "webhook_allow_networks": ["127.0.0.1/32"]} if webhook else {}
    return Settings(database={"url": db.url}, mail=mail,
                    notify={"retry_backoff_s": 0, **hook, **notify},
                    server={"public_url": "https://renamerd.example.org"})


def _pending_job(db: Database, owner: str, n: int) -> None:
    with db.write_session() as s:
        s.add(Job(connection="inbox", owner_id=owner, file_id=f"f{n}", revision="1",
                  source_path=f"/in/f{n}.pdf", name=f"f{n}.pdf", state="pending_credits"))


def test_one_message_per_kind_user_and_day_across_processes(
        db: Database, smtp: SmtpServer, webhook: WebhookReceiver) -> None:
    settings = _settings(db, smtp, webhook)
    user = Accounts(db, Settings(credits={"signup_grant": 0})).create_user("ada@example.org")
    for n in range(3):
        _pending_job(db, user.id, n)
    clock = Clock()
    first, second = Notifier(db, settings, now=clock), Notifier(db, settings, now=clock)
    assert first.notify(user.id, "pending_credits") == "sent"
    assert first.notify(user.id, "pending_credits") == "already"  # same process
    assert second.notify(user.id, "pending_credits") == "already"  # another process
    assert Notifier(db, settings, now=clock).notify(user.id, "pending_credits") == "already"
    (mail,) = smtp.messages
    assert mail["To"] == "ada@example.org"
    assert mail["Subject"] == "renamerd: 3 documents wait for credits"
    assert "https://renamerd.example.org" in mail.get_payload()
    (delivery,) = webhook.deliveries
    assert delivery["event"] == "pending_credits" and delivery["user"]["email"] == "ada@example.org"
    assert delivery["data"]["pending"] == 3 and delivery["data"]["credits"] == 0
    # another kind the same day, and the same kind the next day
    assert second.notify(user.id, "connection_stopped",
                         {"connection": "gd", "provider": "gdrive", "error": "revoked"}) == "sent"
    clock.now += timedelta(days=1)
    assert second.notify(user.id, "pending_credits") == "sent"
    assert len(smtp.messages) == 3 and len(webhook.deliveries) == 3
    assert "sign in again" in smtp.messages[1]["Subject"]
    with db.session() as s:
        rows = s.query(NotificationSent).all()
    assert sorted((r.kind, r.status) for r in rows) == [
        ("connection_stopped", "sent"), ("pending_credits", "sent"), ("pending_credits", "sent")]


def test_switches_opt_outs_and_no_channel(db: Database, smtp: SmtpServer) -> None:
    user = Accounts(db).create_user("ada@example.org")
    assert Notifier(db, Settings(database={"url": db.url})).notify(
        user.id, "pending_credits") == "off"  # no channel configured
    off = _settings(db, smtp, None, pending_credits=False)
    assert Notifier(db, off).notify(user.id, "pending_credits") == "off"
    on = _settings(db, smtp, None)
    set_opt_out(db, user.id, "pending_credits")
    set_opt_out(db, user.id, "pending_credits")  # idempotent
    assert opted_out(db, user.id, "pending_credits")
    assert Notifier(db, on).notify(user.id, "pending_credits") == "opted_out"
    set_opt_out(db, user.id, "pending_credits", out=False)
    assert Notifier(db, on).notify(user.id, "pending_credits") == "sent"
    with pytest.raises(ValueError):
        set_opt_out(db, user.id, "nonsense")
    assert not smtp.messages[1:]


def test_a_failed_delivery_is_recorded_and_not_repeated_that_day(
        db: Database, smtp: SmtpServer) -> None:
    settings = _settings(db, smtp, None, retries=1)
    user = Accounts(db).create_user("ada@example.org")
    smtp.fail_next = 2  # the first try and its one retry
    notifier = Notifier(db, settings, sleep=lambda _s: None)
    assert notifier.notify(user.id, "connection_failing",
                           {"connection": "x", "failures": 5, "error": "503"}) == "failed"
    assert Notifier(db, settings).notify(user.id, "connection_failing") == "already"
    with db.session() as s:
        (row,) = s.query(NotificationSent).all()
    assert row.status == "failed" and "451" in (row.error or "")


def test_the_weekly_digest_lists_what_was_renamed(db: Database, smtp: SmtpServer) -> None:
    settings = _settings(db, smtp, None, digest=True)
    accounts = Accounts(db)
    ada, bob = accounts.create_user("ada@example.org"), accounts.create_user("bob@example.org")
    now = utcnow()
    with db.write_session() as s:
        for n, (owner, age) in enumerate([(ada.id, 1), (ada.id, 3), (ada.id, 9), (bob.id, 10)]):
            s.add(Job(connection="inbox", owner_id=owner, file_id=f"f{n}", revision="1",
                      source_path=f"/in/f{n}.pdf", name=f"f{n}.pdf", state="done",
                      dest_path=f"/lib/2024/doc-{n}.pdf", finished_at=now - timedelta(days=age)))
    notifier = Notifier(db, settings)
    assert notifier.send_digests() == 1  # bob renamed nothing this week
    assert notifier.send_digests() == 0  # once a day
    (mail,) = smtp.messages
    assert mail["To"] == "ada@example.org" and "2 documents renamed" in mail["Subject"]
    body = mail.get_payload()
    assert "doc-0.pdf" in body and "doc-1.pdf" in body and "doc-2.pdf" not in body
    assert Notifier(db, _settings(db, smtp, None)).send_digests() == 0  # digest off
