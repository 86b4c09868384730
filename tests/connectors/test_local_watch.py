"""inotify watching of local folders: `FolderWatch` and `LocalConnector.wait_for_changes`."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from renamerd_connectors.local import LocalConnector
from renamerd_connectors.local.watch import FolderWatch, INotify

pytestmark = pytest.mark.skipif(INotify is None, reason="inotify is Linux only")


def later(seconds: float, action) -> threading.Thread:  # type: ignore[no-untyped-def]
    def run() -> None:
        time.sleep(seconds)
        action()

    t = threading.Thread(target=run)
    t.start()
    return t


def timed_wait(watch: FolderWatch, timeout: float) -> tuple[bool, float]:
    t0 = time.monotonic()
    news = watch.wait(timeout)
    return news, time.monotonic() - t0


def test_a_new_file_wakes_the_waiter_at_once(tmp_path: Path) -> None:
    connector = LocalConnector({})
    watch = FolderWatch(str(tmp_path), True, connector.ignored)
    try:
        t = later(0.2, lambda: (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4"))
        news, took = timed_wait(watch, 10)
        t.join()
        assert news and took < 5
    finally:
        watch.close()


def test_temporary_names_and_files_leaving_do_not_wake_it(tmp_path: Path) -> None:
    connector = LocalConnector({})
    (tmp_path / "old.pdf").write_bytes(b"x")
    watch = FolderWatch(str(tmp_path), False, connector.ignored)
    try:
        (tmp_path / "scan.pdf.part").write_bytes(b"%PDF-1.4 half")  # still being copied
        (tmp_path / "old.pdf").unlink()  # a document leaving (what the daemon does)
        assert timed_wait(watch, 0.3)[0] is False
        os.rename(tmp_path / "scan.pdf.part", tmp_path / "scan.pdf")  # the copy is complete
        assert timed_wait(watch, 5)[0] is True
    finally:
        watch.close()


def test_new_subfolders_are_watched_too(tmp_path: Path) -> None:
    connector = LocalConnector({})
    watch = FolderWatch(str(tmp_path), True, connector.ignored)
    try:
        (tmp_path / "2024").mkdir()
        assert watch.wait(5) is True
        assert watch.wait(0.2) is False
        (tmp_path / "2024" / "scan.pdf").write_bytes(b"%PDF-1.4")
        assert watch.wait(5) is True
    finally:
        watch.close()


def test_wait_for_changes_picks_a_file_up_without_waiting_for_the_poll(tmp_path: Path) -> None:
    connector = LocalConnector({"stable_checks": 1})
    try:
        first = connector.changes(str(tmp_path), None)
        assert connector.wait_for_changes(first.cursor, 30) is True  # new watch: look once more
        t = later(0.2, lambda: (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4"))
        t0 = time.monotonic()
        assert connector.wait_for_changes(first.cursor, 30) is True
        assert time.monotonic() - t0 < 10
        t.join()
        assert [f.name for f in connector.changes(str(tmp_path), first.cursor).files] == [
            "scan.pdf"]
    finally:
        connector.close()


def test_unsettled_files_are_looked_at_again_after_settle_seconds(tmp_path: Path) -> None:
    connector = LocalConnector({"stable_checks": 2, "settle_seconds": 0.3})
    try:
        (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4")
        seen = connector.changes(str(tmp_path), None)
        assert seen.files == []  # one look: not settled yet
        connector.wait_for_changes(seen.cursor, 30)  # the new watch
        t0 = time.monotonic()
        assert connector.wait_for_changes(seen.cursor, 30) is True
        assert 0.2 < time.monotonic() - t0 < 10
        assert [f.name for f in connector.changes(str(tmp_path), seen.cursor).files] == [
            "scan.pdf"]
    finally:
        connector.close()


def test_without_inotify_it_waits_out_the_timeout(tmp_path: Path) -> None:
    connector = LocalConnector({"inotify": False})
    cursor = connector.changes(str(tmp_path), None).cursor
    t0 = time.monotonic()
    assert connector.wait_for_changes(cursor, 0.3) is True
    assert time.monotonic() - t0 >= 0.29


def test_a_file_still_being_written_does_not_wake_it_until_closed(tmp_path: Path) -> None:
    connector = LocalConnector({})
    watch = FolderWatch(str(tmp_path), False, connector.ignored)
    try:
        with open(tmp_path / "scan.pdf", "wb") as fh:
            fh.write(b"%PDF-1.4 first half")
            fh.flush()
            assert timed_wait(watch, 0.3)[0] is False
        assert timed_wait(watch, 5)[0] is True  # closed: complete
    finally:
        watch.close()
