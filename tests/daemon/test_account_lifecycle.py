"""The account life cycle: disable pauses the user's queued jobs and stops polling their
connections (enable resumes them); delete removes everything of theirs but the anonymous
credit ledger; a config-file connection owner cannot be deleted."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from sqlmodel import col, func, select

from clirun import run_cli
from renamerd.runtime.poller import Poller
from renamerd.service import jobs as J
from renamerd.service.accounts import AccountError, NotFoundError
from renamerd.service.credits import Credits
from renamerd.service.job_views import describe_error
from renamerd.service.user_admin import PAUSED_UNTIL, UserAdmin, is_deleted
from renamerd.service.web_sessions import WebSessions
from renamerd.storage.models import ApiToken, CreditLedger, Job, JournalEntry, User, WebSession

from .conftest import Rig
from .fakes import doc


def test_disable_pauses_jobs_and_polls_enable_resumes_them(rig: Rig) -> None:
    rig.drive.put("/inbox/a.pdf", doc("2024-03-01", "Acme"))
    rig.drive.put("/inbox/b.pdf", doc("2024-03-02", "Acme"))
    assert rig.poll() == 2
    admin = UserAdmin(rig.db)
    admin.set_disabled(rig.owner.email, True)
    assert rig.run_all() == []  # paused: nothing is claimed, nothing fails
    jobs = rig.queue.find()
    assert {j.state for j in jobs} == {J.QUEUED}
    assert all(j.next_attempt_at.replace(tzinfo=PAUSED_UNTIL.tzinfo) == PAUSED_UNTIL
               for j in jobs)
    words = describe_error(jobs[0].state, jobs[0].error) or ""
    assert words.startswith("paused")
    # the daemon does not poll a disabled owner's folders
    rig.drive.put("/inbox/c.pdf", doc("2024-03-03", "Acme"))
    poller = Poller(rig.settings, rig.db, rig.queue, rig.pool, "test", threading.Event())
    poller.owners = {"mem": rig.owner.id}
    assert poller.poll("mem") == 0 and len(rig.queue.find()) == 2
    admin.set_disabled(rig.owner.email, False)
    assert poller.poll("mem") == 1
    assert sorted(rig.run_all()) == [J.DONE, J.DONE, J.DONE]
    assert Credits(rig.db).balance(rig.owner.id) == 97


def test_delete_keeps_only_the_anonymous_books(rig: Rig) -> None:
    accounts = rig.accounts
    _, token = accounts.create_token(rig.owner.email, "laptop")
    WebSessions(rig.db).start(rig.owner.id)
    rig.drive.put("/inbox/a.pdf", doc("2024-03-01", "Acme"))
    rig.poll()
    assert rig.run_all() == [J.DONE]
    other = accounts.create_user("other@example.com", "Other")
    with pytest.raises(AccountError, match="owns connections in the config"):
        UserAdmin(rig.db).delete(rig.owner.email, rig.settings)
    tomb = UserAdmin(rig.db).delete(rig.owner.email)
    assert is_deleted(tomb) and tomb.name == "" and tomb.disabled
    assert accounts.authenticate(token) is None
    with rig.db.session() as s:
        for table, column in ((Job, Job.owner_id), (ApiToken, ApiToken.user_id),
                              (WebSession, WebSession.user_id)):
            n = s.exec(select(func.count()).select_from(table).where(
                col(column) == rig.owner.id)).one()
            assert n == 0, table
        assert s.exec(select(func.count()).select_from(JournalEntry)).one() == 0
        ledger = s.exec(select(CreditLedger).where(CreditLedger.user_id == rig.owner.id)).all()
        assert sum(e.delta for e in ledger) == 99  # the grant and the charge, still adding up
        assert "owner@example.com" not in {u.email for u in s.exec(select(User)).all()}
    assert [u.email for u in accounts.list_users()] == [other.email]
    with pytest.raises(NotFoundError):
        UserAdmin(rig.db).delete("owner@example.com")


def test_users_delete_on_the_command_line(db_url: str, tmp_path: Path, capsys,
                                          monkeypatch) -> None:
    cfg = tmp_path / "renamerd.toml"
    cfg.write_text(f'[database]\nurl = "{db_url}"\n')
    assert run_cli(capsys, "--config", str(cfg), "users", "create", "gone@example.org").code == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    r = run_cli(capsys, "--config", str(cfg), "users", "delete", "gone@example.org")
    assert r.code == 2 and "--yes" in r.err
    r = run_cli(capsys, "--config", str(cfg), "users", "delete", "gone@example.org", "--yes")
    assert r.code == 0 and "deleted" in r.out
    r = run_cli(capsys, "--config", str(cfg), "users", "list")
    assert "gone@example.org" not in r.out and "deleted.invalid" not in r.out
    r = run_cli(capsys, "--config", str(cfg), "users", "delete", "gone@example.org", "--yes")
    assert r.code == 1 and "no user" in r.err
