"""An owner's jobs: newest first, paged, filtered, searched; reasons in words; no one else's."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from renamerd.config import CreditsSettings, Settings
from renamerd.connectors import RemoteFile
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.job_views import JobFilter, JobViews, describe_error, view
from renamerd.storage.database import Database
from renamerd.storage.models import Job


def _files(n: int, prefix: str) -> list[RemoteFile]:
    return [RemoteFile(id=f"{prefix}{i}", path=f"/inbox/{prefix}_{i}.pdf", name=f"{prefix}_{i}.pdf",
                       size=10, revision="r1") for i in range(n)]


def test_pages_filters_and_search_of_one_owner(db: Database, settings: Settings) -> None:
    accounts = Accounts(db, settings)
    ada, eve = accounts.create_user("ada@example.org"), accounts.create_user("eve@example.org")
    queue = J.JobQueue(db)
    queue.enqueue_many("scans", ada.id, _files(30, "scan"))
    queue.enqueue_many("mail", ada.id, _files(3, "Invoice"))
    queue.enqueue_many("eves", eve.id, _files(4, "secret"))
    views = JobViews(db)
    first = views.page(ada.id, JobFilter(per_page=10))
    assert first.total == 33 and first.pages == 4 and len(first.jobs) == 10
    assert [j.id for j in first.jobs] == sorted((j.id for j in first.jobs), reverse=True)
    assert first.jobs[0].original_name == "Invoice_2.pdf"
    last = views.page(ada.id, JobFilter(per_page=10, page=4))
    assert len(last.jobs) == 3 and last.jobs[-1].original_name == "scan_0.pdf"
    assert views.page(ada.id, JobFilter(connection="mail")).total == 3
    assert views.page(ada.id, JobFilter(q="invoice")).total == 3  # any case
    assert views.page(ada.id, JobFilter(q="scan_1")).total == 11  # scan_1, scan_10..19
    assert views.page(ada.id, JobFilter(q="100%")).total == 0  # wildcards are literal
    assert views.page(ada.id, JobFilter(q="secret")).total == 0
    assert views.page(ada.id, JobFilter(state="done")).total == 0
    with pytest.raises(ValueError):
        views.page(ada.id, JobFilter(state="nonsense"))
    assert views.counts(ada.id)[J.QUEUED] == 33 and views.counts(eve.id)[J.QUEUED] == 4
    assert views.connections(ada.id) == ["mail", "scans"]
    eves = views.page(eve.id, JobFilter()).jobs[0].id
    with pytest.raises(J.JobNotFound):
        views.get(ada.id, eves)


def test_a_job_in_words(db: Database, settings: Settings) -> None:
    ada = Accounts(db, settings).create_user("ada@example.org")
    job = J.JobQueue(db).enqueue("scans", ada.id, _files(1, "scan")[0])
    assert job is not None
    job.state = J.DONE
    job.dest_path = "/library/2024/invoice/2024-03-01_ACME.pdf"
    job.result = json.dumps({"confidence": 0.9, "extractedInfo": {
        "date": "2024-03-01", "issuer": "ACME", "invoice_number": None, "document_type": "invoice"}})
    shown = view(job)
    assert (shown.new_folder, shown.new_name) == ("/library/2024/invoice", "2024-03-01_ACME.pdf")
    assert (shown.original_folder, shown.original_name) == ("/inbox", "scan_0.pdf")
    assert shown.fields == {"date": "2024-03-01", "issuer": "ACME", "document_type": "invoice"}
    assert shown.actions == ("undo",) and shown.reason is None
    job.state, job.error = J.PENDING_CREDITS, "insufficient credits"
    pending = view(job, CreditsSettings(resume_max_age_days=30))
    assert pending.expires_at == job.created_at + timedelta(days=30)
    assert pending.reason == "waits for credits: the account had none left"
    assert pending.actions == ("retry",)
    assert json.loads(json.dumps(pending.to_json()))["expires_at"].startswith("20")
    assert JobViews(db).waking(ada.id) == 0


@pytest.mark.parametrize("state, error, words", [
    (J.FAILED, "provider: TransientError: 503 from the API (after 5 attempts)",
     "the drive answered with an error: 503 from the API; gave up after 5 attempts"),
    (J.SKIPPED, "UnsupportedDocument: not a PDF", "not a document renamerd reads: not a PDF"),
    (J.FAILED, "the file disappeared before it was moved", "the file disappeared before it was moved"),
    (J.QUEUED, "connection stopped: token revoked",
     "the drive refused access; its connection must be connected again (token revoked)"),
    (J.DONE, "old noise", None),
])
def test_reasons_in_words(state: str, error: str, words: str | None) -> None:
    assert describe_error(state, error) == words


def test_waking_counts_recent_pending_jobs(db: Database, settings: Settings) -> None:
    ada = Accounts(db, settings).create_user("ada@example.org")
    jobs = J.JobQueue(db).enqueue_many("scans", ada.id, _files(3, "p"))
    with db.write_session() as s:
        for i, job in enumerate(jobs):
            row = s.get(Job, job.id)
            assert row is not None
            row.state = J.PENDING_CREDITS
            if i == 0:
                row.created_at = row.created_at - timedelta(days=31)
            s.add(row)
    assert JobViews(db).waking(ada.id) == 2
