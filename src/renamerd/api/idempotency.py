"""`Idempotency-Key` for the rename endpoints: a retry replays the first answer, charged once.

`IdempotencyStore.begin(user, key, request_hash)` claims the key in the `idempotency_records`
table (unique per user and key) before any work is done:

* a new key (or one older than 24 h): claimed, the caller proceeds -> `Claim(replay=None)`;
* a finished key with the same request: `Claim(replay=(status, body))`, nothing is redone;
* a key still being worked on by another request: `KeyInUse` (the API answers 429, retry later);
  a claim older than `STALE_CLAIM` is taken over (its holder died);
* a key used for a different request (other file or options): `KeyMismatch` (400).

`finish` stores the successful answer; `abandon` drops the claim after a failure, so a retry
with the same key is processed afresh (failures cost nothing and are not replayed). The credit
charge uses the key as its reference, so even a replay race cannot charge twice.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, delete, select

from renamerd.storage.database import Database
from renamerd.storage.models import IdempotencyRecord, utcnow

TTL = timedelta(hours=24)
#: a claim not finished after this long belongs to a request that died
STALE_CLAIM = timedelta(minutes=15)
MAX_KEY_LENGTH = 255
#: expired records are deleted at most this often (seconds, per process)
PURGE_EVERY_S = 3600.0


class KeyInUse(Exception):
    """Another request with this key is still running."""


class KeyMismatch(Exception):
    """The key was used for a different request."""


@dataclass(frozen=True)
class Claim:
    key: str
    replay: tuple[int, dict[str, Any]] | None = None


def request_hash(*parts: str) -> str:
    """A stable digest of what identifies a request (endpoint, options, content digest)."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class IdempotencyStore:
    """Idempotency records on one database. Every method is its own transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._last_purge = 0.0

    def _maybe_purge(self) -> None:
        """Purge expired records at most once an hour per process (from `begin`)."""
        now = time.monotonic()
        if now - self._last_purge >= PURGE_EVERY_S or self._last_purge == 0.0:
            self._last_purge = now
            self.purge()

    def begin(self, user_id: str, key: str, req_hash: str) -> Claim:
        """Claim `key` for this request or return the stored answer (see the module doc).

        Raises KeyInUse, KeyMismatch. Safe to repeat: the same finished request replays.
        """
        self._maybe_purge()
        now = utcnow()
        for _attempt in range(3):
            try:
                with self.db.write_session() as s:
                    row = _find(s, user_id, key)
                    if row is not None:
                        created = row.created_at
                        if created.tzinfo is None:  # SQLite hands back naive UTC
                            created = created.replace(tzinfo=UTC)
                        expired = now - created > TTL
                        stale = row.status_code == 0 and now - created > STALE_CLAIM
                        if not (expired or stale):
                            if row.request_hash != req_hash:
                                raise KeyMismatch(key)
                            if row.status_code == 0:
                                raise KeyInUse(key)
                            return Claim(key, (row.status_code, json.loads(row.body)))
                        s.delete(row)
                        s.flush()
                    s.add(IdempotencyRecord(
                        user_id=user_id, key=key, request_hash=req_hash, created_at=now
                    ))
                return Claim(key)
            except IntegrityError:  # a concurrent claim of the same key won the insert
                continue
        raise KeyInUse(key)

    def finish(self, user_id: str, key: str, status: int, body: dict[str, Any]) -> None:
        """Store the answer to replay. Idempotent."""
        with self.db.write_session() as s:
            row = _find(s, user_id, key)
            if row is not None:
                row.status_code = status
                row.body = json.dumps(body)
                s.add(row)

    def abandon(self, user_id: str, key: str) -> None:
        """Drop an unfinished claim so that a retry starts over. Idempotent."""
        with self.db.write_session() as s:
            s.exec(  # type: ignore[call-overload]
                delete(IdempotencyRecord).where(
                    col(IdempotencyRecord.user_id) == user_id,
                    col(IdempotencyRecord.key) == key,
                    col(IdempotencyRecord.status_code) == 0,
                )
            )

    def purge(self) -> int:
        """Delete records older than 24 h; returns how many. Safe to run any time."""
        with self.db.write_session() as s:
            result = s.exec(  # type: ignore[call-overload]
                delete(IdempotencyRecord).where(col(IdempotencyRecord.created_at) < utcnow() - TTL)
            )
            return int(result.rowcount or 0)


def _find(s: Session, user_id: str, key: str) -> IdempotencyRecord | None:
    """The user's record for `key`, if any."""
    return s.exec(
        select(IdempotencyRecord).where(
            IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == key
        )
    ).first()
