"""`renamerd users`: set-password (stdin or a hidden prompt), invite, create --admin,
set-admin, disable and enable."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from clirun import run_cli
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.invites import Invites
from renamerd.service.passwords import Passwords
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
