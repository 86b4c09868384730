"""`renamerd users`: set-password (stdin or a hidden prompt), invite, create --admin,
set-admin, disable and enable, unlock (sign-in, through Redis)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from clirun import run_cli
from renamerd.config import LimitsSettings, Settings, WebSettings
from renamerd.service.accounts import Accounts
from renamerd.service.invites import Invites
from renamerd.service.limits import LimitExceeded
from renamerd.service.passwords import Passwords
from renamerd.service.sign_in_limits import SPREAD, SignInThrottle
from renamerd.service.web_sessions import WebSessions
from renamerd.storage.database import Database


@pytest.fixture
def cfg(db_url: str, tmp_path: Path) -> str:
    path = tmp_path / "renamerd.toml"
    path.write_text(f'[database]\nurl = "{db_url}"\n[server]\npublic_url = "https://docs.example.org"\n')
    return str(path)


def _db(cfg: str) -> Database:
    from renamerd.config import load_settings

    return Database(load_settings(cfg).database.url)


def test_set_password_reads_one_line_from_stdin(cfg: str, capsys, monkeypatch) -> None:
    assert run_cli(capsys, "--config", cfg, "users", "create", "ada@example.org").code == 0
    db = _db(cfg)
    user = Accounts(db).get_user("ada@example.org")
    session = WebSessions(db).start(user.id)
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse battery\nignored\n"))
    r = run_cli(capsys, "--config", cfg, "users", "set-password", "ada@example.org")
    assert r.code == 0 and "password set for ada@example.org; 1 session(s) ended" in r.out
    assert "correct horse" not in r.out + r.err
    assert Passwords(db).verify("ada@example.org", "correct horse battery") is not None
    assert WebSessions(db).resolve(session) is None
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    r = run_cli(capsys, "--config", cfg, "users", "set-password", "ada@example.org")
    assert r.code == 1 and "at least 8 characters" in r.err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert run_cli(capsys, "--config", cfg, "users", "set-password", "ada@example.org").code == 2
    r = run_cli(capsys, "--config", cfg, "users", "set-password", "nobody@example.org")
    assert r.code == 1 and "no user" in r.err
    db.dispose()


def test_set_password_on_a_terminal_asks_twice_without_echo(cfg: str, capsys, monkeypatch) -> None:
    run_cli(capsys, "--config", cfg, "users", "create", "ada@example.org")
    tty = io.StringIO()
    tty.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr("sys.stdin", tty)
    answers = iter(["a typed secret", "a typed secret"])
    asked: list[str] = []

    def getpass(prompt: str = "") -> str:
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr("getpass.getpass", getpass)
    r = run_cli(capsys, "--config", cfg, "users", "set-password", "ada@example.org")
    assert r.code == 0, r.err
    assert len(asked) == 2 and "a typed secret" not in r.out
    db = _db(cfg)
    assert Passwords(db).verify("ada@example.org", "a typed secret") is not None
    db.dispose()


def test_invite_creates_the_user_and_prints_a_link_under_public_url(cfg: str, capsys) -> None:
    r = run_cli(capsys, "--config", cfg, "users", "invite", "new@example.org")
    assert r.code == 0, r.err
    link = r.out.strip()
    assert link.startswith("https://docs.example.org/invite/inv_") and "\n" not in link
    assert "valid 7 days" in r.err
    db = _db(cfg)
    invited = Invites(db, Settings()).user_for(link.rsplit("/", 1)[1])
    assert invited.email == "new@example.org"
    assert Accounts(db).credits.balance(invited.id) == 50  # the signup grant
    db.dispose()


def test_admin_flag_disable_and_enable(cfg: str, capsys) -> None:
    r = run_cli(capsys, "--config", cfg, "users", "create", "root@example.org", "--admin")
    assert r.code == 0 and json.loads(r.out)["admin"] is True
    run_cli(capsys, "--config", cfg, "users", "create", "ada@example.org")
    assert "is an admin" in run_cli(capsys, "--config", cfg, "users", "set-admin",
                                    "ada@example.org").out
    r = run_cli(capsys, "--config", cfg, "users", "set-admin", "ada@example.org", "--off")
    assert r.code == 0 and "no longer an admin" in r.out
    db = _db(cfg)
    _, token = Accounts(db).create_token("ada@example.org")
    assert Accounts(db).authenticate(token) is not None
    assert run_cli(capsys, "--config", cfg, "users", "disable", "ada@example.org").code == 0
    assert Accounts(db).authenticate(token) is None
    r = run_cli(capsys, "--config", cfg, "users", "invite", "ada@example.org")
    assert r.code == 1 and "disabled" in r.err
    listed = run_cli(capsys, "--config", cfg, "users", "list").out
    assert "root@example.org" in listed and "\tadmin" in listed and "\tdisabled" in listed
    assert run_cli(capsys, "--config", cfg, "users", "enable", "ada@example.org").code == 0
    assert Accounts(db).authenticate(token) is not None
    r = run_cli(capsys, "--config", cfg, "users", "disable", "nobody@example.org")
    assert r.code == 1 and "no user" in r.err
    db.dispose()


@pytest.fixture
def redis_cfg(cfg: str, redis_url: str) -> str:
    """`cfg` with the sign-in counts in Redis, where the running server keeps them too."""
    with open(cfg, "a") as f:
        f.write(f'[limits]\nstorage_url = "{redis_url}"\n')
    return cfg


@pytest.mark.redis
def test_unlock_forgets_an_accounts_failed_sign_ins_at_once(redis_cfg: str, redis_url: str,
                                                            capsys) -> None:
    run_cli(capsys, "--config", redis_cfg, "users", "create", "ada@example.org")
    server = SignInThrottle(LimitsSettings(storage_url=redis_url), WebSettings())
    for _ in range(10):
        server.failed("ada@example.org", "203.0.113.7")
    server.failed("ada@example.org", "198.51.100.1")
    with pytest.raises(LimitExceeded):
        server.check("ada@example.org", "203.0.113.7")
    r = run_cli(capsys, "--config", redis_cfg, "users", "unlock", "ADA@example.org")
    assert r.code == 0, r.err
    assert "ada@example.org may sign in again: it was locked out at 203.0.113.7 until " in r.out
    assert "11 failed sign-in(s) forgotten" in r.out
    server.check("ada@example.org", "203.0.113.7")
    r = run_cli(capsys, "--config", redis_cfg, "users", "unlock", "ada@example.org")
    assert r.code == 0 and "ada@example.org was not locked out; 0 failed sign-in(s)" in r.out
    r = run_cli(capsys, "--config", redis_cfg, "users", "unlock", "nobody@example.org")
    assert r.code == 1 and "no user" in r.err
    server.close()


@pytest.mark.redis
def test_unlock_an_address(redis_cfg: str, redis_url: str, capsys) -> None:
    server = SignInThrottle(LimitsSettings(storage_url=redis_url), WebSettings())
    for i in range(SPREAD * 10):
        server.failed(f"user{i}@example.org", "2001:db8::7")
    with pytest.raises(LimitExceeded):
        server.check("someone@example.org", "2001:db8::7")
    r = run_cli(capsys, "--config", redis_cfg, "users", "unlock", "--address", "2001:db8::7")
    assert r.code == 0, r.err
    assert "2001:db8::7 may sign in again: 50 failed sign-in(s) from it forgotten" in r.out
    server.check("someone@example.org", "2001:db8::7")
    for args in (["--address", "my laptop"], [], ["ada@example.org", "--address", "10.0.0.1"]):
        r = run_cli(capsys, "--config", redis_cfg, "users", "unlock", *args)
        assert r.code == 2 and ("not an IP address" in r.err or "not both" in r.err), r.err
    server.close()


def test_unlock_without_a_shared_storage_says_where_the_counts_are(cfg: str, capsys) -> None:
    """Without limits.storage_url the counts are in the server's memory: the command says so
    (and where to unlock instead) rather than clear its own empty memory."""
    run_cli(capsys, "--config", cfg, "users", "create", "ada@example.org")
    r = run_cli(capsys, "--config", cfg, "users", "unlock", "ada@example.org")
    assert r.code == 1 and "limits.storage_url is empty" in r.err
    assert "Unlock sign-in" in r.err and r.out == ""
    r = run_cli(capsys, "--config", cfg, "users", "unlock", "nobody@example.org")
    assert r.code == 1 and "no user" in r.err
