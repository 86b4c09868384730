"""Done-when: 300 documents, `renamerd run` killed with SIGKILL at five random moments and
restarted; every document ends in the library exactly once, the inbox is empty, every job is done,
and the owner was charged exactly 300 credits. Real process, real engine, local folders."""

from __future__ import annotations

import os
import random
import signal
import tomllib
from pathlib import Path

import httpx
import pytest
from sqlmodel import col, func, select

from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge, Job, User

from .e2e import METRICS_TOKEN, invoice_pdf, renamerd, sha, stop, wait_for, write_config

N = 300


def count_state(db: Database, state: str) -> int:
    with db.session() as s:
        return int(s.exec(select(func.count()).select_from(Job).where(Job.state == state)).one())


@pytest.mark.slow
def test_sigkill_five_times_every_document_exactly_once(tmp_path: Path) -> None:
    inbox, library = tmp_path / "inbox", tmp_path / "library"
    inbox.mkdir()
    library.mkdir()
    originals = set()
    for i in range(N):
        data = invoice_pdf(i)
        originals.add(sha(data))
        (inbox / f"scan_{i:03d}.pdf").write_bytes(data)
    db_url = f"sqlite:///{tmp_path / 'renamerd.db'}"
    config = write_config(
        tmp_path / "config.toml", db_url=db_url, state=tmp_path / "state", signup=1000,
        connections=[{"name": "inbox", "provider": "local", "owner": "owner@example.com",
                      "watch": str(inbox), "target": str(library), "strategy": "by_date_type",
                      "poll_seconds": 0.5, "options": {"stable_checks": 1}}],
    )
    log = tmp_path / "renamerd.log"
    db = Database(db_url)
    db.upgrade()
    rng = random.Random(20261122)
    kill_points = sorted(rng.sample(range(5, N - 5), 5))
    proc = renamerd("run", config=config, log=log)
    try:
        for point in kill_points:
            wait_for(lambda p=point: _done(db) >= p, 180, f"{point} done", proc)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            proc = renamerd("run", config=config, log=log)
        wait_for(lambda: _done(db) == N, 240, "all done", proc)
        port = tomllib.loads(config.read_text())["server"]["port"]
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: _get(f"{base}/readyz") == 200, 30, "/readyz", proc)
        assert httpx.get(f"{base}/metrics").status_code == 401
        metrics = httpx.get(f"{base}/metrics",
                            headers={"Authorization": f"Bearer {METRICS_TOKEN}"}).text
        assert f'renamerd_jobs{{state="done"}} {N}.0' in metrics
        assert stop(proc) == 0  # SIGTERM: a clean exit
    finally:
        if proc.poll() is None:
            proc.kill()
    assert sorted(os.listdir(inbox)) == []
    filed = [p for p in library.rglob("*") if p.is_file()]
    assert len(filed) == N
    assert {sha(p.read_bytes()) for p in filed} == originals  # each exactly once
    with db.session() as s:
        states = dict(s.exec(select(Job.state, func.count()).group_by(Job.state)).all())
        assert states == {J.DONE: N}
        owner = s.exec(select(User).where(User.email == "owner@example.com")).one()
        charged = s.exec(select(func.count()).select_from(CreditCharge).where(
            CreditCharge.user_id == owner.id, col(CreditCharge.state) == "charged")).one()
        assert charged == N
    assert Credits(db).balance(owner.id) == 1000 - N
    db.dispose()


def _done(db: Database) -> int:
    return count_state(db, J.DONE)


def _get(url: str) -> int:
    try:
        return httpx.get(url, timeout=2).status_code
    except httpx.HTTPError:
        return 0
