"""`renamerd connect`: the whole loop through the in-memory provider's code-paste flow, and the
errors a person at a terminal can meet."""

from __future__ import annotations

import io
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from clirun import run_cli
from renamerd.config import load_settings
from renamerd.connectors import AuthError, open_connector
from renamerd.service.secrets import connector_options, load_refresh_token
from renamerd.storage.database import Database
from renamerd_connectors import memory

_ids = itertools.count()


@pytest.fixture
def drive_name() -> Iterator[str]:
    name = f"connect-{next(_ids)}"
    memory.drive(name).auth_required = True
    yield name
    memory.forget_drive(name)


@pytest.fixture
def cfg(tmp_path: Path, drive_name: str) -> Path:
    path = tmp_path / "renamerd.toml"
    path.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'renamerd.db'}"

[[connections]]
name = "cloud"
provider = "memory"
owner = "ada@example.org"
watch = "/Inbox"
[connections.options]
drive = "{drive_name}"

[[connections]]
name = "scans"
provider = "local"
owner = "ada@example.org"
watch = "{tmp_path / 'inbox'}"
""")
    return path


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    k = Fernet.generate_key().decode()
    monkeypatch.setenv("RENAMERD_SECRETS__KEY", k)
    return k


def type_in(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_connect_stores_encrypted_token_the_daemon_can_use(
    cfg: Path, key: str, drive_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    d = memory.drive(drive_name)
    d.put("/Inbox/a.pdf", b"%PDF")
    type_in(monkeypatch, d.issue_code() + "\n")
    r = run_cli(capsys, "connect", "memory", "--connection", "cloud", "--config", str(cfg))
    assert r.code == 0, r.err
    assert f"memory://authorize?drive={drive_name}" in r.out
    assert "is connected" in r.out

    settings = load_settings(cfg)
    db = Database(settings.database.url)
    token = load_refresh_token(db, settings, "cloud")
    assert token and token.startswith("mrt-")
    options = connector_options(db, settings, settings.connections[0])
    assert options["refresh_token"] == token
    conn = open_connector("memory", options, name="cloud", state_dir="")
    assert [f.name for f in conn.changes("/Inbox", None).files] == ["a.pdf"]
    d.revoke(token)
    with pytest.raises(AuthError, match="connect"):
        conn.changes("/Inbox", None)
    db.dispose()

    for f in tmp_path.glob("renamerd.db*"):
        assert token.encode() not in f.read_bytes()


def test_connect_again_replaces_token(
    cfg: Path, key: str, drive_name: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    d = memory.drive(drive_name)
    tokens = []
    for _ in range(2):
        type_in(monkeypatch, d.issue_code() + "\n")
        assert run_cli(capsys, "--config", str(cfg), "connect", "memory",
                       "--connection", "cloud").code == 0
        settings = load_settings(cfg)
        db = Database(settings.database.url)
        tokens.append(load_refresh_token(db, settings, "cloud"))
        db.dispose()
    assert tokens[0] != tokens[1] and all(tokens)


def test_no_key_fails_before_the_flow(
    cfg: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    type_in(monkeypatch, "")
    r = run_cli(capsys, "connect", "memory", "--connection", "cloud", "--config", str(cfg))
    assert r.code == 1
    assert "no secrets key" in r.err and "Fernet.generate_key()" in r.err
    assert "RENAMERD_SECRETS__KEY" in r.err
    assert "authorize" not in r.out and "Traceback" not in r.err


def test_unknown_connection(cfg: Path, key: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(capsys, "connect", "gdrive", "--connection", "nope", "--config", str(cfg))
    assert r.code == 1
    assert "unknown connection 'nope'" in r.err and "cloud, scans" in r.err


def test_provider_mismatch(cfg: Path, key: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(capsys, "connect", "dropbox", "--connection", "cloud", "--config", str(cfg))
    assert r.code == 1
    assert "uses provider 'memory', not 'dropbox'" in r.err
    assert "renamerd connect memory --connection cloud" in r.err


def test_local_has_nothing_to_connect(
    cfg: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    r = run_cli(capsys, "connect", "local", "--connection", "scans", "--config", str(cfg))
    assert r.code == 1 and "has no account to connect" in r.err


def test_refused_code(
    cfg: Path, key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    type_in(monkeypatch, "code-made-up\n")
    r = run_cli(capsys, "connect", "memory", "--connection", "cloud", "--config", str(cfg))
    assert r.code == 1
    assert "connecting 'cloud' failed" in r.err and "refused" in r.err


def test_missing_connection_option(cfg: Path, key: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(capsys, "connect", "memory", "--config", str(cfg))
    assert r.code == 2 and "--connection" in r.err
