"""No secret in any log line (at DEBUG, every logger) nor in any response body or header but
the cookie that carries it: a whole session that signs in with a password (a wrong one too),
uses and revokes an API token, connects a Google Drive through the emulator's consent page
(the OAuth code, the PKCE verifier's state, the refresh token, the client secret in the
config), lists and deletes the connection, and signs out."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient

from emulators.gdrive import DriveEmulator
from renamerd.commands.server import build_app
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database
from web.conftest import HTML, app_context, csrf_of, make_user

PASSWORD = "Correct-Horse-Battery-Staple-42"
CLIENT_SECRET = "emu-secret"


class Seen:
    """Every response body and header the session got (Set-Cookie aside: it is the one place
    a session id is meant to travel)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, r: httpx.Response) -> httpx.Response:
        self.texts.append(r.text)
        self.texts += [f"{k}: {v}" for k, v in r.headers.items() if k.lower() != "set-cookie"]
        return r


@pytest.fixture
def every_logger_at_debug() -> Any:
    """Every logger at DEBUG and propagating to the root (where caplog listens), whatever
    earlier tests of this process set; restored afterwards."""
    loggers = [logging.getLogger()] + [logging.getLogger(name) for name in
                                       list(logging.root.manager.loggerDict)]
    saved = [(lg, lg.level, lg.propagate, lg.disabled) for lg in loggers]
    disabled_below = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
        lg.propagate = True
        lg.disabled = False
    yield
    logging.disable(disabled_below)
    for lg, level, propagate, disabled in saved:
        lg.setLevel(level)
        lg.propagate = propagate
        lg.disabled = disabled


@pytest.fixture
def drive() -> Any:
    emu = DriveEmulator(clients={"emu-client": CLIENT_SECRET}).start()
    emu.state.consent_page = True
    yield emu
    emu.stop()


def test_a_whole_session_leaks_no_secret(tmp_path: Path, drive: DriveEmulator,
                                         caplog: pytest.LogCaptureFixture,
                                         every_logger_at_debug: None) -> None:
    caplog.set_level(logging.DEBUG)
    settings = Settings(
        database={"url": f"sqlite:///{tmp_path / 'r.db'}"},
        daemon={"state_dir": str(tmp_path / "state")},
        logging={"level": "DEBUG"},
        secrets={"key": Fernet.generate_key().decode()},
        providers={"gdrive": {"client_id": "emu-client", "client_secret": CLIENT_SECRET,
                              "auth_uri": drive.auth_uri, "token_uri": drive.token_uri,
                              "api_endpoint": drive.url, "ca_bundle": drive.ca_bundle}})
    db = Database(settings.database.url)
    db.upgrade()
    make_user(settings, db, "ada@example.org", password=PASSWORD)
    _, api_token = Accounts(db, settings).create_token("ada@example.org", "laptop")
    seen = Seen()
    secrets = [PASSWORD, api_token, CLIENT_SECRET]
    app = build_app(app_context(settings, db))
    with TestClient(app, base_url="http://127.0.0.1:8080") as c:
        token = csrf_of(c.get("/signin", headers=HTML).text)
        seen.add(c.post("/signin", data={"email": "ada@example.org", "password": "wrong-" +
                                         PASSWORD, "csrf_token": token}, headers=HTML))
        seen.add(c.post("/signin", data={"email": "ada@example.org", "password": PASSWORD,
                                         "csrf_token": token}, headers=HTML))
        session = next(v for k, v in c.cookies.items() if "session" in k)
        secrets.append(session)
        auth = {"Authorization": f"Bearer {api_token}"}
        seen.add(c.get("/api/v1/credits", headers=auth))
        seen.add(c.get("/api/v1/credits", headers={"Authorization": f"Bearer {api_token}x"}))
        seen.add(c.get("/api/v1/jobs", headers=auth))
        # connect a drive: consent page, Allow, the code back to the callback
        start = seen.add(c.get("/connections/connect/gdrive", headers=HTML,
                               follow_redirects=False))
        consent = start.headers["location"]
        allowed = httpx.get(consent + "&approve=1", verify=drive.ca_bundle,
                            follow_redirects=False)
        callback = allowed.headers["location"]
        assert re.search(r"[?&]code=", callback)
        secrets.append(httpx.QueryParams(callback.split("?", 1)[1])["code"])
        back = seen.add(c.get(callback.replace("http://127.0.0.1:8080", ""), headers=HTML,
                              follow_redirects=True))
        assert back.status_code == 200 and "Watch folder" in back.text
        refresh = [t for t, tok in drive.state.tokens.items() if tok.kind == "refresh"]
        assert refresh, "the consent gave a refresh token"
        secrets += refresh
        listed = seen.add(c.get("/api/v1/connections", headers=auth))
        name = listed.json()[0]["name"]
        seen.add(c.get(f"/connections/{name}", headers=HTML))
        seen.add(c.delete(f"/api/v1/connections/{name}", headers=auth))
        seen.add(c.get("/tokens", headers=HTML))
        seen.add(c.get("/signout", headers=HTML))
    logs = [logging.Formatter().format(r) for r in caplog.records]  # tracebacks included
    assert len(caplog.records) > 5, "the session was logged at DEBUG"
    for secret in secrets:
        assert secret
        leaks = [line for line in logs + seen.texts if secret in line]
        assert not leaks, f"a secret ({secret[:4]}...) appears in: {leaks[0][:300]}"
