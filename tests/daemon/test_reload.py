"""Reload without loss: SIGHUP (and `renamerd reload`) sent to a real `renamerd run` while it
renames a batch; the config change (a second connection, a new log level) is applied live,
every document is renamed exactly once, the process stays up, and a broken file on reload
keeps the running config. Plus the reload plan itself (pure)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from sqlmodel import func, select

from renamerd.config import Settings
from renamerd.runtime import reload as reloading
from renamerd.service import jobs as J
from renamerd.storage.database import Database
from renamerd.storage.models import Job

from .e2e import drop, invoice_pdf, renamerd, renamerd_cli, sha, stop, wait_for, write_config

N = 60


def _conn(name: str, inbox: Path, library: Path) -> dict[str, object]:
    return {"name": name, "provider": "local", "owner": "owner@example.com",
            "watch": str(inbox), "target": str(library), "strategy": "by_date_type",
            "poll_seconds": 0.5, "options": {"stable_checks": 1}}


def _done(db: Database) -> int:
    with db.session() as s:
        return int(s.exec(select(func.count()).select_from(Job).where(
            Job.state == J.DONE)).one())


@pytest.mark.slow
def test_sighup_during_a_batch_loses_nothing_and_applies_the_change(tmp_path: Path) -> None:
    inbox, library = tmp_path / "inbox", tmp_path / "library"
    inbox2, library2 = tmp_path / "inbox2", tmp_path / "library2"
    for d in (inbox, library, inbox2, library2):
        d.mkdir()
    originals = set()
    for i in range(N):
        data = invoice_pdf(i)
        originals.add(sha(data))
        (inbox / f"scan_{i:03d}.pdf").write_bytes(data)
    db_url = f"sqlite:///{tmp_path / 'renamerd.db'}"
    config_path = tmp_path / "config.toml"
    state = tmp_path / "state"
    write_config(config_path, db_url=db_url, state=state, signup=1000,
                 connections=[_conn("inbox", inbox, library)])
    log = tmp_path / "renamerd.log"
    db = Database(db_url)
    db.upgrade()
    proc = renamerd("run", config=config_path, log=log)
    try:
        wait_for(lambda: _done(db) >= 3, 120, "first renames", proc)
        for _ in range(3):  # several reloads while the batch runs
            proc.send_signal(signal.SIGHUP)
            time.sleep(0.3)
        assert proc.poll() is None, "SIGHUP ended the process"
        # a second connection, by editing the file and asking for a reload
        write_config(config_path, db_url=db_url, state=state, signup=1000,
                     connections=[_conn("inbox", inbox, library),
                                  _conn("second", inbox2, library2)])
        config_path.write_text(config_path.read_text().replace(
            '[logging]\nformat = "json"', '[logging]\nformat = "json"\nlevel = "DEBUG"'))
        wait_for(lambda: _done(db) >= 8, 120, "more renames", proc)
        answer = renamerd_cli("reload", config=config_path)
        assert answer.returncode == 0, answer.stderr
        assert "reload requested" in answer.stdout
        wait_for(lambda: "connection 'second' added" in log.read_text(), 30,
                 "the reload logged", proc)
        extra = invoice_pdf(N + 1)
        drop(inbox2 / "late.pdf", extra)
        # a broken file on reload: logged, the running config kept
        good = config_path.read_text()
        config_path.write_text(good + "\n[server\nbroken")
        proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "the running config is kept" in log.read_text(), 30,
                 "the broken reload logged", proc)
        config_path.write_text(good)
        wait_for(lambda: _done(db) == N + 1, 240, "all done", proc)
        assert proc.poll() is None
        assert stop(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    text = log.read_text()
    assert "[logging] changed: applied" in text
    assert os.listdir(inbox) == [] and os.listdir(inbox2) == []
    filed = [p for p in library.rglob("*") if p.is_file()]
    assert len(filed) == N and {sha(p.read_bytes()) for p in filed} == originals
    assert [sha(p.read_bytes()) for p in library2.rglob("*") if p.is_file()] == [sha(extra)]
    with db.session() as s:
        assert dict(s.exec(select(Job.state, func.count()).group_by(Job.state)).all()) == {
            J.DONE: N + 1}
    db.dispose()


def test_the_plan_says_what_is_live_and_what_needs_a_restart() -> None:
    conn = {"name": "a", "provider": "local", "owner": "o@example.com", "watch": "/in",
            "target": "/out"}
    old = Settings(connections=[conn], limits={"burst_per_minute": 10})
    new = Settings(connections=[{**conn, "strategy": "by_date"},
                                {**conn, "name": "b"}],
                   limits={"burst_per_minute": 20, "storage_url": "redis://x"},
                   server={"port": 9999}, logging={"level": "DEBUG"})
    what = reloading.plan(old, new)
    assert what.added == ["b"] and what.changed == ["a"] and what.removed == []
    assert set(what.live) == {"limits", "logging"}
    assert set(what.restart) == {"server", "limits.storage_url"}
    lines = reloading.describe(what)
    assert "connection 'b' added" in lines and any("until a restart" in x for x in lines)
    reloading.apply(old, new, what)
    assert old.limits.burst_per_minute == 20 and old.limits.storage_url == ""
    assert old.server.port == 8080 and [c.name for c in old.connections] == ["a", "b"]
    assert reloading.describe(reloading.plan(old, old)) == ["nothing changed"]


def test_reload_with_no_process_running_says_so(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'r.db'}"
    config_path = write_config(tmp_path / "config.toml", db_url=db_url, state=tmp_path / "s",
                               connections=[])
    Database(db_url).upgrade()
    answer = renamerd_cli("reload", config=config_path)
    assert answer.returncode == 1 and "no renamerd process is running" in answer.stderr
