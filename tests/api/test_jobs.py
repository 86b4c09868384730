"""GET /api/v1/jobs and Undo / Rename again / Retry as JSON: the owner's jobs only."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from daemon.fakes import doc, fake_engine
from renamerd.api.app import create_app
from renamerd.config import Settings
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database
from renamerd_connectors import memory

_names = itertools.count()


@dataclass
class Setup:
    client: TestClient
    drive: memory.MemoryDrive
    queue: J.JobQueue
    worker: Worker
    pool: ConnectorPool
    ada: dict[str, str]
    eve: dict[str, str]
    owner_id: str

    def renamed(self, name: str) -> int:
        self.drive.put(f"/inbox/{name}", doc("2024-05-06", "Nordwind"))
        files = [f for f in self.pool.get("mem").changes("/inbox", None, recursive=False).files
                 if f.name == name]
        (job,) = self.queue.enqueue_many("mem", self.owner_id, files)
        (claimed,) = self.queue.claim("w")
        assert self.worker.run_job(*claimed) == J.DONE
        return int(job.id or 0)


@pytest.fixture
def setup(db: Database, tmp_path: Path) -> Iterator[Setup]:
    name = f"apijobs{next(_names)}"
    drive = memory.drive(name)
    drive.mkdir("/inbox")
    settings = Settings(
        database={"url": db.url}, daemon={"state_dir": str(tmp_path / "state")},
        connections=[{"name": "mem", "provider": "memory", "owner": "ada@example.org",
                      "watch": "/inbox", "target": "/library", "options": {"drive": name}}])
    accounts = Accounts(db, settings)
    ada = accounts.create_user("ada@example.org")
    accounts.create_user("eve@example.org")
    tokens = [accounts.create_token(e)[1] for e in ("ada@example.org", "eve@example.org")]
    queue = J.JobQueue(db, settings.daemon, settings.credits)
    pool = ConnectorPool(settings, db)
    worker = Worker(settings, db, queue, pool, engine=fake_engine)
    with TestClient(create_app(settings, db, rename_fn=fake_engine)) as client:
        yield Setup(client, drive, queue, worker, pool,
                    {"Authorization": f"Bearer {tokens[0]}"},
                    {"Authorization": f"Bearer {tokens[1]}"}, ada.id)
    pool.close()
    memory.forget_drive(name)


def test_list_undo_rename_again_as_json(setup: Setup) -> None:
    c = setup.client
    job_id = setup.renamed("scan.pdf")
    setup.renamed("other.pdf")
    listed = c.get("/api/v1/jobs", headers=setup.ada, params={"perPage": 1})
    assert listed.status_code == 200 and "X-RateLimit-Remaining" in listed.headers
    body = listed.json()
    assert body["total"] == 2 and body["pages"] == 2 and body["perPage"] == 1
    assert body["jobs"][0]["originalName"] == "other.pdf"
    second = c.get("/api/v1/jobs", headers=setup.ada, params={"page": 2, "perPage": 1}).json()
    job = second["jobs"][0]
    assert job["id"] == job_id and job["state"] == "done" and job["actions"] == ["undo"]
    assert job["outcome"] == "renamed" and job["reason"] is None
    assert job["newName"] == "2024-05-06_Nordwind.pdf" and job["newFolder"] == "/library/2024/invoice"
    assert job["extractedInfo"] == {"date": "2024-05-06", "issuer": "Nordwind",
                                    "document_type": "invoice"}
    assert c.get("/api/v1/jobs", headers=setup.ada, params={"q": "SCAN"}).json()["total"] == 1
    assert c.get("/api/v1/jobs", headers=setup.ada, params={"state": "failed"}).json()["total"] == 0
    assert c.get("/api/v1/jobs", headers=setup.ada, params={"state": "bogus"}).status_code == 400

    undone = c.post(f"/api/v1/jobs/{job_id}/undo", headers=setup.ada)
    assert undone.status_code == 200 and undone.json()["state"] == "undone"
    assert "scan.pdf" in setup.drive.listing("/inbox")
    again = c.post(f"/api/v1/jobs/{job_id}/undo", headers=setup.ada)
    assert again.status_code == 409 and again.json()["code"] == "CONFLICT"
    queued = c.post(f"/api/v1/jobs/{job_id}/rename-again", headers=setup.ada)
    assert queued.status_code == 200 and queued.json()["state"] == "queued"
    retry = c.post(f"/api/v1/jobs/{job_id}/retry", headers=setup.ada)
    assert retry.status_code == 409
    assert c.get(f"/api/v1/jobs/{job_id}", headers=setup.ada).json()["state"] == "queued"


def test_another_users_job_is_404_and_nothing_changes(setup: Setup) -> None:
    c = setup.client
    job_id = setup.renamed("scan.pdf")
    assert c.get("/api/v1/jobs", headers=setup.eve).json()["total"] == 0
    assert c.get(f"/api/v1/jobs/{job_id}", headers=setup.eve).status_code == 404
    for action in ("undo", "rename-again", "retry"):
        r = c.post(f"/api/v1/jobs/{job_id}/{action}", headers=setup.eve)
        assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    assert setup.queue.get(job_id).state == J.DONE
    assert "scan.pdf" not in setup.drive.listing("/inbox")
    assert c.get("/api/v1/jobs").status_code == 401


@pytest.mark.parametrize("job_id", ["9223372036854775808", "-9223372036854775809", "0", "-1",
                                    "99999999999999999999999"])
def test_a_job_id_no_job_can_have_is_404_not_a_crash(setup: Setup, job_id: str) -> None:
    c = setup.client
    r = c.get(f"/api/v1/jobs/{job_id}", headers=setup.ada)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    for action in ("undo", "rename-again", "retry"):
        r = c.post(f"/api/v1/jobs/{job_id}/{action}", headers=setup.ada)
        assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"


def test_a_job_id_that_is_no_number_is_400_in_words(setup: Setup) -> None:
    for path in ("/api/v1/jobs/abc", "/api/v1/jobs/abc/undo"):
        call = setup.client.get if path.endswith("abc") else setup.client.post
        r = call(path, headers=setup.ada)
        assert r.status_code == 400 and r.json() == {
            "error": "invalid request: job id must be a whole number (got 'abc')",
            "code": "INVALID_REQUEST"}


def test_docs_work_offline_and_take_a_bearer_token(setup: Setup) -> None:
    c = setup.client
    page = c.get("/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text.lower() and "https://" not in page.text
    assets = set(re.findall(r'(?:src|href)="(/docs/assets/[^"]+)"', page.text))
    assert {"/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"} <= assets
    for asset in assets:
        assert c.get(asset).status_code == 200, asset
    assert "Apache License" in c.get("/docs/assets/LICENSE").text
    doc = c.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer",
        "description": doc["components"]["securitySchemes"]["bearerAuth"]["description"]}
    for path in ("/api/v1/user", "/api/v1/jobs", "/api/v1/jobs/{job_id}/undo"):
        for operation in doc["paths"][path].values():
            assert operation["security"] == [{"bearerAuth": []}]
    assert "409" in doc["paths"]["/api/v1/jobs/{job_id}/undo"]["post"]["responses"]


def test_a_job_that_kept_its_name_says_so(setup: Setup) -> None:
    from engine.docmaker import make_pdf
    from renamerd.engine import rename

    setup.worker._engine = rename  # the real engine: the notes cannot be read
    setup.drive.put("/inbox/Garden notes May.pdf", make_pdf(["plant tomatoes after the frost"]))
    files = setup.pool.get("mem").changes("/inbox", None, recursive=False).files
    (job,) = setup.queue.enqueue_many("mem", setup.owner_id, files)
    (claimed,) = setup.queue.claim("w")
    assert setup.worker.run_job(*claimed) == J.DONE
    body = setup.client.get(f"/api/v1/jobs/{job.id}", headers=setup.ada).json()
    assert body["outcome"] == "review" and body["state"] == "done"
    assert (body["newFolder"], body["newName"]) == ("/library/Review", "Garden notes May.pdf")
    assert body["reason"].startswith("kept its name and was moved to the review folder")
