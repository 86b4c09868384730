"""The connector contract suite (after rclone's fstests): one set of tests every connector passes.

A provider's test module plugs in by defining a `harness` fixture on a subclass:

    from contract import ConnectorContract, Harness

    class TestGDrive(ConnectorContract):
        @pytest.fixture
        def harness(self, tmp_path) -> Iterator[Harness]:
            ...  # start the emulator, build the connector against it
            yield MyHarness(...)

The harness gives the tests a connector connected to a fresh, empty account and a backdoor into
the account's storage (the emulator's data, or the disk for local), so tests can create files
"behind the connector's back" and check where things ended up without trusting the connector.

Paths given to the backdoor are provider paths (as `join_path(harness.root, "inbox/a.pdf")`); the
backdoor creates missing parent folders itself.

Knobs a harness may set (read with getattr, all optional):

- `polls_to_settle` (int, default 1): how many `changes` calls in a row a new file needs before
  it is reported (the local connector waits for size and mtime to be stable across two looks: 2).
- `max_poll_calls` (int, default 6): the most API calls one idle or incremental poll may cost.
- `scale_files` (int, default 5000): files seeded for the scale check; set 0 to skip it where
  the backdoor cannot seed in bulk.
- `revoke_access()` (method): revoke the grant the connector uses (refresh and access tokens);
  without it the revocation test is skipped.
- `max_poll_bytes` (int, default 4 MiB; 0 to skip): the most memory (tracemalloc peak, the
  emulator's share included) an incremental poll over the scale check's drive may allocate:
  memory must stay flat as the drive grows, not hold a listing of it.
"""

from __future__ import annotations

import io
import tracemalloc
import unicodedata
from collections.abc import Iterable
from typing import Any, Protocol

import pytest

from renamerd.connectors import (
    AuthError,
    Changes,
    Conflict,
    Connector,
    NotFound,
    RemoteFile,
    SupportsRemoveEmptyFolder,
    TooLarge,
    free_name,
    join_path,
)


class FaultsLike(Protocol):
    """What the suite uses of `tests/emulators/base.Faults` (or a connector's own fault knob)."""

    rate: float


class Harness(Protocol):
    """What a provider's test module hands the contract suite."""

    #: connected to a fresh, empty (emulated) account
    connector: Connector
    #: provider path under which the tests work, e.g. "/" or a temporary directory
    root: str
    #: the emulator's fault injector (rate 0.2 = 20% of calls fail with 429/5xx), None for local
    faults: FaultsLike | None

    def put(self, path: str, data: bytes) -> None:
        """Create or overwrite the file at `path` behind the connector's back (parents made)."""
        ...

    def read(self, path: str) -> bytes | None:
        """Backdoor read of the file at `path` (exact case), None if there is none."""
        ...

    def listing(self, folder: str) -> list[str]:
        """Backdoor: names (files and folders) directly in `folder`; [] if it does not exist."""
        ...

    def delete(self, path: str) -> None:
        """Backdoor: remove the file at `path` behind the connector's back."""
        ...

    def api_calls(self) -> int:
        """API calls the emulator has seen so far (always 0 for local)."""
        ...


# --------------------------------------------------------------------------- helpers


def p(h: Harness, rel: str) -> str:
    """Provider path of `rel` below the harness root."""
    path = h.root.rstrip("/")
    for part in rel.strip("/").split("/"):
        if part:
            path = join_path(path, part)
    return path or "/"


def poll(
    h: Harness, watch: str, cursor: str | None, *, recursive: bool = True
) -> tuple[list[RemoteFile], str]:
    """Run `changes` as often as the harness needs to settle; files de-duplicated by id."""
    seen: dict[tuple[str, str], RemoteFile] = {}
    for _ in range(max(1, int(getattr(h, "polls_to_settle", 1)))):
        result: Changes = h.connector.changes(watch, cursor, recursive=recursive)
        for f in result.files:
            seen[(f.id, f.revision)] = f
        cursor = result.cursor
    assert isinstance(cursor, str)
    return list(seen.values()), cursor


def names(files: Iterable[RemoteFile]) -> list[str]:
    return sorted(f.name for f in files)


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def max_poll_calls(h: Harness) -> int:
    return int(getattr(h, "max_poll_calls", 6))


def download_bytes(h: Harness, file_id: str, max_bytes: int = 10_000_000) -> bytes:
    buf = io.BytesIO()
    count = h.connector.download(file_id, buf, max_bytes)
    data = buf.getvalue()
    assert count == len(data)
    return data


def must_stat_path(h: Harness, path: str) -> RemoteFile:
    f = h.connector.stat_path(path)
    assert f is not None, f"{path} not found through the connector"
    return f


# --------------------------------------------------------------------------- the suite


class ConnectorContract:
    """Every connector passes these. Subclasses define the `harness` fixture."""

    # ---- changes

    def test_changes_initial_lists_files(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/a.pdf"), b"%PDF-1.4 aaa")
        h.put(p(h, "inbox/b.png"), b"\x89PNG bbbb")
        files, cursor = poll(h, p(h, "inbox"), None)
        assert names(files) == ["a.pdf", "b.png"]
        by_name = {f.name: f for f in files}
        assert by_name["a.pdf"].size == len(b"%PDF-1.4 aaa")
        assert by_name["b.png"].size == len(b"\x89PNG bbbb")
        for f in files:
            assert f.id and f.revision
            assert f.path.lower() == p(h, f"inbox/{f.name}").lower()
        assert cursor

    def test_changes_incremental(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/old.pdf"), b"old")
        h.put(p(h, "inbox/edit.pdf"), b"v1")
        first, cursor = poll(h, p(h, "inbox"), None)
        assert names(first) == ["edit.pdf", "old.pdf"]
        rev1 = {f.name: f.revision for f in first}["edit.pdf"]

        h.put(p(h, "inbox/new.pdf"), b"brand new")
        h.put(p(h, "inbox/edit.pdf"), b"version two")
        second, cursor2 = poll(h, p(h, "inbox"), cursor)
        assert names(second) == ["edit.pdf", "new.pdf"]
        edited = {f.name: f for f in second}["edit.pdf"]
        assert edited.revision != rev1
        assert edited.size == len(b"version two")
        assert cursor2

        third, _ = poll(h, p(h, "inbox"), cursor2)
        assert third == []

    def test_changes_same_cursor_is_repeatable(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/a.pdf"), b"a")
        _, cursor = poll(h, p(h, "inbox"), None)
        h.put(p(h, "inbox/b.pdf"), b"b")
        once, _ = poll(h, p(h, "inbox"), cursor)
        twice, _ = poll(h, p(h, "inbox"), cursor)
        assert names(once) == names(twice) == ["b.pdf"]

    def test_changes_recursive_flag(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/top.pdf"), b"top")
        h.put(p(h, "inbox/sub/deep.pdf"), b"deep")
        h.put(p(h, "inbox/sub/sub2/deeper.pdf"), b"deeper")
        h.put(p(h, "elsewhere/outside.pdf"), b"outside")
        flat, _ = poll(h, p(h, "inbox"), None, recursive=False)
        assert names(flat) == ["top.pdf"]
        deep, cursor = poll(h, p(h, "inbox"), None, recursive=True)
        assert names(deep) == ["deep.pdf", "deeper.pdf", "top.pdf"]
        paths = {f.name: f.path.lower() for f in deep}
        assert paths["deeper.pdf"] == p(h, "inbox/sub/sub2/deeper.pdf").lower()

        # incremental, non-recursive: a new file in a subfolder is not reported
        h.put(p(h, "inbox/sub/later.pdf"), b"later")
        h.put(p(h, "inbox/later-top.pdf"), b"later top")
        _, flat_cursor = poll(h, p(h, "inbox"), None, recursive=False)
        h.put(p(h, "inbox/sub/even-later.pdf"), b"x")
        h.put(p(h, "inbox/even-later-top.pdf"), b"y")
        inc, _ = poll(h, p(h, "inbox"), flat_cursor, recursive=False)
        assert names(inc) == ["even-later-top.pdf"]
        inc_deep, _ = poll(h, p(h, "inbox"), cursor, recursive=True)
        assert names(inc_deep) == [
            "even-later-top.pdf", "even-later.pdf", "later-top.pdf", "later.pdf"
        ]

    def test_changes_never_reports_folders(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/a.pdf"), b"a")
        h.connector.ensure_folder(p(h, "inbox/empty"))
        h.put(p(h, "inbox/full/b.pdf"), b"b")
        files, cursor = poll(h, p(h, "inbox"), None, recursive=True)
        assert names(files) == ["a.pdf", "b.pdf"]
        h.connector.ensure_folder(p(h, "inbox/later-folder"))
        files, _ = poll(h, p(h, "inbox"), cursor, recursive=True)
        assert files == []

    def test_changes_missing_watch_raises_not_found(self, harness: Harness) -> None:
        h = harness
        with pytest.raises(NotFound):
            h.connector.changes(p(h, "no-such-folder"), None)

    def test_idle_poll_is_cheap_and_stable(self, harness: Harness) -> None:
        h = harness
        for i in range(5):
            h.put(p(h, f"inbox/f{i}.pdf"), b"x" * (i + 1))
        files, cursor = poll(h, p(h, "inbox"), None)
        assert len(files) == 5
        before = h.api_calls()
        idle = h.connector.changes(p(h, "inbox"), cursor)
        cost = h.api_calls() - before
        assert idle.files == []
        assert not idle.reset
        assert cost <= max_poll_calls(h), f"an idle poll cost {cost} API calls"
        again = h.connector.changes(p(h, "inbox"), idle.cursor)
        assert again.files == []

    # ---- stat

    def test_stat_and_stat_path(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/Report.pdf"), b"12345")
        f = must_stat_path(h, p(h, "inbox/Report.pdf"))
        assert f.name == "Report.pdf" and f.size == 5
        assert f.path.lower() == p(h, "inbox/Report.pdf").lower()
        same = h.connector.stat(f.id)
        assert same is not None
        assert (same.id, same.name, same.size, same.revision) == (f.id, f.name, f.size, f.revision)
        assert h.connector.stat_path(p(h, "inbox/nothing.pdf")) is None
        assert h.connector.stat_path(p(h, "no-folder/nothing.pdf")) is None

        other_case = h.connector.stat_path(p(h, "inbox/REPORT.PDF"))
        if h.connector.case_insensitive:
            assert other_case is not None and other_case.id == f.id
        else:
            assert other_case is None

    def test_stat_of_deleted_file_is_none(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/gone.pdf"), b"bye")
        f = must_stat_path(h, p(h, "inbox/gone.pdf"))
        h.delete(p(h, "inbox/gone.pdf"))
        assert h.connector.stat(f.id) is None
        assert h.connector.stat_path(p(h, "inbox/gone.pdf")) is None

    # ---- download

    def test_download(self, harness: Harness) -> None:
        h = harness
        data = bytes(range(256)) * 400  # 100 KiB, every byte value
        h.put(p(h, "inbox/blob.pdf"), data)
        f = must_stat_path(h, p(h, "inbox/blob.pdf"))
        assert download_bytes(h, f.id) == data
        assert download_bytes(h, f.id, max_bytes=len(data)) == data  # exactly at the limit
        assert download_bytes(h, f.id) == data  # safe to repeat

    def test_download_too_large(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/big.pdf"), b"x" * 5000)
        f = must_stat_path(h, p(h, "inbox/big.pdf"))
        with pytest.raises(TooLarge):
            h.connector.download(f.id, io.BytesIO(), 4999)

    def test_download_not_found(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/gone.pdf"), b"bye")
        f = must_stat_path(h, p(h, "inbox/gone.pdf"))
        h.delete(p(h, "inbox/gone.pdf"))
        with pytest.raises(NotFound):
            h.connector.download(f.id, io.BytesIO(), 1000)

    # ---- ensure_folder

    def test_ensure_folder_nested_and_idempotent(self, harness: Harness) -> None:
        h = harness
        fid = h.connector.ensure_folder(p(h, "lib/2024/Invoices"))
        assert fid
        assert "lib" in h.listing(h.root)
        assert "2024" in h.listing(p(h, "lib"))
        assert "Invoices" in h.listing(p(h, "lib/2024"))
        assert h.connector.ensure_folder(p(h, "lib/2024/Invoices")) == fid
        parent = h.connector.ensure_folder(p(h, "lib/2024"))
        assert parent and parent != fid
        assert h.listing(p(h, "lib")) == ["2024"]

    def test_list_folders_names_the_folders_only(self, harness: Harness) -> None:
        h = harness
        h.connector.ensure_folder(p(h, "lib/2024"))
        h.connector.ensure_folder(p(h, "lib/2023"))
        h.put(p(h, "lib/note.pdf"), b"x")
        assert h.connector.list_folders(p(h, "lib")) == ["2023", "2024"]
        assert h.connector.list_folders(p(h, "lib/2024")) == []
        assert "lib" in h.connector.list_folders(h.root)
        with pytest.raises(NotFound):
            h.connector.list_folders(p(h, "no such folder"))

    def test_ensure_folder_reuses_existing(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "lib/Taxes/x.pdf"), b"x")
        fid = h.connector.ensure_folder(p(h, "lib/Taxes"))
        again = h.connector.ensure_folder(p(h, "lib/Taxes"))
        assert fid == again
        assert h.listing(p(h, "lib")) == ["Taxes"]
        if h.connector.case_insensitive:
            assert h.connector.ensure_folder(p(h, "lib/TAXES")) == fid
            assert h.listing(p(h, "lib")) == ["Taxes"]

    def test_remove_empty_folder_where_offered_removes_nothing_else(self, harness: Harness
                                                                      ) -> None:
        h = harness
        if not isinstance(h.connector, SupportsRemoveEmptyFolder):
            # cloud drives delete a folder with its contents: a check first could lose a file
            assert h.connector.provider not in ("local", "memory")
            return
        h.connector.ensure_folder(p(h, "lib/2024/empty"))
        h.put(p(h, "lib/2024/kept.pdf"), b"x")
        assert h.connector.remove_empty_folder(p(h, "lib/2024")) is False
        assert h.connector.remove_empty_folder(p(h, "lib/2024/kept.pdf")) is False
        assert h.connector.remove_empty_folder(p(h, "lib/2024/empty")) is True
        assert h.listing(p(h, "lib/2024")) == ["kept.pdf"]
        assert h.connector.remove_empty_folder(p(h, "lib/2024/empty")) is False  # gone
        assert h.read(p(h, "lib/2024/kept.pdf")) == b"x"

    # ---- move

    def test_move_rename_in_place(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/scan001.pdf"), b"content")
        f = must_stat_path(h, p(h, "inbox/scan001.pdf"))
        inbox = h.connector.ensure_folder(p(h, "inbox"))
        moved = h.connector.move(f.id, inbox, "2024-01-05 Acme Invoice.pdf")
        assert moved.name == "2024-01-05 Acme Invoice.pdf"
        assert moved.revision == f.revision
        assert moved.path.lower() == p(h, "inbox/2024-01-05 Acme Invoice.pdf").lower()
        assert h.listing(p(h, "inbox")) == ["2024-01-05 Acme Invoice.pdf"]
        assert h.read(p(h, "inbox/2024-01-05 Acme Invoice.pdf")) == b"content"

    def test_move_into_other_folder(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/scan.pdf"), b"moving")
        f = must_stat_path(h, p(h, "inbox/scan.pdf"))
        dest = h.connector.ensure_folder(p(h, "lib/2024/Invoices"))
        moved = h.connector.move(f.id, dest, "invoice.pdf")
        assert moved.path.lower() == p(h, "lib/2024/Invoices/invoice.pdf").lower()
        assert moved.size == len(b"moving")
        assert h.read(p(h, "inbox/scan.pdf")) is None
        assert h.read(p(h, "lib/2024/Invoices/invoice.pdf")) == b"moving"
        assert h.listing(p(h, "inbox")) == []
        st = h.connector.stat(moved.id)
        assert st is not None and st.path.lower() == moved.path.lower()

    def test_move_conflict_overwrites_nothing(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/new.pdf"), b"new one")
        h.put(p(h, "lib/taken.pdf"), b"precious")
        f = must_stat_path(h, p(h, "inbox/new.pdf"))
        dest = h.connector.ensure_folder(p(h, "lib"))
        with pytest.raises(Conflict):
            h.connector.move(f.id, dest, "taken.pdf")
        assert h.read(p(h, "lib/taken.pdf")) == b"precious"
        assert h.read(p(h, "inbox/new.pdf")) == b"new one"
        assert h.listing(p(h, "lib")) == ["taken.pdf"]

    def test_move_conflict_other_case(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/new.pdf"), b"new one")
        h.put(p(h, "lib/Taken.pdf"), b"precious")
        f = must_stat_path(h, p(h, "inbox/new.pdf"))
        dest = h.connector.ensure_folder(p(h, "lib"))
        if h.connector.case_insensitive:
            with pytest.raises(Conflict):
                h.connector.move(f.id, dest, "TAKEN.pdf")
            assert h.read(p(h, "lib/Taken.pdf")) == b"precious"
            assert h.read(p(h, "inbox/new.pdf")) == b"new one"
        else:
            moved = h.connector.move(f.id, dest, "TAKEN.pdf")
            assert moved.name == "TAKEN.pdf"
            assert sorted(h.listing(p(h, "lib"))) == ["TAKEN.pdf", "Taken.pdf"]

    def test_move_case_only_rename(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/invoice.pdf"), b"abc")
        f = must_stat_path(h, p(h, "inbox/invoice.pdf"))
        inbox = h.connector.ensure_folder(p(h, "inbox"))
        moved = h.connector.move(f.id, inbox, "Invoice.pdf")
        assert moved.name == "Invoice.pdf"
        assert h.listing(p(h, "inbox")) == ["Invoice.pdf"]
        assert h.read(p(h, "inbox/Invoice.pdf")) == b"abc"

    def test_move_repeat_is_noop(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/doc.pdf"), b"doc")
        f = must_stat_path(h, p(h, "inbox/doc.pdf"))
        dest = h.connector.ensure_folder(p(h, "lib"))
        moved = h.connector.move(f.id, dest, "renamed.pdf")
        again = h.connector.move(moved.id, dest, "renamed.pdf")
        assert (again.id, again.name, again.revision) == (moved.id, moved.name, moved.revision)
        assert again.path.lower() == moved.path.lower()
        assert h.listing(p(h, "lib")) == ["renamed.pdf"]
        assert h.read(p(h, "lib/renamed.pdf")) == b"doc"

    def test_move_not_found(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "inbox/gone.pdf"), b"bye")
        f = must_stat_path(h, p(h, "inbox/gone.pdf"))
        dest = h.connector.ensure_folder(p(h, "lib"))
        h.delete(p(h, "inbox/gone.pdf"))
        with pytest.raises(NotFound):
            h.connector.move(f.id, dest, "x.pdf")
        assert h.listing(p(h, "lib")) == []

    # ---- names

    def test_free_name(self, harness: Harness) -> None:
        h = harness
        h.put(p(h, "lib/Invoice.pdf"), b"1")
        h.put(p(h, "lib/Invoice (2).pdf"), b"2")
        assert free_name(h.connector, p(h, "lib"), "Invoice.pdf") == "Invoice (3).pdf"
        assert free_name(h.connector, p(h, "lib"), "Other.pdf") == "Other.pdf"
        assert free_name(h.connector, p(h, "missing"), "Invoice.pdf") == "Invoice.pdf"
        expected = "INVOICE (3).pdf" if h.connector.case_insensitive else "INVOICE.pdf"
        assert free_name(h.connector, p(h, "lib"), "INVOICE.pdf") == expected

    def test_unicode_names(self, harness: Harness) -> None:
        h = harness
        name = nfc("Rechnung März – Société Générale 日本 ✓.pdf")
        h.put(p(h, f"inbox/{name}"), "données".encode())
        files, _ = poll(h, p(h, "inbox"), None)
        assert [nfc(f.name) for f in files] == [name]
        f = files[0]
        assert download_bytes(h, f.id) == "données".encode()
        dest = h.connector.ensure_folder(p(h, "Bibliothèque/Ελληνικά"))
        target = nfc("2024-03-01 Ärztekammer Überweisung.pdf")
        moved = h.connector.move(f.id, dest, target)
        assert nfc(moved.name) == target
        assert [nfc(n) for n in h.listing(p(h, "Bibliothèque/Ελληνικά"))] == [target]
        assert must_stat_path(h, p(h, f"Bibliothèque/Ελληνικά/{target}")).id == moved.id

    # ---- robustness

    def test_fault_run_every_file_moved_exactly_once(self, harness: Harness) -> None:
        """20% of API calls fail with 429/5xx: the pipeline still files everything once."""
        h = harness
        count = 20
        contents = {f"doc{i:02d}.pdf": f"document number {i}".encode() for i in range(count)}
        for name, data in contents.items():
            h.put(p(h, f"inbox/{name}"), data)
        # two pre-existing files force "name (2)" on the way
        h.put(p(h, "lib/A/doc00.pdf"), b"older doc00")
        h.put(p(h, "lib/B/doc01.pdf"), b"older doc01")
        if h.faults is not None:
            h.faults.rate = 0.2
        try:
            placed = run_pipeline(h, p(h, "inbox"), p(h, "lib"), rounds=6)
        finally:
            if h.faults is not None:
                h.faults.rate = 0.0
        if h.faults is not None:
            injected = sum(getattr(h.faults, "injected", {}).values())
            assert injected > 0, "the fault run injected no faults"
        assert sorted(placed) == sorted(contents)
        assert {name: data for name, (_, data) in placed.items()} == contents
        assert h.listing(p(h, "inbox")) == []
        found: dict[str, bytes] = {}
        for sub in ("A", "B"):
            for name in h.listing(p(h, f"lib/{sub}")):
                stored = h.read(p(h, f"lib/{sub}/{name}"))
                assert stored is not None
                found[f"{sub}/{name}"] = stored
        assert found.pop("A/doc00.pdf") == b"older doc00"
        assert found.pop("B/doc01.pdf") == b"older doc01"
        assert sorted(found.values()) == sorted(contents.values())
        assert found["A/doc00 (2).pdf"] == contents["doc00.pdf"]
        assert found["B/doc01 (2).pdf"] == contents["doc01.pdf"]

    def test_revoked_access_raises_auth_error(self, harness: Harness) -> None:
        """After the account's grant is revoked the connector says so (AuthError), it does not
        retry for ever or report an empty folder."""
        h = harness
        revoke = getattr(h, "revoke_access", None)
        if revoke is None:
            pytest.skip("this harness has no revoke_access()")
        h.put(p(h, "inbox/a.pdf"), b"a")
        poll(h, p(h, "inbox"), None)
        revoke()
        with pytest.raises(AuthError):
            h.connector.changes(p(h, "inbox"), None)

    @pytest.mark.slow
    def test_scale_incremental_poll_is_cheap(self, harness: Harness) -> None:
        """5,000 files in the drive, 20 new ones: a poll with the stored cursor costs little."""
        h = harness
        n = int(getattr(h, "scale_files", 5000))
        if n <= 0:
            pytest.skip("this harness cannot seed in bulk")
        for i in range(n):
            h.put(p(h, f"inbox/old/{i // 500:02d}/seed{i:05d}.pdf"), b"s%d" % i)
        _, cursor = poll(h, p(h, "inbox"), None, recursive=True)
        for i in range(20):
            h.put(p(h, f"inbox/new{i:02d}.pdf"), b"n%d" % i)
        before = h.api_calls()
        tracemalloc.start()
        try:
            files, _ = poll(h, p(h, "inbox"), cursor, recursive=True)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        cost = h.api_calls() - before
        assert names(files) == [f"new{i:02d}.pdf" for i in range(20)]
        assert cost <= max_poll_calls(h) * int(getattr(h, "polls_to_settle", 1)), (
            f"an incremental poll over {n} files cost {cost} API calls"
        )
        limit = getattr(h, "max_poll_bytes", 4 * 2**20)
        print(f"incremental poll over {n} files: {cost} API calls, peak {peak / 1024:.0f} KiB")
        if limit:
            assert peak <= limit, f"an incremental poll over {n} files allocated {peak} bytes"


def run_pipeline(
    h: Harness, watch: str, library: str, *, rounds: int
) -> dict[str, tuple[RemoteFile, bytes]]:
    """The daemon's loop in miniature: changes -> download -> ensure_folder -> free_name -> move.

    Files "docNN.pdf" go to `library`/A (even NN) or `library`/B (odd). Returns {source name:
    (moved file, downloaded bytes)}; asserts no file is moved twice. Retries at this level only
    what the daemon would retry: a whole step after a TransientError that outlasted the
    connector's own retries, and a fresh name after a Conflict.
    """
    from renamerd.connectors import TransientError

    c = h.connector
    cursor: str | None = None
    done: dict[str, str] = {}
    placed: dict[str, tuple[RemoteFile, bytes]] = {}

    def attempt(fn: Any, tries: int = 5) -> Any:
        for i in range(tries):
            try:
                return fn()
            except TransientError:
                if i == tries - 1:
                    raise
        raise AssertionError("unreachable")

    for _ in range(rounds):
        result = attempt(lambda cur=cursor: c.changes(watch, cur, recursive=False))
        cursor = result.cursor
        for f in sorted(result.files, key=lambda f: f.name):
            if f.id in done:
                continue
            buf = io.BytesIO()

            def fetch(fid: str = f.id, b: io.BytesIO = buf) -> int:
                b.seek(0)
                b.truncate()
                return c.download(fid, b, 1_000_000)

            attempt(fetch)
            sub = "A" if int(f.name[3:5]) % 2 == 0 else "B"
            folder = join_path(library, sub)
            folder_id = attempt(lambda fo=folder: c.ensure_folder(fo))
            for _try in range(10):
                name = attempt(lambda fo=folder, n=f.name: free_name(c, fo, n))
                try:
                    moved = attempt(lambda fid=f.id, fo=folder_id, n=name: c.move(fid, fo, n))
                except Conflict:
                    continue
                break
            else:
                raise AssertionError(f"could not place {f.name}")
            assert f.id not in done, f"{f.name} moved twice"
            assert f.name not in placed, f"{f.name} moved twice"
            done[f.id] = moved.id
            placed[f.name] = (moved, buf.getvalue())
        if not h.listing(watch):
            break
    return placed
