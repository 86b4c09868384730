"""Google Drive connector: the contract suite (My Drive and a shared drive) against the Drive
emulator through the real google-api-python-client, plus Drive-specific behaviour: token refresh,
revoked tokens, throttling, duplicate folder names, the connect flow, the call budget at scale."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from contract import ConnectorContract

from emulators.base import Faults
from emulators.gdrive import FOLDER, DriveEmulator
from renamerd.connectors import (
    AuthError,
    ConfigError,
    Conflict,
    ConnectorError,
    TransientError,
    load_connector,
)
from renamerd_connectors.gdrive import GDriveConnector


@pytest.fixture(scope="module")
def drive_server() -> Iterator[DriveEmulator]:
    emu = DriveEmulator().start()
    yield emu
    emu.stop()


@pytest.fixture
def emulator(drive_server: DriveEmulator) -> DriveEmulator:
    """The module's emulator holding a fresh, empty account."""
    return drive_server.reset()


def options(emu: DriveEmulator, **extra: Any) -> dict[str, Any]:
    opts: dict[str, Any] = {
        "client_id": "emu-client", "client_secret": "emu-secret",
        "refresh_token": emu.state.issue_refresh_token(),
        "api_endpoint": emu.url, "token_uri": emu.token_uri, "ca_bundle": emu.ca_bundle,
        "pace_seconds": 0, "max_sleep": 0.2, "retries": 10,
    }
    opts.update(extra)
    return opts


@dataclass
class DriveHarness:
    emu: DriveEmulator
    connector: GDriveConnector
    #: backdoor prefix: "" for My Drive, "/drive:<id>" for a shared drive
    prefix: str = ""
    root: str = "/"
    max_poll_calls: int = 2
    closed: list[bool] = field(default_factory=list)

    @property
    def faults(self) -> Faults:
        return self.emu.faults

    def _b(self, path: str) -> str:
        return self.prefix + path

    def put(self, path: str, data: bytes) -> None:
        self.emu.state.put(self._b(path), data)

    def read(self, path: str) -> bytes | None:
        return self.emu.state.read(self._b(path))

    def listing(self, folder: str) -> list[str]:
        return self.emu.state.listing(self._b(folder))

    def delete(self, path: str) -> None:
        self.emu.state.delete(self._b(path))

    def api_calls(self) -> int:
        return self.emu.api_calls()

    def revoke_access(self) -> None:
        """Revoke the connection's refresh token and the access tokens minted from it."""
        self.emu.state.revoke(self.connector.opts.refresh_token or "")


class TestGDriveContract(ConnectorContract):
    @pytest.fixture
    def harness(self, emulator: DriveEmulator, tmp_path: Path) -> Iterator[DriveHarness]:
        conn = GDriveConnector(options(emulator), name="drive", state_dir=str(tmp_path))
        yield DriveHarness(emulator, conn)
        conn.close()
        report_faults(emulator)


class TestSharedDriveContract(ConnectorContract):
    @pytest.fixture
    def harness(self, emulator: DriveEmulator, tmp_path: Path) -> Iterator[DriveHarness]:
        drive_id = emulator.state.add_shared_drive("Team")
        emulator.state.put("/inbox/my-drive-only.pdf", b"not in the shared drive")
        conn = GDriveConnector(options(emulator, drive_id=drive_id), name="team", state_dir=str(tmp_path))
        yield DriveHarness(emulator, conn, prefix=f"/drive:{drive_id}")
        conn.close()
        report_faults(emulator)


def report_faults(emu: DriveEmulator) -> None:
    """Print what a fault run cost (shown with `pytest -s`)."""
    if emu.faults.injected:
        print(f"gdrive fault run: {emu.api_calls()} Drive calls, injected {dict(emu.faults.injected)}, "
              f"token refreshes {emu.state.refreshes}")


@pytest.fixture
def conn(emulator: DriveEmulator, tmp_path: Path) -> Iterator[GDriveConnector]:
    c = GDriveConnector(options(emulator), name="drive", state_dir=str(tmp_path))
    yield c
    c.close()


# ------------------------------------------------------------------ registry and options


def test_entry_point_loads_the_class() -> None:
    assert load_connector("gdrive") is GDriveConnector
    assert GDriveConnector.provider == "gdrive" and GDriveConnector.case_insensitive is False


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"client_id": "a", "client_secret": "b"}, "refresh_token"),
        ({"client_id": "a", "client_secret": "b", "refresh_token": "c", "colour": "red"}, "colour"),
        ({"service_account_file": "/no/such/key.json"}, "no such file"),
        ({"client_id": "a", "client_secret": "b", "refresh_token": "c", "ca_bundle": "/nope"}, "ca_bundle"),
        ({"client_id": "a", "client_secret": "b", "refresh_token": "c", "token_uri": "ftp://x"}, "token_uri"),
        ({"client_id": "a", "client_secret": "b", "refresh_token": "c", "retries": -1}, "retries"),
    ],
)
def test_bad_options_raise_config_error(opts: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        GDriveConnector(opts, name="x", state_dir=str(tmp_path))


def test_api_endpoint_gets_the_drive_path(tmp_path: Path) -> None:
    base = {"client_id": "a", "client_secret": "b", "refresh_token": "c"}
    for endpoint in ("https://proxy.example/", "https://proxy.example", "https://proxy.example/drive/v3/"):
        c = GDriveConnector({**base, "api_endpoint": endpoint}, name="x", state_dir=str(tmp_path))
        assert c.opts.base_url == "https://proxy.example/drive/v3/"
    assert GDriveConnector(base, name="x", state_dir=str(tmp_path)).opts.base_url == (
        "https://www.googleapis.com/drive/v3/"
    )


# ------------------------------------------------------------------ tokens


def test_expired_access_token_is_refreshed(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    emulator.state.put("/inbox/a.pdf", b"a")
    assert conn.stat_path("/inbox/a.pdf") is not None
    assert emulator.state.refreshes == 1
    emulator.state.expire_access_tokens()  # Google may end a token before its expires_in
    f = conn.stat_path("/inbox/a.pdf")
    assert f is not None and f.size == 1
    assert emulator.state.refreshes == 2


def test_short_lived_access_tokens_keep_working(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    emulator.state.access_token_lifetime = 0.05
    emulator.state.put("/inbox/a.pdf", b"a")
    _, cursor = poll_once(conn, "/inbox", None)
    import time

    for i in range(3):
        time.sleep(0.06)
        emulator.state.put(f"/inbox/n{i}.pdf", b"n")
        files, cursor = poll_once(conn, "/inbox", cursor)
        assert [f.name for f in files] == [f"n{i}.pdf"]
    assert emulator.state.refreshes >= 4


def test_revoked_refresh_token_raises_auth_error(emulator: DriveEmulator, tmp_path: Path) -> None:
    opts = options(emulator)
    c = GDriveConnector(opts, name="scans", state_dir=str(tmp_path))
    c.ensure_folder("/inbox")
    emulator.state.revoke(opts["refresh_token"])
    with pytest.raises(AuthError) as err:
        c.changes("/inbox", None)
    text = str(err.value)
    assert "scans" in text and "renamerd connect gdrive --connection scans" in text
    assert opts["refresh_token"] not in text
    # another connection on the same emulator keeps working
    other = GDriveConnector(options(emulator), name="other", state_dir=str(tmp_path))
    assert other.changes("/inbox", None).files == []


def test_service_account_jwt_grant(emulator: DriveEmulator, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    email = "renamerd@project.iam.gserviceaccount.com"
    key_file = tmp_path / "sa.json"
    key_file.write_text(json.dumps({
        "type": "service_account", "project_id": "p", "private_key_id": "k1", "private_key": pem,
        "client_email": email, "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token",
    }))
    opts = {"service_account_file": str(key_file), "token_uri": emulator.token_uri,
            "api_endpoint": emulator.url, "ca_bundle": emulator.ca_bundle, "pace_seconds": 0}
    c = GDriveConnector(opts, name="sa", state_dir=str(tmp_path))
    with pytest.raises(AuthError, match="sa"):  # key not known to Google (yet)
        c.ensure_folder("/lib")
    emulator.state.register_service_account(email, key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    c2 = GDriveConnector(opts, name="sa", state_dir=str(tmp_path))
    fid = c2.ensure_folder("/lib")
    assert emulator.state.listing("/") == ["lib"] and fid


# ------------------------------------------------------------------ errors and retries


def test_403_rate_limit_is_retried(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    emulator.state.put("/inbox/a.pdf", b"a")
    conn.ensure_folder("/inbox")
    before = emulator.api_calls()
    emulator.state.fail_next(403, "userRateLimitExceeded", 2)
    emulator.state.fail_next(429, "rateLimitExceeded", 1)
    assert conn.stat_path("/inbox/a.pdf") is not None
    assert emulator.api_calls() - before == 4


def test_403_permission_is_not_retried(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    emulator.state.put("/inbox/a.pdf", b"a")
    f = conn.stat_path("/inbox/a.pdf")
    assert f is not None
    dest = conn.ensure_folder("/lib")
    before = emulator.api_calls()
    emulator.state.fail_next(403, "insufficientFilePermissions", 1)
    with pytest.raises(ConnectorError, match="insufficientFilePermissions") as err:
        conn.move(f.id, dest, "b.pdf")
    assert not isinstance(err.value, TransientError)
    assert emulator.api_calls() - before == 1


def test_retries_spent_give_transient_error(emulator: DriveEmulator, tmp_path: Path) -> None:
    c = GDriveConnector(options(emulator, retries=2), name="x", state_dir=str(tmp_path))
    c.ensure_folder("/inbox")
    emulator.state.fail_next(503, "backendError", 3)
    with pytest.raises(TransientError):
        c.changes("/inbox", None)
    assert c.changes("/inbox", None).files == []


def test_refused_page_token_falls_back_to_listing(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    emulator.state.put("/inbox/a.pdf", b"a")
    result = conn.changes("/inbox", "not-a-token")
    assert result.reset and [f.name for f in result.files] == ["a.pdf"]
    assert result.cursor.isdigit()


def test_chunked_download_under_faults(emulator: DriveEmulator, conn: GDriveConnector,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from renamerd_connectors.gdrive import api

    monkeypatch.setattr(api, "CHUNK", 1000)
    data = bytes(range(256)) * 40
    emulator.state.put("/inbox/blob.pdf", data)
    f = conn.stat_path("/inbox/blob.pdf")
    assert f is not None
    emulator.faults.rate = 0.3
    buf = io.BytesIO()
    assert conn.download(f.id, buf, len(data)) == len(data)
    emulator.faults.rate = 0
    assert buf.getvalue() == data
    assert sum(n for path, n in emulator.faults.calls.items() if path.endswith(f.id)) >= 11
    empty_id = emulator.state.put("/inbox/empty.pdf", b"")
    assert conn.download(empty_id, io.BytesIO(), 10) == 0


# ------------------------------------------------------------------ Drive specifics


def test_duplicate_folder_names_take_the_oldest(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    with st.lock:
        older = st.create("lib", FOLDER, st.root_id).id
        st.create("lib", FOLDER, st.root_id)
    assert conn.ensure_folder("/lib") == older
    st.put("/lib/a.pdf", b"in the oldest")  # the backdoor also resolves to the oldest
    f = conn.stat_path("/lib/a.pdf")
    assert f is not None and f.parent_id == older


def test_folder_created_twice_keeps_the_oldest(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    root = conn.tree().root_id
    with st.lock:
        first = st.create("2024", FOLDER, root).id  # made by another process meanwhile
    assert conn._create_folder(root, "2024") == first
    assert st.listing("/") == ["2024"]


def test_move_steps_back_when_the_name_is_taken_meanwhile(
    emulator: DriveEmulator, conn: GDriveConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    st = emulator.state
    st.put("/inbox/scan.pdf", b"mine")
    f = conn.stat_path("/inbox/scan.pdf")
    assert f is not None
    dest = conn.ensure_folder("/lib")
    real_update = conn._update

    def racing_update(*args: Any, **kwargs: Any) -> Any:
        st.put("/lib/invoice.pdf", b"theirs")  # lands between our check and our move
        monkeypatch.setattr(conn, "_update", real_update)
        return real_update(*args, **kwargs)

    monkeypatch.setattr(conn, "_update", racing_update)
    with pytest.raises(Conflict):
        conn.move(f.id, dest, "invoice.pdf")
    assert st.listing("/lib") == ["invoice.pdf"]
    assert st.read("/lib/invoice.pdf") == b"theirs"
    assert st.read("/inbox/scan.pdf") == b"mine"


def test_docs_editors_files_and_trash_are_skipped(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    inbox = st.mkdir("/inbox")
    with st.lock:
        st.create("Notes", "application/vnd.google-apps.document", inbox)
    st.put("/inbox/a.pdf", b"a")
    files, cursor = poll_once(conn, "/inbox", None)
    assert [f.name for f in files] == ["a.pdf"]
    with st.lock:
        st.create("Sheet", "application/vnd.google-apps.spreadsheet", inbox)
        trashed = st.create("binned.pdf", "application/pdf", inbox, b"x")
        trashed.trashed = True
        st._touch(trashed.id)
    files, _ = poll_once(conn, "/inbox", cursor)
    assert files == []


def test_folder_renamed_in_the_feed_updates_paths(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    st.put("/inbox/sub/a.pdf", b"a")
    _, cursor = poll_once(conn, "/inbox", None)
    with st.lock:
        sub = st._walk("/inbox/sub", create=False)
        assert sub is not None
        st.items[sub].name = "renamed"
        st._touch(sub)
    st.put("/inbox/renamed/b.pdf", b"b")
    files, _ = poll_once(conn, "/inbox", cursor)
    assert [f.path for f in files] == ["/inbox/renamed/b.pdf"]


def test_changes_elsewhere_cost_a_lookup_once(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    st.put("/inbox/a.pdf", b"a")
    _, cursor = poll_once(conn, "/inbox", None)
    for i in range(30):
        st.put(f"/photos/2024/p{i}.pdf", b"p")
    before = emulator.api_calls()
    files, cursor = poll_once(conn, "/inbox", cursor)
    assert files == []
    assert emulator.api_calls() - before <= 3  # changes.list + files.get for photos/2024, photos
    for i in range(30):
        st.put(f"/photos/2024/q{i}.pdf", b"q")
    before = emulator.api_calls()
    assert poll_once(conn, "/inbox", cursor)[0] == []
    assert emulator.api_calls() - before == 1


def poll_once(conn: GDriveConnector, watch: str, cursor: str | None) -> tuple[list[Any], str]:
    result = conn.changes(watch, cursor)
    return sorted(result.files, key=lambda f: f.name), result.cursor


# ------------------------------------------------------------------ connect flow


def _connect_opts(emu: DriveEmulator, **extra: Any) -> dict[str, Any]:
    return {"client_id": "emu-client", "client_secret": "emu-secret", "auth_uri": emu.auth_uri,
            "token_uri": emu.token_uri, "ca_bundle": emu.ca_bundle, "connect_timeout": 20, **extra}


def test_connect_flow_loopback(emulator: DriveEmulator, tmp_path: Path) -> None:
    lines: list[str] = []
    shown = threading.Event()
    result: dict[str, Any] = {}

    def echo(line: str) -> None:
        lines.append(line)
        if line.startswith("https://"):
            shown.set()

    def run() -> None:
        try:
            result["token"] = GDriveConnector.connect_flow(
                _connect_opts(emulator), echo=echo, prompt=lambda _: pytest.fail("no prompt expected"))
        except Exception as err:  # handed to the test thread
            result["error"] = err

    worker = threading.Thread(target=run)
    worker.start()
    assert shown.wait(10)
    url = next(line for line in lines if line.startswith("https://"))
    assert "code_challenge=" in url and "access_type=offline" in url
    # the "browser": consent at the emulator, then follow the redirect to the loopback server
    page = httpx.get(url, verify=emulator.ca_bundle, follow_redirects=True, timeout=10)
    assert page.status_code == 200 and "granted" in page.text
    worker.join(10)
    assert "error" not in result, result.get("error")
    token = result["token"]
    assert token.startswith("1//")
    c = GDriveConnector(options(emulator, refresh_token=token), name="new", state_dir=str(tmp_path))
    assert c.ensure_folder("/connected")


def test_connect_flow_headless_paste(emulator: DriveEmulator) -> None:
    lines: list[str] = []

    def paste(_question: str) -> str:
        url = next(line for line in lines if line.startswith("https://"))
        consent = httpx.get(url, verify=emulator.ca_bundle, follow_redirects=False)
        assert consent.status_code == 302
        return consent.headers["location"]

    token = GDriveConnector.connect_flow(_connect_opts(emulator, headless=True), echo=lines.append,
                                         prompt=paste)
    assert token.startswith("1//") and token in emulator.state.tokens


def test_connect_flow_rejects_a_forged_state(emulator: DriveEmulator) -> None:
    def paste(_question: str) -> str:
        return "http://127.0.0.1:1/?state=forged&code=4/abc"

    with pytest.raises(AuthError, match="state"):
        GDriveConnector.connect_flow(_connect_opts(emulator, headless=True), echo=lambda _: None,
                                     prompt=paste)


# ------------------------------------------------------------------ scale


@pytest.mark.slow
def test_poll_cost_and_memory_stay_flat_as_the_drive_grows(
    emulator: DriveEmulator, conn: GDriveConnector
) -> None:
    import tracemalloc

    st = emulator.state
    measured: dict[int, tuple[int, int, int, int]] = {}
    seeded = 0
    for size in (1000, 5000):
        _seed_range(st, seeded, size)
        seeded = size
        _, cursor = poll_once(conn, "/inbox", None)
        before = emulator.api_calls()
        idle, cursor = poll_once(conn, "/inbox", cursor)
        idle_cost = emulator.api_calls() - before
        assert idle == []
        for i in range(20):
            st.put(f"/inbox/new-{size}-{i:02d}.pdf", b"n%d" % i)
        tracemalloc.start()
        before = emulator.api_calls()
        files, cursor = poll_once(conn, "/inbox", cursor)
        cost = emulator.api_calls() - before
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(files) == 20
        measured[size] = (idle_cost, cost, peak, len(conn.tree()))
    print("gdrive poll cost (idle calls, 20-new calls, peak bytes, cached folders):", measured)
    assert measured[5000][0] == 1 and measured[5000][1] == 1
    assert measured[5000][2] < measured[1000][2] * 1.5 + 65536
    assert measured[5000][3] <= 30  # folders, not files, are cached


def _seed_range(st: Any, start: int, stop: int) -> None:
    for i in range(start, stop):
        where = "inbox/old" if i % 2 else "archive"
        st.put(f"/{where}/{i // 500:02d}/seed{i:05d}.pdf", b"s%d" % i)


def test_move_refuses_names_that_break_paths(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    emulator.state.put("/inbox/a.pdf", b"a")
    f = conn.stat_path("/inbox/a.pdf")
    assert f is not None
    dest = conn.ensure_folder("/lib")
    for bad in ("", "x/y.pdf", ".."):
        with pytest.raises(ConnectorError):
            conn.move(f.id, dest, bad)
    assert emulator.state.listing("/lib") == []


def test_lost_replies_are_retried_idempotently(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    st.put("/inbox/scan.pdf", b"scan")
    f = conn.stat_path("/inbox/scan.pdf")
    assert f is not None
    st.lose_reply("POST")  # the folder is made, the answer lost: the retry makes a second one
    st.lose_reply("DELETE")  # and removing that duplicate is answered with an error, though done
    dest = conn.ensure_folder("/lib")
    assert st.listing("/") == ["inbox", "lib"]  # the duplicate was removed, the oldest kept
    assert dest == st.mkdir("/lib")
    st.lose_reply("PATCH")  # the move happens, the answer is lost: the retry repeats it
    moved = conn.move(f.id, dest, "2024 Invoice.pdf")
    assert moved.path == "/lib/2024 Invoice.pdf"
    assert st.listing("/lib") == ["2024 Invoice.pdf"] and st.listing("/inbox") == []


def test_my_drive_feed_ignores_shared_drives(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    team = st.add_shared_drive("Team")
    st.put("/inbox/a.pdf", b"a")
    _, cursor = poll_once(conn, "/inbox", None)
    for i in range(5):
        st.put(f"/drive:{team}/inbox/t{i}.pdf", b"t")
    st.put("/inbox/b.pdf", b"b")
    before = emulator.api_calls()
    files, _ = poll_once(conn, "/inbox", cursor)
    assert [f.name for f in files] == ["b.pdf"]
    assert emulator.api_calls() - before == 1


# ------------------------------------------------------------------ the daemon on Drive


@pytest.mark.slow
def test_daemon_files_drive_scans_once_under_faults(emulator: DriveEmulator, tmp_path: Path) -> None:
    """The real daemon, engine and connector against the emulator with 20% of Drive calls
    failing: every scan ends up renamed and filed once, with one credit charged each."""
    import time

    from daemon.e2e import invoice_pdf
    from renamerd.config import Settings
    from renamerd.runtime.daemon import Daemon
    from renamerd.service import jobs as J
    from renamerd.storage.database import Database

    st = emulator.state
    scans = {f"scan{i:02d}.pdf": invoice_pdf(i) for i in range(8)}
    for name, data in scans.items():
        st.put(f"/Scans/Inbox/{name}", data)
    db = Database(f"sqlite:///{tmp_path / 'renamerd.db'}")
    db.upgrade()
    settings = Settings(
        database={"url": db.url},
        daemon={"state_dir": str(tmp_path / "state"), "lease_s": 10, "workers": 2, "retry_backoff_s": 0.2},
        connections=[{"name": "gd", "provider": "gdrive", "owner": "ada@example.org",
                      "watch": "/Scans/Inbox", "target": "/Documents", "poll_seconds": 0.3,
                      "strategy": "by_date_type", "options": options(emulator)}],
    )
    emulator.faults.rate = 0.2
    daemon = Daemon(settings, db)
    daemon.start()
    try:
        deadline = time.monotonic() + 90
        while J.JobQueue(db).counts()[J.DONE] < len(scans):
            assert time.monotonic() < deadline, J.JobQueue(db).counts()
            time.sleep(0.1)
        time.sleep(1.0)  # a few more polls: nothing is picked up twice
    finally:
        assert daemon.stop(10)
        emulator.faults.rate = 0
    counts = J.JobQueue(db).counts()
    assert counts[J.DONE] == len(scans) and counts[J.FAILED] == 0, counts
    assert st.listing("/Scans/Inbox") == []
    filed: dict[str, bytes] = {}
    with st.lock:
        for item in st.items.values():
            if item.mime != FOLDER:
                filed[item.name] = item.content
    assert sorted(filed.values()) == sorted(scans.values())  # each scan once, none lost
    assert all(name.endswith(".pdf") and name not in scans for name in filed)
    assert any(name.startswith("2024-") for name in filed), sorted(filed)
    assert emulator.faults.injected, "the run injected no faults"
    print(f"daemon on Drive: {emulator.api_calls()} calls, injected {dict(emulator.faults.injected)}, "
          f"filed {sorted(filed)}")


def test_instances_of_one_connection_share_the_pace(emulator: DriveEmulator, tmp_path: Path) -> None:
    a = GDriveConnector(options(emulator, pace_seconds=0.05), name="paced", state_dir=str(tmp_path))
    b = GDriveConnector(options(emulator, pace_seconds=0.05), name="paced", state_dir=str(tmp_path))
    other = GDriveConnector(options(emulator, pace_seconds=0.05), name="other", state_dir=str(tmp_path))
    assert a.api.pacer is b.api.pacer and a.api.pacer is not other.api.pacer
    import time

    a.ensure_folder("/x")
    b.ensure_folder("/x")
    start = time.monotonic()
    for i in range(6):  # two instances (two worker threads' connectors) alternating
        (a if i % 2 else b).stat_path("/x/none.pdf")
    assert time.monotonic() - start >= 0.05 * 5
    for c in (a, b, other):
        c.close()


# ------------------------------------------------------------------ the emulator's own parsers


def test_emulator_fields_mask() -> None:
    from emulators.gdrive_query import apply_fields, parse_fields

    tree = parse_fields("nextPageToken, files(id,name), changes/file(parents)")
    assert tree == {"nextPageToken": None, "files": {"id": None, "name": None},
                    "changes": {"file": {"parents": None}}}
    body = {"nextPageToken": "t", "kind": "k", "files": [{"id": "1", "name": "a", "size": "3"}]}
    assert apply_fields(body, tree) == {"nextPageToken": "t", "files": [{"id": "1", "name": "a"}]}


def test_emulator_query_language() -> None:
    from dataclasses import dataclass as dc

    from emulators.gdrive_query import ApiError, parse_query

    @dc
    class It:
        name: str
        mime: str = "application/pdf"
        parent: str | None = "P"
        trashed: bool = False
        created: str = "2026-01-01T00:00:00.000Z"
        modified: str = "2026-01-01T00:00:00.000Z"

    pred, hint = parse_query(r"'P' in parents and name = 'O\'Brien \\ Co.pdf' and trashed = false")
    assert hint == "P"
    assert pred(It("O'Brien \\ Co.pdf")) and not pred(It("o'brien \\ co.pdf"))
    pred, hint = parse_query("not (name contains 'x' or mimeType = 'a/b')")
    assert hint is None and pred(It("abc")) and not pred(It("xyz"))
    with pytest.raises(ApiError):
        parse_query("fullText contains 'x'")


def test_quotes_and_backslashes_in_names(emulator: DriveEmulator, conn: GDriveConnector) -> None:
    st = emulator.state
    st.put("/in'box/O'Brien \\ invoice.pdf", b"ob")
    f = conn.stat_path("/in'box/O'Brien \\ invoice.pdf")
    assert f is not None and f.size == 2
    dest = conn.ensure_folder("/Smith's")
    moved = conn.move(f.id, dest, "Smith's \\ 2024.pdf")
    assert moved.path == "/Smith's/Smith's \\ 2024.pdf"
    assert st.read("/Smith's/Smith's \\ 2024.pdf") == b"ob"


# ------------------------------------------------------------------ `renamerd connect gdrive`


def test_cli_connect_gdrive_stores_a_working_token(
    emulator: DriveEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import click
    from cryptography.fernet import Fernet

    from clirun import run_cli
    from renamerd.config import load_settings
    from renamerd.connectors import open_connector
    from renamerd.service.secrets import connector_options
    from renamerd.storage.database import Database

    monkeypatch.setenv("RENAMERD_SECRETS__KEY", Fernet.generate_key().decode())
    monkeypatch.setenv("GDRIVE_SECRET", "emu-secret")
    cfg = tmp_path / "renamerd.toml"
    cfg.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'renamerd.db'}"

[[connections]]
name = "gd"
provider = "gdrive"
owner = "ada@example.org"
watch = "/Inbox"
[connections.options]
client_id = "emu-client"
client_secret = {{ env = "GDRIVE_SECRET" }}
api_endpoint = "{emulator.url}"
token_uri = "{emulator.token_uri}"
auth_uri = "{emulator.auth_uri}"
ca_bundle = "{emulator.ca_bundle}"
headless = true
""")
    printed: list[str] = []
    real_echo = click.echo

    def echo(message: object = None, *args: Any, **kwargs: Any) -> None:
        printed.append(str(message))
        real_echo(message, *args, **kwargs)

    def paste(_text: str, **_kwargs: Any) -> str:  # the person copies the redirected address
        url = next(line for line in printed if line.startswith(emulator.auth_uri))
        return httpx.get(url, verify=emulator.ca_bundle).headers["location"]

    monkeypatch.setattr(click, "echo", echo)
    monkeypatch.setattr(click, "prompt", paste)
    r = run_cli(capsys, "connect", "gdrive", "--connection", "gd", "--config", str(cfg))
    assert r.code == 0, r.err
    assert "is connected" in r.out
    settings = load_settings(cfg)
    db = Database(settings.database.url)
    opts = connector_options(db, settings, settings.connections[0])
    assert opts["refresh_token"] in emulator.state.tokens
    st = emulator.state
    st.put("/Inbox/a.pdf", b"a")
    conn = open_connector("gdrive", opts, name="gd", state_dir=str(tmp_path))
    assert [f.name for f in conn.changes("/Inbox", None).files] == ["a.pdf"]
    conn.close()
    db.dispose()


def test_token_endpoint_outage_is_transient(emulator: DriveEmulator, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from google.auth import _exponential_backoff

    # google-auth's own retry of the token request waits 1 s, 2 s: skip the waiting
    monkeypatch.setattr(_exponential_backoff, "time", types.SimpleNamespace(sleep=lambda _s: None))
    c = GDriveConnector(options(emulator, retries=1), name="x", state_dir=str(tmp_path))
    emulator.state.token_failures = 1  # google-auth retries the token request itself
    assert c.ensure_folder("/lib")
    emulator.state.expire_access_tokens()
    emulator.state.token_failures = 100
    with pytest.raises(TransientError):  # not AuthError: nothing was revoked
        c.ensure_folder("/lib2")
    emulator.state.token_failures = 0
    assert c.ensure_folder("/lib2")
    c.close()
