"""Done-when: an owner with 5 credits and 8 documents gets 5 renamed and 3 pending_credits;
`renamerd credits grant` (another process) renames the 3 within one poll interval without a
restart; a pending job created 31 days ago stays pending until `renamerd jobs retry`."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import Job, User, utcnow

from .e2e import drop, invoice_pdf, renamerd, renamerd_cli, stop, wait_for, write_config

POLL_S = 3.0


def states(db: Database) -> dict[str, int]:
    return {k: v for k, v in J.JobQueue(db).counts().items() if v}


@pytest.mark.slow
def test_grant_resumes_pending_jobs_and_old_ones_wait_for_retry(tmp_path: Path) -> None:
    inbox, library = tmp_path / "inbox", tmp_path / "library"
    inbox.mkdir()
    for i in range(8):
        (inbox / f"doc{i}.pdf").write_bytes(invoice_pdf(i))
    db_url = f"sqlite:///{tmp_path / 'renamerd.db'}"
    config = write_config(
        tmp_path / "config.toml", db_url=db_url, state=tmp_path / "state", signup=5,
        connections=[{"name": "inbox", "provider": "local", "owner": "owner@example.com",
                      "watch": str(inbox), "target": str(library), "poll_seconds": POLL_S,
                      "options": {"stable_checks": 1}}],
    )
    db = Database(db_url)
    db.upgrade()
    proc = renamerd("worker", config=config, log=tmp_path / "renamerd.log")
    try:
        wait_for(lambda: states(db) == {J.DONE: 5, J.PENDING_CREDITS: 3}, 60, "5 done, 3 pending",
                 proc)
        time.sleep(POLL_S)  # nothing moves while credits are missing
        assert states(db) == {J.DONE: 5, J.PENDING_CREDITS: 3}

        pending_ids = [j.id for j in J.JobQueue(db).find(state=J.PENDING_CREDITS)]
        grant = renamerd_cli("credits", "grant", "owner@example.com", "10", config=config)
        assert grant.returncode == 0, grant.stderr
        wait_for(lambda: states(db) == {J.DONE: 8}, POLL_S, "the 3 renamed", proc)
        # from the grant's commit to the last of the 3 filed, by the database's clocks
        lot = max(Credits(db).lots(_owner(db).id), key=lambda lot: lot.granted_at)
        finished = max(J.JobQueue(db).get(i or 0).finished_at for i in pending_ids)
        woke_in = (finished - lot.granted_at).total_seconds()
        assert 0 < woke_in <= POLL_S

        # 8 more documents for the 7 credits left: 7 done, 1 pending; it is 31 days old
        for i in range(8, 16):
            drop(inbox / f"doc{i}.pdf", invoice_pdf(i))  # the daemon is watching
        wait_for(lambda: states(db) == {J.DONE: 15, J.PENDING_CREDITS: 1}, 60, "15 done", proc)
        with db.write_session() as s:
            old = s.exec(select(Job).where(Job.state == J.PENDING_CREDITS)).one()
            old.created_at = utcnow() - timedelta(days=31)
            s.add(old)
        grant = renamerd_cli("credits", "grant", "owner@example.com", "10", config=config)
        assert grant.returncode == 0, grant.stderr
        time.sleep(POLL_S + 1)
        assert states(db) == {J.DONE: 15, J.PENDING_CREDITS: 1}  # too old to resume itself
        listed = renamerd_cli("jobs", "list", "--state", "pending_credits", "--json",
                              config=config)
        assert [j["id"] for j in json.loads(listed.stdout)] == [old.id]
        retry = renamerd_cli("jobs", "retry", str(old.id), config=config)
        assert retry.returncode == 0 and "queued 1 job" in retry.stdout
        wait_for(lambda: states(db) == {J.DONE: 16}, 2 * POLL_S, "the old one renamed", proc)
        assert stop(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert Credits(db).balance(_owner(db).id) == 5 + 10 + 10 - 16
    assert list(inbox.iterdir()) == []
    print(f"grant woke the pending jobs and renamed them in {woke_in:.2f}s")
    db.dispose()


def _owner(db: Database) -> User:
    with db.session() as s:
        return s.exec(select(User).where(User.email == "owner@example.com")).one()
