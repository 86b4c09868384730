"""Who is told what, once a day: the kinds' switches, the opt-outs, the day's claim, then the
message by e-mail and webhook."""

from __future__ import annotations

import logging
import posixpath
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select

from renamerd.config import Settings
from renamerd.service.credits import Credits
from renamerd.service.egress import Resolver
from renamerd.service.jobs.states import DONE, PENDING_CREDITS
from renamerd.service.notify import ledger
from renamerd.service.notify.mail import send_mail
from renamerd.service.notify.messages import KINDS, Message, build
from renamerd.service.notify.retry import PermanentFailure, TransientFailure
from renamerd.service.notify.webhook import deliver
from renamerd.storage.database import Database
from renamerd.storage.models import Job, User, utcnow

log = logging.getLogger("renamerd.notify")

#: names a digest lists at most
DIGEST_NAMES = 20
DIGEST_DAYS = 7


class Notifier:
    """Sends notifications for one database and settings. Thread-safe; `notify` blocks while
    delivering (retries included): callers in busy threads hand it to a thread of its own."""

    def __init__(self, db: Database, settings: Settings, *, now: Callable[[], datetime] = utcnow,
                 sleep: Callable[[float], None] = time.sleep,
                 resolver: Resolver | None = None) -> None:
        self.db = db
        self.settings = settings
        self.now = now
        self.sleep = sleep
        self.resolver = resolver
        #: (user, kind, day) known to be claimed already: no database read for repeats
        self._done: set[tuple[str, str, str]] = set()
        self._lock = threading.Lock()

    @property
    def has_channel(self) -> bool:
        """Whether notifications can go anywhere (a mail server or a webhook is configured)."""
        return bool(self.settings.mail.host or self.settings.notify.webhook_url)

    def wants(self, kind: str) -> bool:
        """Whether `kind` is switched on ([notify] <kind>) and a channel is configured."""
        return self.has_channel and bool(getattr(self.settings.notify, kind, False))

    def notify(self, user_id: str, kind: str, facts: dict[str, Any] | None = None) -> str:
        """Tell the user about `kind` unless already told today. Returns what happened: "sent",
        "failed" (delivery failed after its retries; logged, not tried again today), "already",
        "off" (kind switched off or no channel), "opted_out" or "no_user". Never raises for a
        delivery problem."""
        if kind not in KINDS:
            raise ValueError(f"unknown notification kind {kind!r}")
        if not self.wants(kind):
            return "off"
        now = self.now()
        key = (user_id, kind, now.date().isoformat())
        with self._lock:
            if key in self._done:
                return "already"
            if any(day != key[2] for _u, _k, day in self._done):  # a new day: forget the old
                self._done = {k for k in self._done if k[2] == key[2]}
        outcome = self._notify(user_id, kind, dict(facts or {}), now)
        if outcome != "no_user":
            with self._lock:
                self._done.add(key)
        return outcome

    def _notify(self, user_id: str, kind: str, facts: dict[str, Any], now: datetime) -> str:
        if ledger.opted_out(self.db, user_id, kind):
            return "opted_out"
        with self.db.session() as s:
            user = s.get(User, user_id)
        if user is None:
            return "no_user"
        claim = ledger.claim(self.db, user_id, kind, now)
        if claim is None:
            return "already"
        facts = {**self._facts(user_id, kind, now), **facts}
        message = build(kind, facts, self.settings.server.base_url)
        errors = self._deliver(user, message, now)
        ledger.finish(self.db, claim, "; ".join(errors) or None)
        if errors:
            log.error("notification %s to user %s failed: %s", kind, user_id, "; ".join(errors))
            return "failed"
        log.info("notification %s sent to user %s", kind, user_id)
        return "sent"

    def _deliver(self, user: User, message: Message, now: datetime) -> list[str]:
        errors = []
        notify = self.settings.notify
        if self.settings.mail.host:
            try:
                send_mail(self.settings.mail, user.email, message.subject, message.text,
                          retries=notify.retries, backoff_s=notify.retry_backoff_s,
                          sleep=self.sleep)
            except (PermanentFailure, TransientFailure) as err:
                errors.append(f"mail: {err}")
        if notify.webhook_url:
            payload = {"id": str(uuid.uuid4()), "event": message.kind,
                       "created_at": now.isoformat(),
                       "user": {"id": user.id, "email": user.email},
                       "subject": message.subject, "text": message.text, "data": message.data}
            try:
                deliver(notify, payload, resolver=self.resolver, sleep=self.sleep)
            except (PermanentFailure, TransientFailure) as err:
                errors.append(f"webhook: {err}")
        return errors

    def _facts(self, user_id: str, kind: str, now: datetime) -> dict[str, Any]:
        """What the message of `kind` says besides the caller's facts, read now."""
        facts: dict[str, Any] = {"credits": Credits(self.db, self.settings.credits).balance(
            user_id)}
        with self.db.session() as s:
            if kind == "pending_credits":
                facts["pending"] = s.exec(select(func.count()).select_from(Job).where(
                    Job.owner_id == user_id, Job.state == PENDING_CREDITS)).one()
            elif kind == "digest":
                since = now - timedelta(days=DIGEST_DAYS)
                done = select(Job).where(Job.owner_id == user_id, Job.state == DONE,
                                         col(Job.finished_at) >= since)
                facts["renamed"] = s.exec(select(func.count()).select_from(
                    done.subquery())).one()
                rows = s.exec(done.order_by(col(Job.finished_at).desc()).limit(DIGEST_NAMES))
                facts["names"] = [posixpath.basename(j.dest_path or j.name) for j in rows]
        return facts

    def send_digests(self) -> int:
        """The weekly digest to every user with documents renamed in the last 7 days (once a
        day at most: safe to run from several processes). Returns how many were sent."""
        if not self.wants("digest"):
            return 0
        since = self.now() - timedelta(days=DIGEST_DAYS)
        with self.db.session() as s:
            owners = list(s.exec(select(Job.owner_id).where(
                Job.state == DONE, col(Job.finished_at) >= since).distinct()))
        return sum(self.notify(owner, "digest") == "sent" for owner in owners)
