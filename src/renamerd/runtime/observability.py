"""Logs, metrics and health checks.

Logs: text or JSON (`[logging] format`), one line per job transition naming the job id, the
connection, the states and the reason. File names, paths, extracted fields and document text are
never logged, nor are tokens (connector error messages are written to be safe to log).

Metrics (Prometheus, `GET /metrics`):

- ``renamerd_jobs{state}``: jobs per state, counted in the database at scrape time (so every
  process reports the same cluster-wide numbers);
- ``renamerd_job_transitions_total{state}``, ``renamerd_renames_total{connection}``,
  ``renamerd_job_duration_seconds{outcome}`` (one worker run of a job),
  ``renamerd_provider_errors_total{connection,kind}``, ``renamerd_credits_charged_total``:
  counted by this process;
- ``renamerd_connection_up{connection}``: 0 while a connection is stopped (reconnect needed).

Health: ``GET /healthz`` (the process answers), ``GET /readyz`` (the database answers and, in a
daemon process, the scheduler and the workers are alive; 503 otherwise).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from renamerd.config import LoggingSettings, Settings
from renamerd.service import jobs as J
from renamerd.storage.database import Database
from renamerd.storage.models import Job

log = logging.getLogger("renamerd.jobs")

REGISTRY = CollectorRegistry(auto_describe=True)
TRANSITIONS = Counter("renamerd_job_transitions_total", "Job transitions by new state",
                      ["state"], registry=REGISTRY)
RENAMES = Counter("renamerd_renames_total", "Documents renamed and filed", ["connection"],
                  registry=REGISTRY)
DURATION = Histogram("renamerd_job_duration_seconds", "One worker run of a job, by outcome",
                     ["outcome"], registry=REGISTRY,
                     buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300))
PROVIDER_ERRORS = Counter("renamerd_provider_errors_total", "Provider errors by kind",
                          ["connection", "kind"], registry=REGISTRY)
CREDITS_CHARGED = Counter("renamerd_credits_charged_total", "Credits charged for renames",
                          registry=REGISTRY)

#: LogRecord attributes that are not "extra" fields
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}
#: extra values written as they are; others as str()
_JSON_SCALARS = (str, int, float, bool, type(None))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, and any `extra` fields."""

    _encode = json.JSONEncoder(ensure_ascii=False).encode
    _second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": self._timestamp(record.created, record.msecs),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key[0] != "_" and key != "color_message":
                out[key] = value if isinstance(value, _JSON_SCALARS) else str(value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return self._encode(out)

    def _timestamp(self, created: float, msecs: float) -> str:
        """ISO 8601 in UTC with milliseconds, as `datetime.isoformat(timespec="milliseconds")`
        writes it; the date and time are formatted once a second."""
        second = int(created)
        if self._second[0] != second:
            self._second = (second, datetime.fromtimestamp(second, UTC).strftime(
                "%Y-%m-%dT%H:%M:%S"))
        return f"{self._second[1]}.{int(msecs):03d}+00:00"


class LineHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A StreamHandler that, inside `burst()` on the emitting thread, leaves its lines in the
    stream's buffer and flushes once when the burst ends: a batch's transitions reach the log
    with a few writes instead of one per line (each a system call, and on a busy process a
    trip of the GIL between threads)."""

    def __init__(self, stream: Any = None) -> None:
        super().__init__(stream)
        self._bursting = threading.local()

    def flush(self) -> None:
        if not getattr(self._bursting, "depth", 0):
            super().flush()

    @contextlib.contextmanager
    def burst(self) -> Iterator[None]:
        """Defer this thread's flushes to the end of the block (or of the outermost one)."""
        depth = getattr(self._bursting, "depth", 0)
        self._bursting.depth = depth + 1
        try:
            yield
        finally:
            self._bursting.depth = depth
            if not depth:
                self.flush()


@contextlib.contextmanager
def burst() -> Iterator[None]:
    """A burst of transitions (`jobs.emit_many`): the log handlers `setup_logging` installed
    flush once at its end."""
    with contextlib.ExitStack() as stack:
        for handler in logging.getLogger().handlers:
            if isinstance(handler, LineHandler):
                stack.enter_context(handler.burst())
        yield


def setup_logging(settings: LoggingSettings, stream: Any = None) -> None:
    """Configure the root logger once for a long-running process. Safe to repeat (replaces
    the handler it installed before)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_renamerd", False):
            root.removeHandler(handler)
    handler = LineHandler(stream or sys.stderr)
    handler._renamerd = True  # type: ignore[attr-defined]
    if settings.format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(settings.level.upper())
    for noisy in ("alembic", "httpx", "httpcore", "googleapiclient", "urllib3"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    # "skipped: maximum number of running instances" is the normal case of a slow poll
    logging.getLogger("apscheduler").setLevel(max(logging.ERROR, root.level))


def _child(metric: Counter, label: str) -> Any:
    """`metric.labels(label)`, kept: `labels()` validates and locks on every call, and every
    job passes here two or three times."""
    key = (metric, label)
    found = _children.get(key)
    if found is None:
        found = _children[key] = metric.labels(label)
    return found


_children: dict[tuple[Counter, str], Any] = {}


def on_transition(job: Job, old: str, new: str, fields: dict[str, object]) -> None:
    """Transition listener: one log line and the counters. Never logs names or content."""
    _child(TRANSITIONS, new).inc()
    if new == J.DONE:
        _child(RENAMES, job.connection).inc()
        if job.charge_ref:
            CREDITS_CHARGED.inc()
    level = logging.WARNING if new == J.FAILED else logging.INFO
    if not log.isEnabledFor(level):
        return
    job_id, connection = job.id, job.connection
    extra: dict[str, object] = {"job": job_id, "connection": connection, "from": old,
                                "to": new, "attempt": job.attempts}
    extra.update({k: v for k, v in fields.items() if v is not None and k != "duration_s"})
    reason = fields.get("error")
    text = f"job {job_id} [{connection}] {old} -> {new}"
    if reason:
        text += f": {reason}"
    # made and handled directly: `Logger.log` would first walk the stack for the caller's
    # file and line, which no format here prints (a third of the cost of a line)
    log.handle(log.makeRecord(log.name, level, "", 0, text, (), None, extra=extra))


def observe_run(outcome: str, seconds: float) -> None:
    DURATION.labels(outcome).observe(seconds)


def provider_error(connection: str, kind: str) -> None:
    PROVIDER_ERRORS.labels(connection, kind).inc()


class DatabaseCollector(Collector):
    """Cluster-wide gauges read from the database at scrape time."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from sqlmodel import select

        from renamerd.storage.models import ConnectionState

        jobs = GaugeMetricFamily("renamerd_jobs", "Jobs by state", labels=["state"])
        up = GaugeMetricFamily("renamerd_connection_up", "0 while a connection is stopped",
                               labels=["connection"])
        try:
            for state, n in J.JobQueue(self.db).counts().items():
                jobs.add_metric([state], n)
            with self.db.session() as s:
                for row in s.exec(select(ConnectionState)):
                    up.add_metric([row.name], 0 if row.status == "stopped" else 1)
        except Exception:  # the database is down: /readyz says so; metrics stay partial
            logging.getLogger(__name__).warning("metrics: database unreachable")
        yield jobs
        yield up


_db_collector: DatabaseCollector | None = None


def install(db: Database) -> None:
    """Register the transition listener and the database gauges for this process. Idempotent
    (a later call switches the gauges to `db`)."""
    global _db_collector
    J.add_transition_listener(on_transition, burst)
    if _db_collector is not None:
        _db_collector.db = db
        return
    _db_collector = DatabaseCollector(db)
    REGISTRY.register(_db_collector)


def db_ready(db: Database) -> bool:
    """Whether a trivial query succeeds."""
    from sqlalchemy import text

    try:
        with db.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:
        return False


def metrics_refusal(request: Request, db: Database, settings: Settings | None
                    ) -> JSONResponse | None:
    """Why this request may not read /metrics (a JSON 401 or 404), or None when it may.
    `[server] metrics`: "open" lets anyone, "off" nobody (404), "token" (the default) takes
    `Authorization: Bearer <metrics_token>` or an admin's API token. Read-only."""
    import hmac

    from renamerd.connectors.registry import resolve_secret
    from renamerd.service.accounts import Accounts

    mode = settings.server.metrics if settings is not None else "open"
    if mode == "open":
        return None
    if mode == "off":
        return JSONResponse({"error": "not found"}, status_code=404)
    assert settings is not None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token:
        expected = str(resolve_secret(settings.server.metrics_token,
                                      key="server.metrics_token") or "")
        if expected and hmac.compare_digest(token.encode(), expected.encode()):
            return None
        if token.startswith("rt_"):
            user = Accounts(db, settings).authenticate(token)
            if user is not None and user.is_admin:
                return None
    return JSONResponse({"error": "/metrics needs Authorization: Bearer <server.metrics_token "
                                  "or an admin's API token>", "code": "UNAUTHORIZED"},
                        status_code=401,
                        headers={"WWW-Authenticate": "Bearer"})


def router(db: Database, alive: Callable[[], bool] | None = None,
           settings: Settings | None = None) -> APIRouter:
    """A FastAPI router with /healthz, /readyz and /metrics.

    `alive` reports whether this process's scheduler and workers run (None: not a daemon
    process, only the database is checked). `settings` says who may read /metrics
    (`metrics_refusal`); None: anyone (tests of the metrics themselves)."""
    install(db)
    r = APIRouter(tags=["operations"])
    started = time.time()

    @r.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "uptime_s": round(time.time() - started, 1)}

    @r.get("/readyz", include_in_schema=False)
    def readyz(response: Response) -> dict[str, Any]:
        checks = {"database": db_ready(db)}
        if alive is not None:
            checks["scheduler"] = bool(alive())
        ok = all(checks.values())
        response.status_code = 200 if ok else 503
        return {"status": "ok" if ok else "unavailable", "checks": checks}

    @r.get("/metrics", include_in_schema=False)
    def metrics(request: Request) -> Response:
        refused = metrics_refusal(request, db, settings)
        if refused is not None:
            return refused
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)

    return r
