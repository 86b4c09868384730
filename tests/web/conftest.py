"""Fixtures of the web app's tests.

Fast tests (`web`): the whole app (`build_app`: API + pages) under Starlette's TestClient, on
the parametrized database, with helpers to make users and sign them in.

Browser tests (`live`, `browser`, `signed_in_page`): the app served by uvicorn on a free port
with a daemon in the same process (a local inbox connection, the real engine), and Debian's
Chromium driven by Playwright. Reused by the connections pages' tests: pass connections or
settings to `make_live(...)`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from renamerd.commands.context import AppContext
from renamerd.commands.server import build_app
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.passwords import Passwords
from renamerd.service.user_admin import UserAdmin
from renamerd.storage.database import Database
from renamerd.storage.models import User
from servers import free_port

PASSWORD = "correct horse battery"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
HTML = {"accept": "text/html"}


def app_context(settings: Settings, db: Database) -> AppContext:
    """An AppContext holding these settings and this database (what the CLI would open)."""
    ctx = AppContext()
    ctx._settings = settings
    ctx._db = db
    return ctx


def make_user(settings: Settings, db: Database, email: str, *, password: str | None = PASSWORD,
              admin: bool = False) -> User:
    """A user (with the signup grant), its password, and the admin flag if asked."""
    user = Accounts(db, settings).ensure_user(email)
    if password:
        Passwords(db).set_password(user.id, password)
    if admin:
        user = UserAdmin(db).set_admin(email)
    return user


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html) or re.search(
        r'<meta name="csrf-token" content="([^"]+)"', html)
    assert found, "the page has no form with a CSRF token"
    return found.group(1)


@dataclass
class Web:
    """The app under a TestClient, and helpers."""

    client: TestClient
    settings: Settings
    db: Database
    app: Any

    @property
    def accounts(self) -> Accounts:
        return Accounts(self.db, self.settings)

    def user(self, email: str, **kwargs: Any) -> User:
        return make_user(self.settings, self.db, email, **kwargs)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(path, headers=HTML, **kwargs)

    def post(self, path: str, data: dict[str, Any] | None = None, *, csrf: bool = True,
             **kwargs: Any) -> Any:
        """POST a form as the page at `path`'s forms do (with the CSRF token of this browser
        unless csrf=False)."""
        form = dict(data or {})
        if csrf:
            form["csrf_token"] = self.csrf()
        return self.client.post(path, data=form, headers=HTML, **kwargs)

    def csrf(self) -> str:
        """This browser's CSRF token (read from a page, as a browser has it)."""
        page = self.get("/")
        if page.status_code != 200:
            page = self.get("/signin")
        return csrf_of(page.text)

    def sign_in(self, email: str, password: str = PASSWORD) -> Any:
        self.client.cookies.clear()
        token = csrf_of(self.get("/signin").text)
        return self.client.post("/signin", data={"email": email, "password": password,
                                                 "csrf_token": token},
                                headers=HTML, follow_redirects=False)


@pytest.fixture
def make_web(db: Database, tmp_path: Path) -> Iterator[Callable[..., Web]]:
    """Build the app with settings sections changed (`web={...}`, `server={...}`, ...)."""
    clients: list[TestClient] = []

    def make(rename_fn: Any = None, app_kwargs: dict[str, Any] | None = None,
             **sections: Any) -> Web:
        data: dict[str, Any] = {"database": {"url": db.url},
                                "daemon": {"state_dir": str(tmp_path / "state")}}
        for key, value in sections.items():
            data[key] = value
        settings = Settings(**data)
        from api.conftest import RecordingEngine

        app = build_app(app_context(settings, db), rename_fn=rename_fn or RecordingEngine(),
                        **(app_kwargs or {}))
        client = TestClient(app, raise_server_exceptions=True, base_url="http://127.0.0.1:8080")
        client.__enter__()
        clients.append(client)
        return Web(client, settings, db, app)

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def web(make_web: Callable[..., Web]) -> Web:
    return make_web()


# -- the browser ------------------------------------------------------------------------------


@dataclass
class Live:
    """The app and a daemon, served on 127.0.0.1:`port`."""

    url: str
    settings: Settings
    db: Database
    inbox: Path
    library: Path
    daemon: Any
    stop: Callable[[], None]
    users: dict[str, User] = field(default_factory=dict)

    def user(self, email: str, **kwargs: Any) -> User:
        self.users[email] = make_user(self.settings, self.db, email, **kwargs)
        return self.users[email]


def serve(settings: Settings, db: Database, *, daemon: bool = True, engine: Any = None
          ) -> tuple[str, Any, Callable[[], None]]:
    """Serve build_app on a free port in a thread (and start a daemon); (url, daemon, stop)."""
    return serve_on(settings, db, free_port(), daemon=daemon, engine=engine)


def serve_on(settings: Settings, db: Database, port: int, *, daemon: bool = False,
             engine: Any = None) -> tuple[str, Any, Callable[[], None]]:
    """`serve` on a given port."""
    import uvicorn

    from renamerd.runtime.daemon import Daemon

    runner = None
    if daemon:
        runner = Daemon(settings, db, engine=engine)
        runner.start()
    app = build_app(app_context(settings, db), runner.alive if runner else None)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            access_log=False, log_config=None)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="live-web", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the live server did not start")
        time.sleep(0.05)

    def stop() -> None:
        server.should_exit = True
        thread.join(15)
        if runner is not None:
            runner.stop(5)

    return f"http://127.0.0.1:{port}", runner, stop


@pytest.fixture
def make_live(tmp_path: Path) -> Iterator[Callable[..., Live]]:
    """Start the live app: SQLite under tmp_path, a local inbox connection owned by
    ada@example.org (watch `inbox`, files go below `library`), polled every half second.
    `connections` replaces that connection list, `daemon_overrides` changes [daemon] keys;
    other keyword arguments are settings sections."""
    started: list[Live] = []

    def make(*, connections: list[dict[str, Any]] | None = None, daemon: bool = True,
             engine: Any = None, daemon_overrides: dict[str, Any] | None = None,
             **sections: Any) -> Live:
        inbox, library = tmp_path / "inbox", tmp_path / "library"
        inbox.mkdir(exist_ok=True)
        library.mkdir(exist_ok=True)
        db_url = f"sqlite:///{tmp_path / 'live.db'}"
        if connections is None:
            connections = [{
                "name": "inbox", "provider": "local", "owner": "ada@example.org",
                "watch": str(inbox), "target": str(library), "poll_seconds": 0.5,
                "options": {"stable_checks": 1, "settle_seconds": 0.2},
            }]
        data: dict[str, Any] = {
            "database": {"url": db_url},
            "daemon": {"state_dir": str(tmp_path / "state"), "workers": 1, "lease_s": 10,
                       "retry_backoff_s": 0.2, **(daemon_overrides or {})},
            "server": {"shutdown_grace_s": 5},
            "web": {"live_update_s": 1},
            "connections": connections, **sections,
        }
        settings = Settings(**data)
        db = Database(db_url)
        db.upgrade()
        url, runner, stop = serve(settings, db, daemon=daemon, engine=engine)
        live = Live(url, settings, db, inbox, library, runner, stop)
        started.append(live)
        return live

    yield make
    for live in started:
        live.stop()
        live.db.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (no browser download). Per test module: Playwright's
    sync API keeps an event loop running in the thread while it lives, and a later test of the
    same worker that calls asyncio.run() would fail."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/system-deps test (Debian package chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[[], Any]]:
    """Pages in fresh browser contexts (own cookies each), closed after the test."""
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def sign_in_page(page: Any, url: str, email: str, password: str = PASSWORD) -> Any:
    """Sign in through the form, as a person does; returns the page (on the Overview)."""
    page.goto(url + "/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(url + "/")
    return page


@pytest.fixture
def signed_in_page(make_live: Callable[..., Live], new_page: Callable[[], Any]
                   ) -> tuple[Live, Any]:
    """A live app and a page signed in as ada@example.org (the inbox's owner)."""
    live = make_live()
    live.user("ada@example.org")
    return live, sign_in_page(new_page(), live.url, "ada@example.org")
