"""The local connector: the contract suite, then what only local folders have (settling, temp
files, atomic no-overwrite moves, cross-filesystem moves, its own moves never picked up again)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from contract import ConnectorContract

from renamerd.connectors import ConfigError, Conflict, Connector, NotFound, load_connector
from renamerd_connectors.local import LocalConnector, moved_log, moves, paths


@dataclass
class LocalHarness:
    connector: LocalConnector
    root: str
    faults: None = None
    polls_to_settle: int = 2
    max_poll_calls: int = 0
    #: a directory scan holds the folder's listing by nature: about 1.1 KB per file (5.5 MB for
    #: the scale check's 5,000), so local gets a limit that still catches a doubling
    max_poll_bytes: int = 8 * 2**20

    def put(self, path: str, data: bytes) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)

    def read(self, path: str) -> bytes | None:
        try:
            return Path(path).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None

    def listing(self, folder: str) -> list[str]:
        try:
            return sorted(os.listdir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def delete(self, path: str) -> None:
        os.unlink(path)

    def api_calls(self) -> int:
        return 0


class TestLocal(ConnectorContract):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> Iterator[LocalHarness]:
        # in RAM where there is a tmpfs: seeding 5,000 files on a busy disk takes seconds
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        with tempfile.TemporaryDirectory(prefix="renamerd-local-", dir=shm or tmp_path) as d:
            root = Path(d) / "drive"
            root.mkdir()
            conn = LocalConnector({}, name="contract", state_dir=str(tmp_path / "state"))
            yield LocalHarness(conn, str(root))
            conn.close()


def write(path: Path, data: bytes, mtime_ns: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


@pytest.fixture
def conn(tmp_path: Path) -> LocalConnector:
    return LocalConnector({}, name="scans", state_dir=str(tmp_path / "state"))


def test_registered_and_protocol(conn: LocalConnector) -> None:
    assert load_connector("local") is LocalConnector
    assert isinstance(conn, Connector)
    assert conn.case_insensitive is False


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"stable_checks": 0}, "at least 1"),
        ({"stable_checks": "x"}, "number"),
        ({"ignore": "*.x"}, "list"),
        ({"colour": "blue"}, "unknown option"),
    ],
)
def test_bad_options(options: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        LocalConnector(options)


def test_file_reported_only_once_stable(conn: LocalConnector, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    scan = write(inbox / "scan.pdf", b"part one", 1_000_000_000)
    first = conn.changes(str(inbox), None)
    assert first.files == []
    write(scan, b"part one, part two", 2_000_000_000)  # the scanner is still writing
    second = conn.changes(str(inbox), first.cursor)
    assert second.files == []
    third = conn.changes(str(inbox), second.cursor)
    assert [(f.name, f.size) for f in third.files] == [("scan.pdf", 18)]
    fourth = conn.changes(str(inbox), third.cursor)
    assert fourth.files == [] and fourth.cursor == third.cursor


def test_stable_checks_option(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    write(inbox / "a.pdf", b"a")
    once = LocalConnector({"stable_checks": 1})
    assert [f.name for f in once.changes(str(inbox), None).files] == ["a.pdf"]
    thrice = LocalConnector({"stable_checks": 3})
    c1 = thrice.changes(str(inbox), None)
    c2 = thrice.changes(str(inbox), c1.cursor)
    c3 = thrice.changes(str(inbox), c2.cursor)
    assert (c1.files, c2.files, [f.name for f in c3.files]) == ([], [], ["a.pdf"])


def test_temporary_and_hidden_files_ignored(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    for name in [".hidden.pdf", "~$report.docx", "big.pdf.part", "dl.pdf.crdownload",
                 "x.tmp", "skip-me.bak", "real.pdf"]:
        write(inbox / name, b"x")
    write(inbox / ".trash" / "old.pdf", b"x")
    c = LocalConnector({"stable_checks": 1, "ignore": ["*.bak"]})
    assert [f.name for f in c.changes(str(inbox), None, recursive=True).files] == ["real.pdf"]
    assert c.ignored("~$x.xlsx") and not c.ignored("report.pdf")


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    outside = write(tmp_path / "outside" / "secret.pdf", b"x")
    inbox.mkdir()
    (inbox / "link.pdf").symlink_to(outside)
    (inbox / "dirlink").symlink_to(outside.parent, target_is_directory=True)
    c = LocalConnector({"stable_checks": 1})
    assert c.changes(str(inbox), None, recursive=True).files == []


def test_foreign_cursor_resets(conn: LocalConnector, tmp_path: Path) -> None:
    write(tmp_path / "inbox" / "a.pdf", b"a")
    write(tmp_path / "other" / "b.pdf", b"b")
    other = conn.changes(str(tmp_path / "other"), None).cursor
    for cursor in (other, "not json", '{"v": 1}'):
        result = conn.changes(str(tmp_path / "inbox"), cursor)
        assert result.reset and result.files == []
    assert not conn.changes(str(tmp_path / "inbox"), None).reset


def test_own_moves_never_reported_even_inside_watch(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    write(inbox / "scan.pdf", b"invoice")
    state = str(tmp_path / "state")
    c = LocalConnector({"stable_checks": 1}, name="scans", state_dir=state)
    first = c.changes(str(inbox), None, recursive=True)
    (f,) = first.files
    moved = c.move(f.id, c.ensure_folder(str(inbox / "sorted" / "2024")), "Invoice.pdf")
    assert moved.revision == f.revision
    assert c.changes(str(inbox), first.cursor, recursive=True).files == []
    # a new process (fresh connector, fresh cursor) remembers it through state_dir
    again = LocalConnector({"stable_checks": 1}, name="scans", state_dir=state)
    assert again.changes(str(inbox), None, recursive=True).files == []
    # ...until someone edits the file
    write(Path(moved.path), b"edited by a person")
    assert [x.name for x in again.changes(str(inbox), None, recursive=True).files] == [
        "Invoice.pdf"
    ]


def test_moved_log_is_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moved_log.MovedLog, "PRUNE_ABOVE", 3)
    c = LocalConnector({"stable_checks": 1}, name="s", state_dir=str(tmp_path / "state"))
    lib = c.ensure_folder(str(tmp_path / "lib"))
    for i in range(5):
        src = write(tmp_path / "in" / f"{i}.pdf", b"%d" % i)
        c.move(str(src), lib, f"{i}.pdf")
    for i in range(3):
        os.unlink(tmp_path / "lib" / f"{i}.pdf")
    entries = c.moved.entries()
    assert sorted(entries) == [str(tmp_path / "lib" / f"{i}.pdf") for i in (3, 4)]
    log_file = tmp_path / "state" / "local-moved-s.jsonl"
    assert len(log_file.read_text().splitlines()) == 2
    assert all(json.loads(line)["p"].endswith(".pdf") for line in log_file.read_text().splitlines())
    # the log stays open for appending: moves after the rewrite land after the kept lines
    for i in (5, 6):
        c.move(str(write(tmp_path / "in" / f"{i}.pdf", b"%d" % i)), lib, f"{i}.pdf")
    assert [json.loads(line)["p"][-5:] for line in log_file.read_text().splitlines()] == [
        "3.pdf", "4.pdf", "5.pdf", "6.pdf"]


def test_moved_log_removed_under_a_running_connector(tmp_path: Path) -> None:
    """An admin who clears the state folder does not make later moves vanish into a deleted
    file: the log is opened again."""
    c = LocalConnector({"stable_checks": 1}, name="s", state_dir=str(tmp_path / "state"))
    lib = c.ensure_folder(str(tmp_path / "lib"))
    c.move(str(write(tmp_path / "in" / "a.pdf", b"a")), lib, "a.pdf")
    shutil.rmtree(tmp_path / "state")
    c.move(str(write(tmp_path / "in" / "b.pdf", b"b")), lib, "b.pdf")
    again = LocalConnector({"stable_checks": 1}, name="s", state_dir=str(tmp_path / "state"))
    assert list(again.moved.entries()) == [str(tmp_path / "lib" / "b.pdf")]
    c.close()
    c.close()


def test_move_race_never_overwrites(conn: LocalConnector, tmp_path: Path) -> None:
    """Many threads move different files onto one name: one wins, nothing is lost."""
    lib = conn.ensure_folder(str(tmp_path / "lib"))
    sources = [write(tmp_path / "in" / f"s{i}.pdf", b"content %d" % i) for i in range(12)]
    results: list[str] = []
    barrier = threading.Barrier(len(sources))

    def go(src: Path) -> None:
        barrier.wait()
        try:
            conn.move(str(src), lib, "same.pdf")
            results.append("moved")
        except Conflict:
            results.append("conflict")

    threads = [threading.Thread(target=go, args=(s,)) for s in sources]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict"] * 11 + ["moved"]
    remaining = {p.read_bytes() for p in (tmp_path / "in").iterdir()}
    winner = (tmp_path / "lib" / "same.pdf").read_bytes()
    assert remaining | {winner} == {b"content %d" % i for i in range(12)}
    assert winner not in remaining


def test_interrupted_move_is_completed_by_repeating(conn: LocalConnector, tmp_path: Path) -> None:
    src = write(tmp_path / "in" / "a.pdf", b"abc")
    lib = conn.ensure_folder(str(tmp_path / "lib"))
    os.link(src, tmp_path / "lib" / "b.pdf")  # crashed after link, before unlink
    moved = conn.move(str(src), lib, "b.pdf")
    assert not src.exists()
    assert moved.path == str(tmp_path / "lib" / "b.pdf")
    assert (tmp_path / "lib" / "b.pdf").read_bytes() == b"abc"


def test_move_errors(conn: LocalConnector, tmp_path: Path) -> None:
    src = write(tmp_path / "in" / "a.pdf", b"abc")
    with pytest.raises(NotFound):
        conn.move(str(src), str(tmp_path / "no-such-folder"), "a.pdf")
    with pytest.raises(NotFound):
        conn.move(str(tmp_path / "in"), str(tmp_path / "in"), "x")  # a folder is not a file
    with pytest.raises(Exception, match="invalid file name"):
        conn.move(str(src), str(tmp_path / "in"), "../escape.pdf")
    write(tmp_path / "blocker", b"x")
    with pytest.raises(Conflict):
        conn.ensure_folder(str(tmp_path / "blocker" / "sub"))
    assert src.read_bytes() == b"abc"


def _fake_link_error(monkeypatch: pytest.MonkeyPatch, code: int) -> list[str]:
    """Make os.link fail as a filesystem without hard links (or another device) would."""
    calls: list[str] = []
    real = os.link

    def link(src: str, dst: str, **kw: Any) -> None:
        calls.append(dst)
        if code == errno.EXDEV and os.path.basename(str(src)).startswith(".renamerd-"):
            real(src, dst, **kw)  # the temp copy lives on the destination filesystem
            return
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(moves.os, "link", link)
    return calls


def test_move_without_hard_links(
    conn: LocalConnector, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_link_error(monkeypatch, errno.EPERM)
    src = write(tmp_path / "in" / "a.pdf", b"abc", 5_000_000_000)
    taken = write(tmp_path / "lib" / "taken.pdf", b"keep")
    lib = conn.ensure_folder(str(tmp_path / "lib"))
    with pytest.raises(Conflict):
        conn.move(str(src), lib, "taken.pdf")
    assert taken.read_bytes() == b"keep"
    moved = conn.move(str(src), lib, "new.pdf")
    assert calls and not src.exists()
    assert (tmp_path / "lib" / "new.pdf").read_bytes() == b"abc"
    assert moved.revision == "3-5000000000"


def test_move_across_filesystems_simulated(
    conn: LocalConnector, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_link_error(monkeypatch, errno.EXDEV)
    src = write(tmp_path / "in" / "a.pdf", b"x" * 3_000_000, 7_000_000_000)
    write(tmp_path / "lib" / "taken.pdf", b"keep")
    lib = conn.ensure_folder(str(tmp_path / "lib"))
    with pytest.raises(Conflict):
        conn.move(str(src), lib, "taken.pdf")
    assert src.exists()
    assert sorted(os.listdir(lib)) == ["taken.pdf"]  # no temp file left behind
    moved = conn.move(str(src), lib, "new.pdf")
    assert not src.exists()
    assert (tmp_path / "lib" / "new.pdf").read_bytes() == b"x" * 3_000_000
    assert moved.revision == f"3000000-{7_000_000_000}"
    assert sorted(os.listdir(lib)) == ["new.pdf", "taken.pdf"]


def _other_filesystem(tmp_path: Path) -> str | None:
    shm = "/dev/shm"
    usable = os.path.isdir(shm) and os.access(shm, os.W_OK)
    return shm if usable and os.stat(shm).st_dev != os.stat(tmp_path).st_dev else None


def test_move_across_real_filesystems(conn: LocalConnector, tmp_path: Path) -> None:
    other = _other_filesystem(tmp_path)
    if other is None:
        pytest.skip("no second writable filesystem (/dev/shm) here")
    with tempfile.TemporaryDirectory(dir=other) as d:
        src = write(Path(d) / "scan.pdf", b"cross device", 9_000_000_000)
        lib = conn.ensure_folder(str(tmp_path / "lib"))
        moved = conn.move(str(src), lib, "filed.pdf")
        assert not src.exists()
        assert (tmp_path / "lib" / "filed.pdf").read_bytes() == b"cross device"
        assert moved.revision == f"12-{9_000_000_000}"
        assert os.listdir(lib) == ["filed.pdf"]


@pytest.mark.parametrize("path", [
    "/in/a.pdf", "/in//a.pdf", "/in/./a.pdf", "/in/x/../a.pdf", "/in/.hidden", "/in/a/",
    "/", "in/a.pdf", "./a.pdf", "/in/a..pdf", "/in/..a", "/in/a.pdf/.",
])
def test_paths_are_normalised_as_normpath_and_abspath_do(path: str) -> None:
    assert paths.norm(path) == os.path.normpath(os.path.abspath(path))


def test_a_cursor_reads_the_same_in_the_connector_that_made_it_and_in_a_fresh_one(
        tmp_path: Path) -> None:
    """The connector keeps its last cursor parsed; another process (a fresh connector) parses
    it from the text: both must see the same thing, and an older cursor is still parsed."""
    inbox = tmp_path / "inbox"
    write(inbox / "a.pdf", b"a", 1_000_000_000)
    made = LocalConnector({"stable_checks": 2})
    first = made.changes(str(inbox), None)
    write(inbox / "b.pdf", b"b", 1_000_000_000)
    kept = made.changes(str(inbox), first.cursor)
    parsed = LocalConnector({"stable_checks": 2}).changes(str(inbox), first.cursor)
    assert kept == parsed and [f.name for f in kept.files] == ["a.pdf"]
    again = made.changes(str(inbox), first.cursor)  # an older cursor than its last one
    assert again == kept
    assert made.changes(str(inbox), str(inbox)).files == []  # a foreign cursor: listed afresh
