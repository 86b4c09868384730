"""Issue 14, item 4: a server killed with SIGKILL in the middle of API renames leaves their
credits `reserved`; the next start refunds them, exactly once. Real `renamerd serve` processes,
the real engine, SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from sqlmodel import col, func, select

from notify_servers import free_port
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge
from security import hostile as h

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("engine-bounds")]

RENAMES = 3


def serve(config: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RENAMERD_")}
    return subprocess.Popen(
        [sys.executable, "-m", "renamerd.commands.cli", "serve", "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        start_new_session=True)


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def count(db: Database, state: str) -> int:
    with db.session() as s:
        return int(s.exec(select(func.count()).select_from(CreditCharge)
                          .where(col(CreditCharge.state) == state)).one())


def reserved(db: Database) -> int:
    return count(db, "reserved")


def test_kill_9_mid_rename_then_restart_gives_the_credits_back(db: Database,
                                                             tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[server]\nhost = "127.0.0.1"\nport = {port}\n'
        f'[database]\nurl = "{db.url}"\n[logging]\nlevel = "WARNING"\n'
        '[credits]\nsignup_grant = 10\nreservation_grace_s = 0\n'
        '[engine]\nworkers = 1\ndeadline_seconds = 1\n'
        f'[daemon]\nstate_dir = "{tmp_path / "state"}"\n')
    settings = Settings(database={"url": db.url}, credits={"signup_grant": 10})
    accounts = Accounts(db, settings)
    user = accounts.create_user("victim@example.org", "Victim")
    _, token = accounts.create_token(user.email)
    auth = {"Authorization": f"Bearer {token}"}
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(f"{url}/api/v1/credits", headers=auth).status_code == 200
        except httpx.TransportError:
            return False

    slow = h.pdf_dates_line(70_000)  # ~0.7 s of engine work each; one worker: they queue

    def rename() -> None:
        with contextlib.suppress(httpx.TransportError):  # the server is killed under it
            httpx.post(f"{url}/api/v1/rename", headers=auth, timeout=30,
                       files={"file": ("slow.pdf", slow, "application/pdf")})

    proc = serve(config)
    try:
        wait_for(up, 60, "the server")
        clients = [threading.Thread(target=rename) for _ in range(RENAMES)]
        for t in clients:
            t.start()
        # (a request reserves its credit when its turn at the engine comes: one at a time)
        wait_for(lambda: reserved(db) >= 1, 30, "the reservation")
        os.killpg(proc.pid, signal.SIGKILL)  # the server and its engine workers
        proc.wait(10)
        for t in clients:
            t.join(30)
        lost = reserved(db)
        charged = count(db, "charged")  # a rename that finished before the kill
        kept = count(db, "refunded")  # ... or finished keeping its name (nothing charged)
        assert lost >= 1 and lost + charged + kept <= RENAMES  # the others had not started
        assert accounts.credits.balance(user.id) == 10 - lost - charged
        time.sleep(1.2)  # older than grace (0) + the engine's deadline (1 s)
        proc = serve(config)
        wait_for(up, 60, "the restarted server")
        wait_for(lambda: reserved(db) == 0, 10, "the refund")
        assert accounts.credits.balance(user.id) == 10 - charged
        assert count(db, "refunded") == lost + kept
        time.sleep(0.5)
        assert accounts.credits.balance(user.id) == 10 - charged  # once
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(15)
