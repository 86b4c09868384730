"""The confidence policy in the daemon, with the real engine on a local inbox, on both
databases: a doubtful document keeps its name and stays (keep) or goes to Review/ (review)
without costing a credit; an invoice is renamed and charged; a crash between the move to
Review/ and its record neither moves it twice nor charges it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from renamerd.config import Settings
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from renamerd.service.job_views import JobViews
from renamerd.service.jobs import JobQueue
from renamerd.service.journal import Journal
from renamerd.storage.database import Database

from .fakes import Clock

NOTES = "Garden notes May.pdf"


class Crash(BaseException):
    """Stands for the process dying right after the provider completed the move."""


@pytest.fixture(scope="module")
def notes() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf(["plant tomatoes after the frost", "water the roses twice a week"])


@pytest.fixture(scope="module")
def invoice() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf(["Schneider Logistik GmbH", "Hauptstraße 5 · 10115 Berlin", "", "Rechnung",
                     "Rechnungsnummer: RE-2024-0815", "Rechnungsdatum: 05.03.2024",
                     "Gesamtbetrag: 1.190,00 €"])


@dataclass
class Local:
    root: Path
    db: Database
    queue: JobQueue
    pool: ConnectorPool
    worker: Worker
    owner_id: str
    clock: Clock

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def library(self) -> Path:
        return self.root / "library"

    def poll(self) -> int:
        conn = self.pool.get("inbox")
        changes = conn.changes(str(self.inbox), None, recursive=False)
        return len(self.queue.enqueue_many("inbox", self.owner_id, changes.files))

    def run_all(self) -> list[str]:
        out: list[str] = []
        while claimed := self.queue.claim("w1"):
            job, lease = claimed[0]
            out.append(self.worker.run_job(job, lease))
        return out

    def balance(self) -> int:
        return Credits(self.db).balance(self.owner_id)

    def job(self, name: str) -> Any:
        (job,) = [j for j in self.queue.find() if j.name == name]
        return job

    def files(self) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*.pdf"))


def make_local(db: Database, tmp_path: Path, **policy: Any) -> Local:
    root = tmp_path / "drive"
    (root / "inbox").mkdir(parents=True)
    settings = Settings(
        database={"url": db.url},
        daemon={"state_dir": str(tmp_path / "state"), "lease_s": 30},
        connections=[{"name": "inbox", "provider": "local", "owner": "ada@example.org",
                      "watch": str(root / "inbox"), "target": str(root / "library"),
                      "strategy": "by_date_issuer", "options": {"stable_checks": 1}, **policy}],
    )
    clock = Clock()
    owner = Accounts(db, settings).ensure_user("ada@example.org")
    queue = JobQueue(db, settings.daemon, settings.credits, now=clock)
    pool = ConnectorPool(settings, db)
    worker = Worker(settings, db, queue, pool)  # the real engine
    return Local(root, db, queue, pool, worker, owner.id, clock)


@pytest.fixture
def make(db: Database, tmp_path: Path) -> Iterator[Any]:
    made: list[Local] = []

    def build(**policy: Any) -> Local:
        made.append(make_local(db, tmp_path, **policy))
        return made[-1]

    yield build
    for local in made:
        local.pool.close()


def test_review_by_default_moves_the_original_name_for_free(make: Any, notes: bytes,
                                                            invoice: bytes) -> None:
    box = make()
    (box.inbox / NOTES).write_bytes(notes)
    (box.inbox / "scan_0001.pdf").write_bytes(invoice)
    before = box.balance()
    assert box.poll() == 2
    assert box.run_all() == [J.DONE, J.DONE]
    files = box.files()
    assert f"library/Review/{NOTES}" in files
    assert len(files) == 2 and not any(f.startswith("inbox/") for f in files)
    renamed = [f for f in files if "Review" not in f][0]
    assert "RE-2024-0815" in renamed or "Schneider" in renamed
    assert box.balance() == before - 1  # the invoice only
    kept = box.job(NOTES)
    assert kept.charge_ref is None
    assert Credits(box.db).charge_state(box.owner_id, J.charge_ref(kept.id)) is None
    assert Journal(box.db).for_job(kept.id) is not None  # the move is journaled: undo works
    view = JobViews(box.db).get(box.owner_id, kept.id)
    assert view.outcome == "review" and view.actions == ("undo",)
    assert view.reason is not None
    assert view.reason.startswith("kept its name and was moved to the review folder")
    assert "no credit" in view.reason
    paid = JobViews(box.db).get(box.owner_id, box.job("scan_0001.pdf").id)
    assert paid.outcome == "renamed" and paid.reason is None


def test_keep_leaves_the_file_where_it_is(make: Any, notes: bytes, invoice: bytes) -> None:
    box = make(below_confidence="keep")
    (box.inbox / NOTES).write_bytes(notes)
    (box.inbox / "scan_0001.pdf").write_bytes(invoice)
    before = box.balance()
    box.poll()
    assert box.run_all() == [J.DONE, J.DONE]
    assert f"inbox/{NOTES}" in box.files()
    assert box.balance() == before - 1
    job = box.job(NOTES)
    assert job.state == J.DONE and job.dest_path == job.source_path and job.charge_ref is None
    assert Journal(box.db).for_job(job.id) is None  # nothing moved
    view = JobViews(box.db).get(box.owner_id, job.id)
    assert view.outcome == "kept" and view.actions == ()
    assert view.reason is not None and view.reason.startswith("kept its name: nothing could")
    assert box.poll() == 0 and box.run_all() == []  # not picked up again


def test_review_is_collision_safe(make: Any, notes: bytes) -> None:
    box = make()
    (box.library / "Review").mkdir(parents=True)
    (box.library / "Review" / NOTES).write_bytes(b"%PDF-1.4 someone else's")
    (box.inbox / NOTES).write_bytes(notes)
    box.poll()
    assert box.run_all() == [J.DONE]
    assert box.files() == sorted([f"library/Review/{NOTES}",
                                  "library/Review/Garden notes May (2).pdf"])
    assert (box.library / "Review" / NOTES).read_bytes() == b"%PDF-1.4 someone else's"


def test_rename_policy_renames_a_scanner_name_and_charges(make: Any, notes: bytes) -> None:
    box = make(below_confidence="rename")
    (box.inbox / "scan_0002.pdf").write_bytes(notes)
    before = box.balance()
    box.poll()
    assert box.run_all() == [J.DONE]
    (moved,) = box.files()
    assert moved.startswith("library/") and not moved.endswith("scan_0002.pdf")
    assert box.balance() == before - 1


def test_threshold_per_connection(make: Any, invoice: bytes) -> None:
    box = make(below_confidence="keep", confidence_threshold=1.0)
    (box.inbox / "scan_0001.pdf").write_bytes(invoice)
    before = box.balance()
    box.poll()
    assert box.run_all() == [J.DONE]
    assert box.files() == ["inbox/scan_0001.pdf"] and box.balance() == before


def test_crash_after_the_move_to_review_finishes_once_for_free(
        make: Any, notes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    box = make()
    (box.inbox / NOTES).write_bytes(notes)
    before = box.balance()
    box.poll()
    conn = box.pool.get("inbox")
    real_move = conn.move

    def move_then_die(file_id: str, folder_id: str, name: str) -> Any:
        real_move(file_id, folder_id, name)
        raise Crash()

    monkeypatch.setattr(conn, "move", move_then_die)
    ((job, lease),) = box.queue.claim("w1")
    with pytest.raises(Crash):
        box.worker.run_job(job, lease)
    monkeypatch.setattr(conn, "move", real_move)
    assert box.files() == [f"library/Review/{NOTES}"]
    box.clock.advance(31)  # the dead worker's lease runs out
    ((job, lease),) = box.queue.claim("w2")
    assert box.worker.run_job(job, lease) == J.DONE
    assert box.files() == [f"library/Review/{NOTES}"]
    assert box.balance() == before
    assert JobViews(box.db).get(box.owner_id, job.id).outcome == "review"
