"""`renamerd doctor`: one line per check, exit code 1 when any is an error; all green on a fresh
`make run` of the repository's config.example.toml."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet

from clirun import run_cli
from renamerd.config import Settings
from renamerd.runtime.doctor import ocr as doctor_ocr
from renamerd.service import secrets as secrets_store
from renamerd.storage.database import Database

REPO = Path(__file__).resolve().parents[2]


def _lines(out: str) -> dict[str, str]:
    """check -> level, from doctor's lines ("ok      database: ...")."""
    found = {}
    for line in out.splitlines():
        level, _, rest = line.partition(" ")
        found[rest.strip().split(":", 1)[0]] = level
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_a_fresh_make_run_is_all_green(tmp_path: Path, capsys, monkeypatch) -> None:
    """As `make run` does it: config.example.toml from the folder it sits in, var/inbox,
    var/library and the secrets key var/secrets.key made, `renamerd run` started; then doctor,
    from another folder."""
    shutil.copy(REPO / "config.example.toml", tmp_path / "config.example.toml")
    (tmp_path / "var" / "inbox").mkdir(parents=True)
    (tmp_path / "var" / "library").mkdir()
    from cryptography.fernet import Fernet  # the key `make run` makes

    (tmp_path / "var" / "secrets.key").write_text(Fernet.generate_key().decode() + "\n")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RENAMERD_")}
    daemon = subprocess.Popen(
        [sys.executable, "-c", "from renamerd.commands.cli import main; main()",
         "--config", "config.example.toml", "run", "--port", str(port), "--workers", "1"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert daemon.poll() is None and time.monotonic() < deadline, "renamerd run failed"
            time.sleep(0.5)
        monkeypatch.chdir(tmp_path / "var")
        r = run_cli(capsys, "--config", str(tmp_path / "config.example.toml"), "doctor")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(60)
    assert r.code == 0, r.out
    levels = _lines(r.out)
    assert set(levels.values()) == {"ok"}, r.out
    assert {"config", "database", "secrets", "tesseract", "ocr backend", "connection inbox",
            "public_url", "disk (state folder)", "disk (database folder)"} <= set(levels)
    assert "0 error(s), 0 warning(s)" in r.err


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, str]:
    """A config whose database exists and is migrated."""
    url = f"sqlite:///{tmp_path}/data/renamerd.db"
    db = Database(url)
    db.upgrade()
    db.dispose()
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[database]\nurl = "{url}"\n[daemon]\nstate_dir = "{tmp_path}/state"\n')
    return cfg, url


def test_errors_are_named_with_what_to_do_and_exit_1(installed: tuple[Path, str], capsys,
                                                      tmp_path: Path) -> None:
    cfg, url = installed
    key = Fernet.generate_key().decode()
    settings = Settings(database={"url": url}, secrets={"key": key})
    db = Database(url)
    secrets_store.store_refresh_token(db, settings, "cloud", "a-refresh-token")
    db.dispose()
    other_key = Fernet.generate_key().decode()
    cfg.write_text(cfg.read_text() + f'[secrets]\nkey = "{other_key}"\n'
                   '[engine]\nocr_languages = ["deu", "xx-none"]\n')
    r = run_cli(capsys, "--config", str(cfg), "doctor")
    assert r.code == 1
    levels = _lines(r.out)
    assert levels["database"] == "ok" and levels["config"] == "ok"
    assert levels["secrets"] == "error" and "cloud" in r.out and "NEW,OLD" in r.out
    assert levels["tesseract"] == "error" and "tesseract-ocr-xx-none" in r.out
    assert all(len(line) > 10 for line in r.out.splitlines())


def test_an_unreachable_or_old_database(tmp_path: Path, installed: tuple[Path, str],
                                        capsys) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = tmp_path / "down.toml"
    down.write_text(f'[database]\nurl = "postgresql+psycopg://u:pw@127.0.0.1:{port}/x"\n')
    r = run_cli(capsys, "--config", str(down), "doctor")
    assert r.code == 1 and _lines(r.out)["database"] == "error"
    assert "unreachable" in r.out and ":pw@" not in r.out

    cfg, url = installed
    db = Database(url)
    with db.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0002'")
    db.dispose()
    r = run_cli(capsys, "--config", str(cfg), "doctor")
    assert r.code == 1 and "renamerd db upgrade" in r.out and "0002" in r.out


def test_a_config_error_is_one_error_line(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[server]\nport = 'eighty'\n")
    r = run_cli(capsys, "--config", str(cfg), "doctor")
    assert r.code == 1
    assert r.out.startswith("error   config: ") and "server.port" in r.out


def test_each_connection_is_asked_once(installed: tuple[Path, str], capsys,
                                       tmp_path: Path) -> None:
    from renamerd_connectors.memory.drive import drive

    good, revoked = drive("doctor-good"), drive("doctor-revoked")
    for d in (good, revoked):
        d.auth_required = True
    good_token = good.exchange(good.issue_code())
    old_token = revoked.exchange(revoked.issue_code())
    revoked.revoke(old_token)
    cfg, _url = installed
    (tmp_path / "inbox").mkdir()
    cfg.write_text(cfg.read_text() + "".join(
        f'[[connections]]\nname = "{name}"\nprovider = "{provider}"\nowner = "a@b.c"\n'
        f'watch = "{watch}"\n[connections.options]\n{options}\n'
        for name, provider, watch, options in (
            ("scans", "local", tmp_path / "inbox", ""),
            ("missing", "local", tmp_path / "nowhere", ""),
            ("cloud", "memory", "/Inbox", f'drive = "doctor-good"\nrefresh_token = "{good_token}"'),
            ("revoked", "memory", "/Inbox",
             f'drive = "doctor-revoked"\nrefresh_token = "{old_token}"'),
        )))
    r = run_cli(capsys, "--config", str(cfg), "doctor")
    levels = _lines(r.out)
    assert r.code == 1
    assert levels["connection scans"] == "ok"
    assert levels["connection missing"] == "error" and "does not exist" in r.out
    assert levels["connection cloud"] == "ok"
    assert levels["connection revoked"] == "error"
    assert "renamerd connect memory --connection revoked" in r.out


def test_public_url_is_asked_for_healthz(installed: tuple[Path, str], capsys) -> None:
    cfg, _url = installed
    base = cfg.read_text()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg.write_text(base + f'[server]\npublic_url = "http://127.0.0.1:{port}"\n')
    r = run_cli(capsys, "--config", str(cfg), "doctor")
    assert _lines(r.out)["public_url"] == "error" and "/healthz" in r.out


def test_the_ocr_backend_check_matches_what_is_installed() -> None:
    import importlib.util

    assert doctor_ocr.check_backend(Settings()).level == "ok"  # tesseract (no engine.ocr)
    problem = doctor_ocr.rapidocr_problem()
    if importlib.util.find_spec("rapidocr") is None:
        assert problem is not None and "rapidocr" in problem
    else:
        assert problem is None
