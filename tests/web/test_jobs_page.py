"""The Jobs page without a browser: rows, filters, the live JSON, Undo / Rename again / Retry
through forms, and another user's job (404, nothing changes)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlmodel import select

from daemon.fakes import doc, fake_engine
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.storage.models import CreditLot
from renamerd_connectors import memory
from web.conftest import Web

_names = itertools.count()


@dataclass
class Inbox:
    web: Web
    drive: memory.MemoryDrive
    queue: J.JobQueue
    pool: ConnectorPool
    worker: Worker
    owner_id: str

    def drop(self, name: str, data: bytes) -> None:
        self.drive.put(f"/inbox/{name}", data)
        files = [f for f in self.pool.get("mem").changes("/inbox", None, recursive=False).files
                 if f.name == name]
        self.queue.enqueue_many("mem", self.owner_id, files)
        while claimed := self.queue.claim("w"):
            for job, lease in claimed:
                self.worker.run_job(job, lease)


@pytest.fixture
def inbox(make_web: Callable[..., Web]) -> Iterator[Inbox]:
    name = f"webjobs{next(_names)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    web = make_web(connections=[{
        "name": "mem", "provider": "memory", "owner": "ada@example.org", "watch": "/inbox",
        "target": "/library", "options": {"drive": name}}])
    owner = web.user("ada@example.org")
    queue = J.JobQueue(web.db, web.settings.daemon, web.settings.credits)
    pool = ConnectorPool(web.settings, web.db)
    yield Inbox(web, drive, queue, pool, Worker(web.settings, web.db, queue, pool,
                                                engine=fake_engine), owner.id)
    pool.close()
    memory.forget_drive(name)


def _row(html: str, job_id: int) -> str:
    found = re.search(rf'<tr id="job-{job_id}".*?</tr>', html, re.S)
    assert found, f"no row for job {job_id}"
    return found.group(0)


def test_rows_actions_and_filters(inbox: Inbox) -> None:
    web = inbox.web
    inbox.drop("scan.pdf", doc("2024-03-01", "ACME"))
    inbox.drop("broken.pdf", b"BIN not a document")
    web.sign_in("ada@example.org")
    page = web.get("/jobs")
    assert page.status_code == 200
    done, skipped = sorted(int(j.id or 0) for j in inbox.queue.find())
    row = _row(page.text, done)
    assert "2024-03-01_ACME.pdf" in row and "scan.pdf" in row and ">Undo</button>" in row
    assert "ACME" in row and "2024-03-01" in row
    bad = _row(page.text, skipped)
    assert ">Retry</button>" in bad and "not a document renamerd reads" in bad
    assert len(re.findall(r'<tr id="job-', page.text)) == 2
    assert "broken.pdf" not in web.get("/jobs?q=scan").text
    assert "scan.pdf" not in web.get("/jobs?state=skipped").text
    assert web.get("/jobs?state=nonsense").status_code == 400
    live = web.client.get("/jobs/live").json()
    assert live["total"] == 2 and f'id="job-{done}"' in live["rows"] and live["version"]
    assert web.get(f"/jobs/{done}").status_code == 200

    undone = web.post(f"/jobs/{done}/undo", {"back": "/jobs?q=scan"}, follow_redirects=False)
    assert undone.status_code == 303 and undone.headers["location"] == "/jobs?q=scan"
    assert "scan.pdf" in inbox.drive.listing("/inbox")
    after = web.get("/jobs?q=scan").text
    assert "Moved back: scan.pdf is in /inbox again." in after
    assert ">Rename again</button>" in _row(after, done)
    again = web.post(f"/jobs/{done}/undo", follow_redirects=False)
    assert again.status_code == 303 and "Nothing changed" in web.get("/jobs").text
    web.post(f"/jobs/{done}/rename-again")
    assert inbox.queue.get(done).state == J.QUEUED
    web.post(f"/jobs/{skipped}/retry")
    assert inbox.queue.get(skipped).state == J.QUEUED


def test_another_users_job_is_404_and_nothing_changes(inbox: Inbox) -> None:
    web = inbox.web
    inbox.drop("scan.pdf", doc("2024-03-01", "ACME"))
    (job,) = inbox.queue.find()
    web.user("eve@example.org")
    web.sign_in("eve@example.org")
    assert "scan.pdf" not in web.get("/jobs").text
    assert web.get(f"/jobs/{job.id}").status_code == 404
    for action in ("undo", "rename-again", "retry"):
        r = web.post(f"/jobs/{job.id}/{action}")
        assert r.status_code == 404 and "not yours" in r.text
    assert inbox.queue.get(int(job.id or 0)).state == J.DONE
    assert "scan.pdf" not in inbox.drive.listing("/inbox")


def test_names_no_job_or_file_can_have_are_404_pages(inbox: Inbox) -> None:
    web = inbox.web
    web.sign_in("ada@example.org")
    for job_id in ("9223372036854775808", "-9223372036854775809", "0"):
        assert web.get(f"/jobs/{job_id}").status_code == 404
        assert web.post(f"/jobs/{job_id}/undo").status_code == 404
    for path in ("/static/%00", "/static/style.css%00"):
        assert web.get(path).status_code == 404
    # a value the page does not take: a page in words for the browser, JSON for the API
    r = web.get("/jobs?page=-1")
    assert r.status_code == 400 and "text/html" in r.headers["content-type"]
    assert "does not take" in r.text
    r = web.client.get("/api/v1/jobs?page=-1", headers={"accept": "application/json"})
    assert r.status_code in (400, 401) and "error" in r.json()


def test_pending_credits_rows_say_until_when_and_what_wakes_them(inbox: Inbox) -> None:
    web = inbox.web
    with web.db.write_session() as s:
        for lot in s.exec(select(CreditLot)):
            lot.remaining = 0
            s.add(lot)
    inbox.drop("one.pdf", doc("2024-01-01", "A"))
    inbox.drop("two.pdf", doc("2024-01-02", "B"))
    web.sign_in("ada@example.org")
    page = web.get("/jobs").text
    assert "2 documents wait for credits: 2 credits would rename them all" in page
    assert page.count("1 credit renames it") == 2 and page.count(">Retry</button>") == 2


def test_kept_and_review_jobs_say_so_in_words(make_web: Callable[..., Web]) -> None:
    from engine.docmaker import make_pdf

    notes = make_pdf(["plant tomatoes after the frost", "water the roses twice a week"])
    name = f"webjobs{next(_names)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    drive.mkdir("/doubts")
    base = {"provider": "memory", "owner": "ada@example.org", "target": "/library",
            "options": {"drive": name}}
    web = make_web(connections=[{**base, "name": "mem", "watch": "/inbox"},
                                {**base, "name": "keep", "watch": "/doubts",
                                 "below_confidence": "keep"}])
    owner = web.user("ada@example.org")
    queue = J.JobQueue(web.db, web.settings.daemon, web.settings.credits)
    pool = ConnectorPool(web.settings, web.db)
    worker = Worker(web.settings, web.db, queue, pool)  # the real engine
    try:
        for conn, folder in (("mem", "/inbox"), ("keep", "/doubts")):
            drive.put(f"{folder}/Garden notes May.pdf", notes)
            queue.enqueue_many(conn, owner.id,
                               pool.get(conn).changes(folder, None, recursive=False).files)
        while claimed := queue.claim("w"):
            for job, lease in claimed:
                worker.run_job(job, lease)
        web.sign_in("ada@example.org")
        page = web.get("/jobs")
        ids = {j.connection: int(j.id or 0) for j in queue.find()}
        review = _row(page.text, ids["mem"])
        assert "to review" in review and "Review" in review
        assert "kept its name and was moved to the review folder" in review
        assert ">Undo</button>" in review  # it was moved: it can be moved back
        kept = _row(page.text, ids["keep"])
        assert "kept its name: nothing could be read" in kept and "no credit" in kept
        assert ">Undo</button>" not in kept  # it never moved
        one = web.get(f"/jobs/{ids['keep']}").text
        assert "kept its name" in one
    finally:
        pool.close()
        memory.forget_drive(name)


def test_a_failed_or_undone_job_is_titled_by_the_files_current_name(
        make_web: Callable[..., Web], tmp_path: Path) -> None:
    """A job whose move failed shows the file's name as it is (not the planned one, in bold,
    as if renamed), the planned name as "would have been ..."; after an Undo the job's page is
    titled by the original name, the one the file has again."""
    from renamerd.connectors import TransientError

    name = f"webjobs{next(_names)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    web = make_web(connections=[{
        "name": "mem", "provider": "memory", "owner": "ada@example.org", "watch": "/inbox",
        "target": "/library", "options": {"drive": name}}],
        daemon={"state_dir": str(tmp_path / "state"), "max_attempts": 1})
    owner = web.user("ada@example.org")
    queue = J.JobQueue(web.db, web.settings.daemon, web.settings.credits)
    pool = ConnectorPool(web.settings, web.db)
    box = Inbox(web, drive, queue, pool, Worker(web.settings, web.db, queue, pool,
                                                engine=fake_engine), owner.id)
    try:
        drive.inject("move", TransientError("the drive answered 503"), times=20)
        box.drop("bill.pdf", doc("2024-03-01", "ACME"))
        drive.inject("move", TransientError("no more"), times=0)
        box.drop("scan.pdf", doc("2024-04-01", "Telekom"))
        failed, done = sorted(queue.find(), key=lambda j: int(j.id or 0))
        assert failed.state == J.FAILED and failed.planned_name == "2024-03-01_ACME.pdf"
        assert done.state == J.DONE
        web.sign_in("ada@example.org")
        row = _row(web.get("/jobs").text, int(failed.id or 0))
        assert re.search(r'class="name-new"[^>]*>bill\.pdf</div>', row), row
        assert "would have been 2024-03-01_ACME.pdf" in row
        page = web.get(f"/jobs/{failed.id}").text
        assert "<h1>bill.pdf</h1>" in page and "would have been 2024-03-01_ACME.pdf" in page

        web.post(f"/jobs/{done.id}/undo")
        assert "scan.pdf" in drive.listing("/inbox")
        page = web.get(f"/jobs/{done.id}").text
        assert "<h1>scan.pdf</h1>" in page and "2024-04-01_Telekom.pdf</h1>" not in page
    finally:
        pool.close()
        memory.forget_drive(name)
