"""The daemon's own CPU per document: the whole daemon in one process with a canned engine.

    .venv/bin/python bench/daemon_overhead.py [--docs N] [--runs R]

A local inbox of N tiny files, one worker thread, SQLite; the engine is replaced by a function
that returns a fixed result, so what is measured is everything around it: poll, job rows, claim,
download, reservation, move, charge, journal, log lines. Each run is a fresh process (no warm
caches carried over); printed: CPU ms per document (process time from the daemon's start to the
last job done) per run, and the median. Compare with the engine's own time per document
(`bench/engine.py`): a one-page text PDF takes 6-7 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(docs: int) -> float:
    """CPU ms per document of one daemon run over `docs` files (in this process)."""
    from renamerd.config import Settings
    from renamerd.engine.types import RenameResult
    from renamerd.runtime.daemon import Daemon
    from renamerd.service import jobs as J
    from renamerd.storage.database import Database

    tmp = Path(tempfile.mkdtemp(prefix="renamerd-bench-overhead-"))
    inbox, library = tmp / "inbox", tmp / "library"
    inbox.mkdir()
    library.mkdir()
    settings = Settings(
        database={"url": f"sqlite:///{tmp / 'bench.db'}"},
        daemon={"state_dir": str(tmp / "state"), "workers": 1},
        credits={"signup_grant": docs + 10},
        connections=[{"name": "box", "provider": "local", "owner": "b@example.com",
                      "watch": str(inbox), "target": str(library), "poll_seconds": 0.2,
                      "options": {"stable_checks": 1}}])
    db = Database(settings.database.url)
    db.upgrade()

    def canned(data: bytes, name: str, options: object, config: object) -> RenameResult:
        return RenameResult(
            original_filename=name, suggested_filename=f"2024-01-01_Acme_{name}",
            extracted_info={"document_type": "invoice", "date": "2024-01-01"},
            folder_path="2024/invoice", organization_strategy="by_date_type",
            template_used="standard", confidence=0.9)

    for i in range(docs):
        (inbox / f"f{i:05d}.pdf").write_bytes(b"%PDF-1.4 bench " + str(i).encode())
    daemon = Daemon(settings, db, engine=canned)
    queue = J.JobQueue(db)
    started = time.process_time()
    daemon.start()
    while queue.counts()[J.DONE] < docs:
        time.sleep(0.05)
    cpu = time.process_time() - started
    daemon.stop(5)
    db.dispose()
    shutil.rmtree(tmp, ignore_errors=True)
    return cpu / docs * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=800)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(f"{one_run(args.docs):.3f}")
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "connectors")])}
    results = []
    for run in range(args.runs):
        out = subprocess.run([sys.executable, __file__, "--one", "--docs", str(args.docs)],
                             env=env, capture_output=True, text=True, check=True)
        results.append(float(out.stdout.strip().splitlines()[-1]))
        print(f"  run {run + 1}: {results[-1]:.3f} ms CPU a document")
    print(f"daemon's own CPU, median of {args.runs}: {statistics.median(results):.3f} ms a document "
          f"({args.docs} documents, one worker thread, SQLite, canned engine)")


if __name__ == "__main__":
    main()
