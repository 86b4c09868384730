"""The in-memory connector: the contract suite (both name modes) and its backdoor API."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from contract import ConnectorContract

from renamerd.connectors import (
    AuthError,
    ConfigError,
    Connector,
    NotFound,
    TransientError,
    load_connector,
)
from renamerd_connectors import memory
from renamerd_connectors.memory import MemoryConnector, MemoryDrive, MemoryFaults

_ids = itertools.count()


@dataclass
class MemoryHarness:
    connector: MemoryConnector
    drive: MemoryDrive
    root: str = "/"
    token: str = ""
    polls_to_settle: int = 1
    max_poll_calls: int = 1

    @property
    def faults(self) -> MemoryFaults:
        return self.drive.faults

    def put(self, path: str, data: bytes) -> None:
        self.drive.put(path, data)

    def read(self, path: str) -> bytes | None:
        return self.drive.read(path)

    def listing(self, folder: str) -> list[str]:
        return self.drive.listing(folder)

    def delete(self, path: str) -> None:
        self.drive.delete(path)

    def api_calls(self) -> int:
        return self.drive.faults.total_calls

    def revoke_access(self) -> None:
        self.drive.revoke(self.token)


def make_harness(
    case_insensitive: bool, root: str = "/", *, auth: bool = True
) -> Iterator[MemoryHarness]:
    name = f"contract-{next(_ids)}"
    d = memory.drive(name, case_insensitive=case_insensitive)
    d.auth_required = auth
    token = d.exchange(d.issue_code())
    conn = MemoryConnector({"drive": name, "page_size": 100, "refresh_token": token}, name=name)
    yield MemoryHarness(conn, conn.drive, root=root, token=token)
    conn.close()
    memory.forget_drive(name)


class TestMemoryCaseSensitive(ConnectorContract):
    @pytest.fixture
    def harness(self) -> Iterator[MemoryHarness]:
        yield from make_harness(False)


class TestMemoryCaseInsensitive(ConnectorContract):
    @pytest.fixture
    def harness(self) -> Iterator[MemoryHarness]:
        yield from make_harness(True, root="/Work/Area")


@pytest.fixture
def conn() -> Iterator[MemoryConnector]:
    yield from (h.connector for h in make_harness(False, auth=False))


def test_registered_under_entry_point() -> None:
    assert load_connector("memory") is MemoryConnector


def test_satisfies_protocol(conn: MemoryConnector) -> None:
    assert isinstance(conn, Connector)


def test_missing_drive_option() -> None:
    with pytest.raises(ConfigError, match="drive"):
        MemoryConnector({})
    with pytest.raises(ConfigError, match="page_size"):
        MemoryConnector({"drive": "x", "page_size": 0})


def test_two_connectors_share_a_drive(conn: MemoryConnector) -> None:
    other = MemoryConnector({"drive": conn.drive.name})
    conn.drive.put("/inbox/a.pdf", b"a")
    f = other.stat_path("/inbox/a.pdf")
    assert f is not None and conn.stat(f.id) == f


def test_injected_error_reaches_caller(conn: MemoryConnector) -> None:
    conn.drive.put("/inbox/a.pdf", b"a")
    conn.drive.inject("changes", AuthError("refresh token revoked"))
    with pytest.raises(AuthError, match="revoked"):
        conn.changes("/inbox", None)
    assert len(conn.changes("/inbox", None).files) == 1  # only once


def test_transient_faults_are_retried_until_spent(conn: MemoryConnector) -> None:
    conn.drive.put("/inbox/a.pdf", b"a")
    conn.drive.inject("stat_path", TransientError("busy", retry_after=0), times=3)
    assert conn.stat_path("/inbox/a.pdf") is not None
    assert conn.drive.faults.calls["stat_path"] == 4
    conn.drive.inject("stat_path", TransientError("busy", retry_after=0), times=20)
    with pytest.raises(TransientError):
        conn.stat_path("/inbox/a.pdf")


def test_moved_file_keeps_id_and_is_reported_again(conn: MemoryConnector) -> None:
    """Like Drive: a move inside the watched tree is a change; id and revision stay."""
    d = conn.drive
    d.put("/inbox/a.pdf", b"a")
    first = conn.changes("/inbox", None)
    (f,) = first.files
    sorted_id = conn.ensure_folder("/inbox/sorted")
    moved = conn.move(f.id, sorted_id, "b.pdf")
    again = conn.changes("/inbox", first.cursor)
    assert [(x.id, x.revision, x.path) for x in again.files] == [
        (f.id, f.revision, "/inbox/sorted/b.pdf")
    ]
    assert moved.id == f.id


def test_file_moved_in_from_outside_is_reported(conn: MemoryConnector) -> None:
    d = conn.drive
    d.put("/elsewhere/a.pdf", b"a")
    d.mkdir("/inbox")
    cur = conn.changes("/inbox", None)
    assert cur.files == []
    f = conn.stat_path("/elsewhere/a.pdf")
    assert f is not None
    conn.move(f.id, conn.ensure_folder("/inbox"), "a.pdf")
    assert [x.name for x in conn.changes("/inbox", cur.cursor).files] == ["a.pdf"]


def test_foreign_cursor_gives_reset_listing(conn: MemoryConnector) -> None:
    conn.drive.put("/inbox/a.pdf", b"a")
    result = conn.changes("/inbox", "mem:999999")
    assert result.reset and [f.name for f in result.files] == ["a.pdf"]
    assert conn.changes("/inbox", "junk").reset


def test_paging_counts_calls(conn: MemoryConnector) -> None:
    for i in range(250):
        conn.drive.put(f"/inbox/f{i}.pdf", b"x")
    before = conn.drive.faults.total_calls
    full = conn.changes("/inbox", None)
    assert len(full.files) == 250
    assert conn.drive.faults.total_calls - before == 3  # pages of 100


def test_deleted_folder_watch_not_found(conn: MemoryConnector) -> None:
    conn.drive.put("/inbox/a.pdf", b"a")
    cur = conn.changes("/inbox", None).cursor
    conn.drive.delete("/inbox")
    with pytest.raises(NotFound):
        conn.changes("/inbox", cur)


def test_download_writes_nothing_past_limit(conn: MemoryConnector) -> None:
    conn.drive.put("/a.pdf", b"abcdef")
    f = conn.stat_path("/a.pdf")
    assert f is not None
    buf = io.BytesIO()
    with pytest.raises(Exception, match="larger"):
        conn.download(f.id, buf, 3)
    assert len(buf.getvalue()) <= 3


def test_auth_required_drive_refuses_missing_or_used_codes() -> None:
    d = memory.drive("auth-test")
    d.auth_required = True
    try:
        with pytest.raises(AuthError, match="revoked or unknown"):
            MemoryConnector({"drive": "auth-test"}).stat_path("/x")
        code = d.issue_code()
        token = d.exchange(code)
        with pytest.raises(AuthError, match="code refused"):
            d.exchange(code)  # single use
        assert MemoryConnector({"drive": "auth-test", "refresh_token": token}).stat_path("/x") is None
    finally:
        memory.forget_drive("auth-test")


def test_no_change_lost_while_writing_during_polls(conn: MemoryConnector) -> None:
    import threading

    conn.drive.mkdir("/inbox")
    cursor = conn.changes("/inbox", None).cursor
    seen: set[str] = set()
    done = threading.Event()

    def writer() -> None:
        for i in range(400):
            conn.drive.put(f"/inbox/f{i:03d}.pdf", b"x")
        done.set()

    t = threading.Thread(target=writer)
    t.start()
    while not done.is_set():
        result = conn.changes("/inbox", cursor)
        seen.update(f.name for f in result.files)
        cursor = result.cursor
    t.join()
    seen.update(f.name for f in conn.changes("/inbox", cursor).files)
    assert seen == {f"f{i:03d}.pdf" for i in range(400)}
