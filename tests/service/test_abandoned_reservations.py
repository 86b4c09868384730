"""Credits reserved by an API request whose process died are refunded, once, after
`credits.abandoned_after_s`; charged ones, young ones and the daemon's job charges are not."""

from __future__ import annotations

import contextlib
import signal
import threading
import tomllib
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlmodel import col, select, update

from renamerd.config import CreditsSettings
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits, refund_abandoned
from renamerd.storage.database import Database
from renamerd.storage.models import CreditCharge, CreditLedger, utcnow


def _age(db: Database, ref: str, seconds: float) -> None:
    with db.write_session() as s:
        s.exec(update(CreditCharge).where(col(CreditCharge.ref) == ref)  # type: ignore[call-overload]
               .values(updated_at=utcnow() - timedelta(seconds=seconds)))


def test_abandoned_reservations_are_refunded_once(db: Database) -> None:
    user = Accounts(db).create_user("crash@example.org", "Crash")
    credits = Credits(db, CreditsSettings(signup_grant=50))
    for ref in ("req:dead", "idem:dead-key", "req:young", "req:done", "job:7"):
        credits.reserve(user.id, ref)
    credits.commit(user.id, "req:done")
    for ref in ("req:dead", "idem:dead-key", "req:done", "job:7"):
        _age(db, ref, 3600)
    assert credits.balance(user.id) == 45
    assert refund_abandoned(credits, 900) == 2
    assert credits.balance(user.id) == 47
    assert credits.charge_state(user.id, "req:dead") == "refunded"
    assert credits.charge_state(user.id, "req:young") == "reserved"
    assert credits.charge_state(user.id, "req:done") == "charged"
    assert credits.charge_state(user.id, "job:7") == "reserved"  # the job settles it
    assert refund_abandoned(credits, 900) == 0
    with db.session() as s:
        refunds = s.exec(select(CreditLedger).where(CreditLedger.kind == "refund")).all()
    assert len(refunds) == 2 and all("interrupted" in r.reason for r in refunds)


def test_two_processes_reconciling_at_once_refund_each_once(db: Database) -> None:
    user = Accounts(db).create_user("race@example.org", "Race")
    credits = Credits(db, CreditsSettings(signup_grant=50))
    refs = [f"req:r{i}" for i in range(20)]
    for ref in refs:
        credits.reserve(user.id, ref)
        _age(db, ref, 3600)
    counts: list[int] = []
    threads = [threading.Thread(target=lambda: counts.append(
        refund_abandoned(Credits(db, CreditsSettings()), 900))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sum(counts) == 20
    assert credits.balance(user.id) == 50


@pytest.mark.slow
def test_a_server_killed_mid_rename_gives_the_credit_back_after_restart(tmp_path: Path) -> None:
    """A real `renamerd serve`, killed with SIGKILL while it reads a scan: the credit stays
    reserved; once it is older than abandoned_after_s, the next start refunds it."""
    from daemon.e2e import renamerd, renamerd_cli, wait_for, write_config
    from engine.docmaker import make_scan

    db_url = f"sqlite:///{tmp_path / 'r.db'}"
    config = write_config(tmp_path / "config.toml", db_url=db_url, state=tmp_path / "s",
                          connections=[])
    db = Database(db_url)
    db.upgrade()
    user = Accounts(db).create_user("kill@example.org", "Kill")
    _, token = Accounts(db).create_token(user.email)
    port = int(tomllib.loads(config.read_text())["server"]["port"])
    scan = make_scan(["ACME GmbH", "Invoice RE-1", "Invoice date: 01.03.2024"] * 12, dpi=300)
    proc = renamerd("serve", config=config, log=tmp_path / "serve.log")
    try:
        wait_for(lambda: _up(port), 60, "the API", proc)

        def post() -> None:
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(f"http://127.0.0.1:{port}/api/v1/rename",
                           headers={"Authorization": f"Bearer {token}"},
                           files={"file": ("scan.png", scan, "image/png")}, timeout=60)

        t = threading.Thread(target=post, daemon=True)
        t.start()
        credits = Credits(db)
        wait_for(lambda: credits.balance(user.id) == 49, 30, "the reservation", proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        t.join(10)
        with db.session() as s:
            [charge] = s.exec(select(CreditCharge)).all()
        assert charge.state == "reserved" and credits.balance(user.id) == 49
        _age(db, charge.ref, 3600)  # as if the admin restarted it much later
        proc = renamerd("serve", config=config, log=tmp_path / "serve.log")
        wait_for(lambda: credits.balance(user.id) == 50, 60, "the refund", proc)
        assert renamerd_cli("credits", "show", "kill@example.org", config=config).returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    db.dispose()


def _up(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
