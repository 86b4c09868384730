"""`renamerd serve` as a real process; `renamerd rename --server` through it; graceful SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from clirun import run_cli
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path):
    port = free_port()
    db_url = f"sqlite:///{tmp_path / 'serve.db'}"
    config = tmp_path / "config.toml"
    config.write_text(
        f'[server]\nhost = "127.0.0.1"\nport = {port}\nshutdown_grace_s = 20\n'
        f'[database]\nurl = "{db_url}"\n[logging]\nlevel = "WARNING"\n'
    )
    settings = Settings(database={"url": db_url})
    db = Database(db_url)
    db.upgrade()
    accounts = Accounts(db, settings)
    accounts.create_user("cli@example.org", "CLI")
    _, token = accounts.create_token("cli@example.org")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RENAMERD_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "renamerd.commands.cli", "serve", "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            auth = {"Authorization": f"Bearer {token}"}
            if httpx.get(f"{url}/api/v1/credits", headers=auth).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"serve did not start: {proc.stderr.read() if proc.stderr else ''}")
        time.sleep(0.1)
    yield proc, url, token, accounts
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)
    db.dispose()


@pytest.mark.slow
def test_serve_and_rename_through_it(served, tmp_path: Path, capsys) -> None:
    from engine.docmaker import make_pdf

    proc, url, token, accounts = served
    doc = tmp_path / "scan.pdf"
    doc.write_bytes(make_pdf(["ACME GmbH", "Invoice number: RE-55", "Invoice date: 02.01.2024"]))
    junk = tmp_path / "notes.txt"
    junk.write_text("hello")
    r = run_cli(capsys, "rename", "--server", url, "--token", token, "--strategy", "by_date",
                "--json", str(doc), str(junk))
    results = json.loads(r.out)
    ok = next(e for e in results if e["path"] == str(doc))
    bad = next(e for e in results if e["path"] == str(junk))
    assert ok["organizationStrategy"] == "by_date" and "RE-55" in ok["suggestedFilename"]
    assert bad["status"] == 415
    me = accounts.get_user("cli@example.org")
    assert accounts.credits.balance(me.id) == 49
    headers = httpx.get(f"{url}/api/v1/user", headers={"Authorization": f"Bearer {token}"}).headers
    assert "x-ratelimit-reset" in headers and "server" not in headers


@pytest.mark.slow
def test_sigterm_lets_the_running_request_finish(served) -> None:
    from engine.docmaker import make_scan

    proc, url, token, _accounts = served
    scan = make_scan(["ACME GmbH", "Rechnung RE-9", "Datum 03.04.2024"] * 3, noise=0.02)
    result: dict = {}

    def call() -> None:
        result["r"] = httpx.post(f"{url}/api/v1/rename", headers={"Authorization": f"Bearer {token}"},
                                 files={"file": ("scan.png", scan, "image/png")}, timeout=60)

    t = threading.Thread(target=call)
    t.start()
    time.sleep(0.4)  # the OCR is running now
    proc.send_signal(signal.SIGTERM)
    t.join(60)
    assert result["r"].status_code == 200, result["r"].text
    assert proc.wait(30) == 0
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/api/v1/user", timeout=2)


@pytest.mark.parametrize("command", ["serve", "run"])
def test_a_port_in_use_ends_the_command_at_once_with_its_reason(tmp_path: Path,
                                                                command: str) -> None:
    """Not a process that says it runs while another program answers on its port."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        config = tmp_path / "config.toml"
        config.write_text(
            f'[server]\nhost = "127.0.0.1"\nport = {port}\n'
            f'[database]\nurl = "sqlite:///{tmp_path / "r.db"}"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith("RENAMERD_")}
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "renamerd.commands.cli", command, "--config", str(config)],
            capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "in use" in done.stderr
    assert "running" not in done.stderr
    assert time.monotonic() - started < 30
