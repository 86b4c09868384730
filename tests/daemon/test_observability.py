"""Logs (one JSON line per transition, no names, paths or content) and /healthz, /readyz,
/metrics."""

from __future__ import annotations

import io
import json
import logging
from datetime import UTC, datetime

from fastapi import FastAPI
from fastapi.testclient import TestClient

from renamerd.config import LoggingSettings
from renamerd.runtime import observability as obs
from renamerd.storage.database import Database

from .conftest import Rig
from .fakes import doc


def test_one_json_line_per_transition_without_names_or_content(rig: Rig) -> None:
    stream = io.StringIO()
    obs.setup_logging(LoggingSettings(format="json"), stream=stream)
    obs.install(rig.db)
    try:
        rig.drive.put("/inbox/Secret Client Invoice.pdf", doc("2024-07-07", "SecretCorp"))
        rig.poll()
        rig.run_all()
    finally:
        logging.getLogger().removeHandler(logging.getLogger().handlers[-1])
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    moves = [(entry["from"], entry["to"]) for entry in lines if entry["logger"] == "renamerd.jobs"]
    assert moves == [("new", "queued"), ("queued", "running"), ("running", "done")]
    text = stream.getvalue()
    assert "Secret" not in text and "SecretCorp" not in text and "2024-07-07" not in text


def test_health_ready_and_metrics(rig: Rig) -> None:
    alive = {"ok": True}
    app = FastAPI()
    app.include_router(obs.router(rig.db, lambda: alive["ok"]))
    client = TestClient(app)
    rig.drive.put("/inbox/a.pdf", doc("2024-07-07", "Acme"))
    rig.poll()
    rig.run_all()
    assert client.get("/healthz").json()["status"] == "ok"
    assert client.get("/readyz").status_code == 200
    alive["ok"] = False
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["checks"] == {"database": True, "scheduler": False}
    body = client.get("/metrics").text
    assert 'renamerd_jobs{state="done"} 1.0' in body
    assert 'renamerd_renames_total{connection="mem"}' in body
    assert "renamerd_credits_charged_total" in body


def test_readyz_sees_the_database(rig: Rig) -> None:
    assert obs.db_ready(rig.db)
    assert not obs.db_ready(Database("postgresql+psycopg://nobody@127.0.0.1:1/none"))


def test_json_lines_carry_the_time_and_the_extra_fields() -> None:
    formatter = obs.JsonFormatter()
    for created in (0.0, 1_700_000_000.5, 1_700_000_000.0421, 1_700_000_001.999):
        record = logging.makeLogRecord({"name": "renamerd.jobs", "levelno": logging.INFO,
                                        "levelname": "INFO", "msg": "job %d", "args": (7,),
                                        "job": 7, "to": "done", "reason": ValueError("x")})
        record.created, record.msecs = created, (created - int(created)) * 1000
        line = json.loads(formatter.format(record))
        assert line["ts"] == datetime.fromtimestamp(created, UTC).isoformat(
            timespec="milliseconds")
        assert line["msg"] == "job 7" and line["level"] == "info"
        assert line["job"] == 7 and line["to"] == "done" and line["reason"] == "x"


class _CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def test_a_burst_of_transitions_is_flushed_once_and_a_lone_one_at_once(rig: Rig) -> None:
    from renamerd.service import jobs as J
    from renamerd.service.jobs import loaded_job

    stream = _CountingStream()
    obs.setup_logging(LoggingSettings(format="json"), stream=stream)
    obs.install(rig.db)
    try:
        jobs = [loaded_job({"id": i, "connection": "mem", "attempts": 1}) for i in range(50)]
        J.emit_many((job, "queued", "running", {}) for job in jobs)
        assert stream.flushes == 1
        assert [json.loads(line)["job"] for line in stream.getvalue().splitlines()] == list(
            range(50))
        J.emit(jobs[0], "running", "done")
        assert stream.flushes == 2 and stream.getvalue().count("\n") == 51
    finally:
        logging.getLogger().removeHandler(logging.getLogger().handlers[-1])
