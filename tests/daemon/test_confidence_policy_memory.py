"""The confidence policy in the daemon on the memory connector, with the real engine, on both
databases: a doubtful document keeps its name where it is (keep: done, outcome "kept") or in
<target>/Review (review) and costs nothing; a confident one is renamed and charged; `rename`
renames a doubtful one too. (test_confidence_policy.py: the same on a local inbox, and crashes.)"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from renamerd.config import Settings
from renamerd.engine import rename as engine_rename
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from renamerd.service.job_views import JobViews
from renamerd.service.jobs import JobQueue
from renamerd.storage.database import Database
from renamerd_connectors import memory

_drives = itertools.count()

NOTES = ["Tomatoes need more water this week.", "Move the roses to the south bed.",
         "Ask about the compost."]
INVOICE = ["ACME GmbH", "Musterstrasse 1, 10115 Berlin", "", "Invoice",
           "Invoice number: RE-1001", "Invoice date: 01.03.2024", "Total: 119,00 EUR"]


class Setup:
    def __init__(self, db: Database, tmp_path: Path, **policy: Any) -> None:
        self.name = f"policy{next(_drives)}"
        self.drive = memory.drive(self.name)
        self.drive.mkdir("/inbox")
        self.settings = Settings(
            database={"url": db.url}, daemon={"state_dir": str(tmp_path / "state")},
            credits={"signup_grant": 10},
            connections=[{"name": "mem", "provider": "memory", "owner": "owner@example.com",
                          "watch": "/inbox", "target": "/library",
                          "options": {"drive": self.name}, **policy}])
        self.db = db
        self.owner = Accounts(db, self.settings).ensure_user("owner@example.com")
        self.queue = JobQueue(db, self.settings.daemon, self.settings.credits)
        self.pool = ConnectorPool(self.settings, db)
        self.worker = Worker(self.settings, db, self.queue, self.pool, engine=engine_rename)

    def run(self, files: dict[str, bytes]) -> list[str]:
        for name, data in files.items():
            self.drive.put(f"/inbox/{name}", data)
        changes = self.pool.get("mem").changes("/inbox", None, recursive=False)
        self.queue.enqueue_many("mem", self.owner.id, changes.files)
        out = []
        while claimed := self.queue.claim("w1"):
            job, lease = claimed[0]
            out.append(self.worker.run_job(job, lease))
        return out

    def balance(self) -> int:
        return Credits(self.db).balance(self.owner.id)

    def close(self) -> None:
        self.pool.close()
        memory.forget_drive(self.name)


@pytest.fixture
def make(db: Database, tmp_path: Path) -> Iterator[Any]:
    made: list[Setup] = []

    def build(**policy: Any) -> Setup:
        made.append(Setup(db, tmp_path / str(len(made)), **policy))
        return made[-1]

    yield build
    for s in made:
        s.close()


@pytest.fixture(scope="module")
def docs() -> dict[str, bytes]:
    from engine.docmaker import make_pdf

    return {"notes": make_pdf(NOTES), "invoice": make_pdf(INVOICE)}


def test_review_by_default_files_the_doubtful_one_under_its_name_for_free(
        make: Any, docs: dict[str, bytes]) -> None:
    s = make()
    assert s.run({"Garden notes May.pdf": docs["notes"], "scan_0001.pdf": docs["invoice"]}) \
        == [J.DONE, J.DONE]
    assert s.drive.listing("/inbox") == []
    assert s.drive.listing("/library/Review") == ["Garden notes May.pdf"]
    assert s.balance() == 9  # only the invoice was charged
    review = next(j for j in s.queue.find() if j.name == "Garden notes May.pdf")
    assert review.charge_ref is None and review.dest_path == "/library/Review/Garden notes May.pdf"


def test_keep_leaves_it_in_the_inbox_and_says_why(make: Any, docs: dict[str, bytes]) -> None:
    s = make(below_confidence="keep")
    assert s.run({"Garden notes May.pdf": docs["notes"]}) == [J.DONE]
    assert s.drive.listing("/inbox") == ["Garden notes May.pdf"]
    assert s.balance() == 10
    job = s.queue.find()[0]
    view = JobViews(s.db).get(s.owner.id, job.id or 0)
    words = view.reason or ""
    assert view.outcome == "kept" and words.startswith("kept its name: nothing could be read")
    assert "under 0.50" in words and "no credit charged" in words
    # the file stays where it is and is not picked up again as a new job
    changes = s.pool.get("mem").changes("/inbox", None, recursive=False)
    assert s.queue.enqueue_many("mem", s.owner.id, changes.files) == []


def test_rename_with_a_high_threshold_renames_and_charges(make: Any,
                                                           docs: dict[str, bytes]) -> None:
    s = make(below_confidence="rename", confidence_threshold=0.99)
    assert s.run({"scan_0001.pdf": docs["invoice"]}) == [J.DONE]
    [job] = s.queue.find()
    assert "RE-1001" in (job.dest_path or "")
    assert s.balance() == 9


def test_keep_with_a_high_threshold_keeps_even_the_invoice(make: Any,
                                                            docs: dict[str, bytes]) -> None:
    s = make(below_confidence="keep", confidence_threshold=0.999)
    assert s.run({"scan_0001.pdf": docs["invoice"]}) == [J.DONE]
    assert s.drive.listing("/inbox") == ["scan_0001.pdf"]
    assert s.balance() == 10
