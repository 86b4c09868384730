"""The Dropbox connector against the Dropbox emulator: the contract suite, then Dropbox specifics
(token refresh and revocation, throttling, cursor reset, longpoll, the connect flow, cost)."""

from __future__ import annotations

import gc
import io
import re
import threading
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from contract import ConnectorContract, poll

from emulators.base import Faults
from emulators.dropbox import DropboxAccount, DropboxEmulator
from renamerd.connectors import (
    AuthError,
    ConfigError,
    Conflict,
    NotFound,
    Pacer,
    TransientError,
    load_connector,
)
from renamerd_connectors.dropbox import DropboxConnector


@dataclass
class DropboxHarness:
    emulator: DropboxEmulator
    connector: DropboxConnector
    refresh_token: str
    root: str = "/"
    polls_to_settle: int = 1
    #: one `continue` call for an idle or a 20-file poll; the emulator pages at 500 entries
    max_poll_calls: int = 1
    sleeps: list[float] = field(default_factory=list)
    scale_files: int = 5000

    @property
    def account(self) -> DropboxAccount:
        return self.emulator.account

    @property
    def faults(self) -> Faults:
        return self.emulator.faults

    def put(self, path: str, data: bytes) -> None:
        self.account.put(path, data)

    def read(self, path: str) -> bytes | None:
        return self.account.read(path)

    def listing(self, folder: str) -> list[str]:
        return self.account.listing(folder)

    def delete(self, path: str) -> None:
        self.account.delete(path)

    def api_calls(self) -> int:
        return self.faults.total_calls

    def calls(self, route: str) -> int:
        return self.faults.calls[route]

    def connect(self, max_sleep: float = 0.2, **overrides: Any) -> DropboxConnector:
        options = {
            "app_key": "test-app",
            "app_secret": "test-secret",
            "refresh_token": self.refresh_token,
            "endpoint": self.emulator.url,
            "ca_bundle": self.emulator.ca_bundle,
            **overrides,
        }
        pacer = Pacer(backoff=0.01, max_sleep=max_sleep, sleep=self._sleep)
        return DropboxConnector(options, name="box", state_dir="", pacer=pacer)

    def _sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        time.sleep(min(seconds, 0.2))


@pytest.fixture(scope="module")
def emulator() -> Iterator[DropboxEmulator]:
    """One server per module; every harness empties its account first."""
    with DropboxEmulator() as server:
        yield server


def make_harness(emulator: DropboxEmulator, **account_options: Any) -> Iterator[DropboxHarness]:
    """A connector on a fresh, empty account of `emulator` (account options as given)."""
    emulator.reset(**account_options)
    emulator.account.add_app("test-app", "test-secret")
    token = emulator.account.issue_refresh_token("test-app")
    h = DropboxHarness(emulator, None, token)  # type: ignore[arg-type]
    h.connector = h.connect()
    try:
        yield h
    finally:
        h.connector.close()


class TestDropboxContract(ConnectorContract):
    @pytest.fixture
    def harness(self, emulator: DropboxEmulator) -> Iterator[DropboxHarness]:
        yield from make_harness(emulator)


class TestDropboxContractInFolder(ConnectorContract):
    """The suite again below a folder, with small pages so every listing pages."""

    @pytest.fixture
    def harness(self, emulator: DropboxEmulator) -> Iterator[DropboxHarness]:
        for h in make_harness(emulator, page_size=3):
            h.root = "/Work Area"
            h.max_poll_calls = 4
            h.scale_files = 0  # covered above; 3-entry pages over 5,000 files only cost time
            yield h


@pytest.fixture
def h(emulator: DropboxEmulator) -> Iterator[DropboxHarness]:
    yield from make_harness(emulator)


# --------------------------------------------------------------------------- options


def test_registered_under_entry_point() -> None:
    assert load_connector("dropbox") is DropboxConnector


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"refresh_token": "x"}, "app_key is required"),
        ({"app_key": "k"}, "renamerd connect dropbox"),
        ({"app_key": "k", "refresh_token": "x", "endpoint": "http://127.0.0.1:1"}, "https"),
        ({"app_key": "k", "refresh_token": "x", "ca_bundle": "/nonexistent.pem"}, "ca_bundle"),
        ({"app_key": "k", "refresh_token": "x", "token": "y"}, "unknown dropbox option"),
        ({"app_key": "k", "refresh_token": "x", "timeout": 0}, "timeout"),
    ],
)
def test_bad_options_raise_config_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DropboxConnector(options, name="bad", state_dir="")


# --------------------------------------------------------------------------- tokens


def test_expired_access_token_is_refreshed(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"a")
    assert h.connector.stat_path("/inbox/a.pdf") is not None
    grants = h.account.token_grants
    h.account.expire_access_tokens()  # the server now answers 401 expired_access_token
    assert h.connector.stat_path("/inbox/a.pdf") is not None
    assert h.account.token_grants == grants + 1


def test_short_lived_tokens_are_renewed_before_use(emulator: DropboxEmulator) -> None:
    for h in make_harness(emulator, access_token_ttl=2):
        h.put("/inbox/a.pdf", b"a")
        for _ in range(3):
            assert h.connector.stat_path("/inbox/a.pdf") is not None
            time.sleep(0.3)
        assert h.account.token_grants >= 3  # the SDK renews tokens close to expiry up front


def test_revoked_refresh_token_raises_auth_error(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"a")
    _, cursor = poll(h, "/inbox", None)
    h.account.revoke(h.refresh_token)
    with pytest.raises(AuthError) as caught:
        h.connector.changes("/inbox", cursor)
    message = str(caught.value)
    assert "'box'" in message and "renamerd connect dropbox --connection box" in message
    assert h.refresh_token not in message
    assert h.calls("/oauth2/token") >= 2  # it tried a fresh token before giving up


def test_revoked_token_of_fresh_client_raises_auth_error(h: DropboxHarness) -> None:
    h.account.revoke(h.refresh_token)
    with pytest.raises(AuthError, match="invalid_grant"):
        h.connect().stat_path("/x.pdf")


def test_wrong_app_secret_raises_auth_error(h: DropboxHarness) -> None:
    with pytest.raises(AuthError, match="app_key and app_secret"):
        h.connect(app_secret="wrong").stat_path("/x.pdf")


# --------------------------------------------------------------------------- throttling


def test_injected_429_and_5xx_are_retried(h: DropboxHarness, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    h.put("/inbox/a.pdf", b"a")
    h.faults.rate = 1.0  # the next three calls fail (429 or 5xx), then the emulator recovers
    decide = h.faults.decide

    def three_failures(path: str) -> int | None:
        status = decide(path)
        if sum(h.faults.injected.values()) >= 3:
            h.faults.rate = 0.0
        return status

    monkeypatch.setattr(h.faults, "decide", three_failures)
    f = h.connector.stat_path("/inbox/a.pdf")
    assert f is not None and f.name == "a.pdf"
    assert sum(h.faults.injected.values()) == 3


def test_too_many_write_operations_is_retried_after_retry_after(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"a")
    connector = h.connect(max_sleep=30)
    f = connector.stat_path("/inbox/a.pdf")
    assert f is not None
    dest = connector.ensure_folder("/lib")
    h.account.busy_writes = 2  # a 409 too_many_write_operations, then a 429 with retry_after 1
    moved = connector.move(f.id, dest, "b.pdf")
    assert moved.path == "/lib/b.pdf"
    assert h.account.busy_writes == 0
    assert h.calls("/2/files/move_v2") == 3
    assert len(h.sleeps) == 2 and h.sleeps[0] < 1 and h.sleeps[1] == 1.0  # Retry-After: 1
    assert h.listing("/lib") == ["b.pdf"]
    connector.close()


def test_retries_spent_raise_transient_error(h: DropboxHarness) -> None:
    h.faults.rate = 1.0
    with pytest.raises(TransientError):
        h.connector.stat_path("/inbox/a.pdf")


# --------------------------------------------------------------------------- feed


def test_reset_cursor_lists_again(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"a")
    _, cursor = poll(h, "/inbox", None)
    h.put("/inbox/b.pdf", b"b")
    h.account.invalidate_cursors()
    result = h.connector.changes("/inbox", cursor)
    assert result.reset
    assert sorted(f.name for f in result.files) == ["a.pdf", "b.pdf"]
    again = h.connector.changes("/inbox", result.cursor)
    assert not again.reset and again.files == []


def test_cursor_of_another_watch_starts_over(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"a")
    h.put("/other/b.pdf", b"b")
    _, cursor = poll(h, "/inbox", None)
    result = h.connector.changes("/other", cursor)
    assert result.reset and [f.name for f in result.files] == ["b.pdf"]


def test_revision_survives_move_and_ids_are_dropbox_ids(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"same bytes")
    files, cursor = poll(h, "/inbox", None)
    (f,) = files
    assert f.id.startswith("id:")
    lib = h.connector.ensure_folder("/inbox/lib")  # target inside watch
    moved = h.connector.move(f.id, lib, "A.pdf")
    again, _ = poll(h, "/inbox", cursor)
    # reported again at its new place, with the same (id, revision): the daemon de-duplicates
    assert [(g.id, g.revision, g.path) for g in again] == [(f.id, f.revision, "/inbox/lib/A.pdf")]
    assert moved.revision == f.revision


def test_move_into_deleted_folder_raises_not_found(h: DropboxHarness) -> None:
    h.put("/inbox/a.pdf", b"a")
    f = h.connector.stat_path("/inbox/a.pdf")
    assert f is not None
    dest = h.connector.ensure_folder("/lib/x")
    h.account.delete("/lib/x")
    with pytest.raises(NotFound):
        h.connector.move(f.id, dest, "a.pdf")
    assert h.read("/inbox/a.pdf") == b"a"


def test_ensure_folder_where_a_file_is_raises_conflict(h: DropboxHarness) -> None:
    h.put("/lib/taken", b"file")
    with pytest.raises(Conflict):
        h.connector.ensure_folder("/lib/taken")
    assert h.connector.ensure_folder("/") == "/"


# --------------------------------------------------------------------------- longpoll


def test_wait_for_changes(emulator: DropboxEmulator) -> None:
    for h in make_harness(emulator, longpoll_cap=0.3):
        h.put("/inbox/a.pdf", b"a")
        _, cursor = poll(h, "/inbox", None)
        started = time.monotonic()
        assert h.connector.wait_for_changes(cursor, 40) is False  # the server ended it early
        assert time.monotonic() - started < 5
        assert h.connector.wait_for_changes(cursor, 0.2) is False  # a short wait, client side

        h.account.longpoll_cap = 10.0
        later = threading.Timer(0.3, lambda: h.put("/inbox/b.pdf", b"b"))
        later.start()
        started = time.monotonic()
        assert h.connector.wait_for_changes(cursor, 60) is True
        assert time.monotonic() - started < 5
        files, _ = poll(h, "/inbox", cursor)
        assert [f.name for f in files] == ["b.pdf"]

        h.put("/elsewhere/c.pdf", b"c")  # outside the watched folder: no wake-up
        _, cursor = poll(h, "/inbox", cursor)
        h.account.longpoll_cap = 0.2
        assert h.connector.wait_for_changes(cursor, 40) is False
        assert h.calls("/2/files/list_folder/longpoll") == 4


def test_wait_for_changes_honours_backoff(emulator: DropboxEmulator) -> None:
    for h in make_harness(emulator, longpoll_cap=0.1, longpoll_backoff=1):
        h.put("/inbox/a.pdf", b"a")
        _, cursor = poll(h, "/inbox", None)
        assert h.connector.wait_for_changes(cursor, 40) is False
        started = time.monotonic()
        assert h.connector.wait_for_changes(cursor, 0.3) is False  # still backing off
        assert time.monotonic() - started < 1
        assert h.calls("/2/files/list_folder/longpoll") == 1


# --------------------------------------------------------------------------- connect


def _approve(url: str, ca_bundle: str) -> str:
    """What a person does: open the page, click Allow, copy the code."""
    page = httpx.get(url, verify=ca_bundle).text
    found = re.search(r'id="code" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def test_connect_flow_pkce(h: DropboxHarness) -> None:
    printed: list[str] = []
    options = {"app_key": "test-app", "endpoint": h.emulator.url, "ca_bundle": h.emulator.ca_bundle}

    def prompt(question: str) -> str:
        url = next(line.strip() for line in printed if line.strip().startswith("https://"))
        assert "code_challenge=" in url and "token_access_type=offline" in url
        return _approve(url, h.emulator.ca_bundle)

    token = DropboxConnector.connect_flow(options, echo=printed.append, prompt=prompt)
    assert token and token != h.refresh_token
    h.put("/inbox/a.pdf", b"a")
    connector = h.connect(refresh_token=token, app_secret=None)  # PKCE: no secret needed
    assert connector.stat_path("/inbox/a.pdf") is not None
    connector.close()


def test_connect_flow_bad_code(h: DropboxHarness) -> None:
    options = {"app_key": "test-app", "endpoint": h.emulator.url, "ca_bundle": h.emulator.ca_bundle}
    with pytest.raises(AuthError, match="refused the code"):
        DropboxConnector.connect_flow(options, echo=lambda _: None, prompt=lambda _: "nope")


# --------------------------------------------------------------------------- cost and memory


def _seed(h: DropboxHarness, n: int) -> None:
    for i in range(n):
        h.put(f"/inbox/old/{i // 500:02d}/seed{i:05d}.pdf", b"s%d" % i)


def _incremental_poll(h: DropboxHarness, cursor: str) -> tuple[int, int]:
    """(API calls, peak traced bytes) of one poll after 20 new files."""
    for i in range(20):
        h.put(f"/inbox/new{i:02d}.pdf", b"n%d" % i)
    gc.collect()
    before = h.api_calls()
    tracemalloc.start()
    try:
        files, _ = poll(h, "/inbox", cursor)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(files) == 20
    return h.api_calls() - before, peak


@pytest.mark.slow
def test_poll_cost_and_memory_stay_flat_as_the_drive_grows(emulator: DropboxEmulator) -> None:
    measured: dict[int, tuple[int, int, int]] = {}
    for n in (500, 5000):
        for h in make_harness(emulator):
            _seed(h, n)
            before = h.api_calls()
            _, cursor = poll(h, "/inbox", None)
            full = h.api_calls() - before
            before = h.api_calls()
            idle = h.connector.changes("/inbox", cursor)
            assert idle.files == [] and h.api_calls() - before == 1
            calls, peak = _incremental_poll(h, idle.cursor)
            measured[n] = (full, calls, peak)
    print("dropbox poll cost (full listing calls, incremental calls, peak bytes):", measured)
    assert measured[500][1] == measured[5000][1] == 1
    assert measured[5000][2] < 2 * measured[500][2] + 200_000


def test_download_streams_with_cap(h: DropboxHarness) -> None:
    data = b"x" * (3 * 1024 * 1024)
    h.put("/inbox/big.pdf", data)
    f = h.connector.stat_path("/inbox/big.pdf")
    assert f is not None
    buf = io.BytesIO(b"stale")
    buf.seek(0)
    assert h.connector.download(f.id, buf, len(data)) == len(data)
    assert buf.getvalue() == data


# --------------------------------------------------------------------------- the daemon on Dropbox


def _wait_for(cond: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


@pytest.mark.slow
def test_daemon_files_dropbox_documents_exactly_once(
    emulator: DropboxEmulator, tmp_path: Path
) -> None:
    """The real daemon (fake engine) on the emulator: 10% faults, target inside watch, the
    longpoll picking up a late file, and a revoked token stopping the connection."""
    from daemon.fakes import doc, fake_engine
    from renamerd.config import Settings
    from renamerd.runtime.daemon import Daemon
    from renamerd.service import jobs as J
    from renamerd.storage.database import Database
    from renamerd.storage.models import ConnectionState

    for h in make_harness(emulator):
        db = Database(f"sqlite:///{tmp_path / 'renamerd.db'}")
        db.upgrade()
        settings = Settings(
            database={"url": db.url},
            daemon={"state_dir": str(tmp_path / "state"), "lease_s": 10, "workers": 2},
            server={"shutdown_grace_s": 5},
            connections=[{
                "name": "box", "provider": "dropbox", "owner": "ada@example.org",
                "watch": "/Inbox", "target": "/Inbox/Library", "recursive": True,
                "poll_seconds": 10,
                "options": {
                    "app_key": "test-app", "app_secret": "test-secret",
                    "refresh_token": h.refresh_token, "endpoint": emulator.url,
                    "ca_bundle": emulator.ca_bundle,
                },
            }],
        )
        for i in range(5):
            h.put(f"/Inbox/scan{i}.pdf", doc(f"2024-02-{10 + i}", f"Shop{i}"))
        h.put("/Inbox/sub/scan0-copy.pdf", doc("2024-02-10", "Shop0") + b"copy\n")  # same name

        def counts() -> dict[str, int]:
            return J.JobQueue(db).counts()

        daemon = Daemon(settings, db, engine=fake_engine)
        h.faults.rate = 0.1
        daemon.start()
        try:
            _wait_for(lambda: counts()[J.DONE] == 6)
            h.faults.rate = 0.0
            time.sleep(0.5)  # let the daemon settle into its longpoll
            started = time.monotonic()
            h.put("/Inbox/late.pdf", doc("2024-03-01", "Late"))
            _wait_for(lambda: counts()[J.DONE] == 7)
            latency = time.monotonic() - started
            time.sleep(1.0)  # more polls see the filed files again: no new jobs
            assert sum(counts().values()) == 7
            print(f"dropbox: late file filed {latency:.2f}s after it landed (poll_seconds 10)")
            # the longpoll picks it up at once, not at the next 10 s poll
            assert latency < 3, f"late file filed after {latency:.1f}s"
            assert h.calls("/2/files/list_folder/longpoll") >= 1

            h.account.revoke(h.refresh_token)
            h.account.expire_access_tokens()
            h.put("/Inbox/after-revoke.pdf", doc("2024-04-01", "Never"))

            def stopped() -> bool:
                with db.session() as s:
                    state = s.get(ConnectionState, "box")
                    return state is not None and state.status == "stopped"

            _wait_for(stopped)
            with db.session() as s:
                state = s.get(ConnectionState, "box")
                assert state is not None and "renamerd connect dropbox" in (state.error or "")
        finally:
            assert daemon.stop(5)
            db.dispose()
        assert h.listing("/Inbox") == ["Library", "after-revoke.pdf", "sub"]
        assert h.listing("/Inbox/sub") == []
        filed = h.listing("/Inbox/Library/2024/invoice")
        assert len(filed) == 7 and "2024-02-10_Shop0 (2).pdf" in filed
        assert h.listing("/Inbox/Library/2024/Invoice") == filed  # case-insensitive lookup
