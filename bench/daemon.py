"""Daemon benchmark, side by side in one run.

    .venv/bin/python bench/daemon.py [--docs N] [--scans N] [--runs R]

(a) documents per minute through the whole daemon (`renamerd worker` processes, local connector,
    SQLite, real engine: poll, job rows, claim, download, engine, reserve, move, charge, journal)
    against the engine's own single-process rate (`rename()` in a loop, in a fresh process
    started as a worker is: engine warmed up, heap frozen, files read from disk) on the same files:
    one-page text PDFs (the engine's cheapest case, 5-8 ms, where the daemon's own per-document
    cost shows most) and scanned pages read by OCR (~1 s, the common case of a scanner inbox).
    Aim: >= 0.9x with one worker process, >= 1.6x with two worker processes (the engine holds the
    GIL, so parallelism needs processes). The worker processes are started first; the clock
    waits until each has said READY=1 over $NOTIFY_SOCKET (as to systemd: its engine is warm,
    its workers run) and the empty inbox was polled, then runs from dropping the files in (one
    rename each) to the last job `done`. The pick-up of the first file (one poll, ~0.05 s) and
    the first small batches (a worker first claims one job, to learn how long a document
    takes) are in it: 800 text PDFs by default (~6 s a run), so that these fixed costs and the
    VM's second-to-second drift weigh little. Also printed: CPU time per
    document (the worker processes' user + system time over the run, children included, against
    the engine loop's), the steadier figure on a machine shared with other work.
(b) one idle poll of an emulated 10,000-file Dropbox (the official SDK against
    tests/emulators/dropbox.py over TLS) through `Daemon.poll`: API calls and CPU time of the
    polling thread (the emulator's own CPU is not counted). With Dropbox's longpoll the daemon
    asks `list_folder/longpoll` first and lists nothing when it says "no changes".

Runs are interleaved (engine, one worker, two workers, then the other way round, ...). Printed:
the median rates, and as the ratios the median of the run-by-run ratios (each daemon run
against the engine run beside it: on a shared machine the speed drifts from run to run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "connectors"))
sys.path.insert(0, str(ROOT / "tests"))

from daemon.e2e import invoice_pdf, write_config  # noqa: E402
from renamerd.config import Settings  # noqa: E402
from renamerd.engine import rename  # noqa: E402
from renamerd.engine.types import RenameOptions  # noqa: E402
from renamerd.runtime.startup import prepare_long_running  # noqa: E402
from renamerd.storage.database import Database  # noqa: E402


def engine_rate(docs: list[bytes], ext: str = ".pdf") -> tuple[float, float]:
    """(documents per minute, CPU ms per document) of `rename()` in a loop, in a fresh process
    started as a worker starts (engine warmed up, heap frozen) and reading the same files: a
    process kept over several runs would find its content caches (issuer lines...) warm, which
    no worker process does."""
    with tempfile.TemporaryDirectory(prefix="renamerd-bench-engine-") as tmp:
        for i, data in enumerate(docs):
            Path(tmp, f"scan_{i:04d}{ext}").write_bytes(data)
        out = subprocess.run([sys.executable, __file__, "--engine-loop", tmp],
                             check=True, capture_output=True, text=True).stdout.split()
    return float(out[-2]), float(out[-1])


def _engine_loop(folder: str) -> None:
    """The child of `engine_rate`: prints documents per minute and CPU ms per document."""
    prepare_long_running()
    config = Settings().engine_config()
    options = RenameOptions(strategy="by_date_type")
    files = sorted(Path(folder).iterdir())
    t0, c0 = time.perf_counter(), _own_and_children_cpu_s()
    for path in files:
        rename(path.read_bytes(), path.name, options, config)
    cpu_ms = (_own_and_children_cpu_s() - c0) * 1000 / len(files)
    print(len(files) / (time.perf_counter() - t0) * 60, cpu_ms)


def _own_and_children_cpu_s() -> float:
    """This process's CPU seconds and its finished children's (tesseract runs as a child)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` (and its finished children: tesseract)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def done_count(db: Database) -> int:
    from sqlalchemy import text

    with db.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM jobs WHERE state='done'")).scalar() or 0)


def polled(db: Database) -> bool:
    from sqlalchemy import text

    with db.engine.connect() as conn:
        return conn.execute(text("SELECT last_poll_at FROM connection_states")).first() is not None


def daemon_rate(docs: list[bytes], processes: int, ext: str = ".pdf") -> tuple[float, float]:
    """(documents per minute, CPU ms per document summed over the worker processes) through
    `processes` `renamerd worker` processes, from dropping the files to the last `done`."""
    tmp = Path(tempfile.mkdtemp(prefix="renamerd-bench-"))
    try:
        inbox, staging = tmp / "inbox", tmp / "staging"
        inbox.mkdir()
        staging.mkdir()
        for i, data in enumerate(docs):
            (staging / f"scan_{i:04d}{ext}").write_bytes(data)
        db_url = f"sqlite:///{tmp / 'renamerd.db'}"
        config = write_config(
            tmp / "config.toml", db_url=db_url, state=tmp / "state", signup=100_000,
            daemon={"workers": 1, "lease_s": 60},
            connections=[{"name": "inbox", "provider": "local", "owner": "b@example.com",
                          "watch": str(inbox), "target": str(tmp / "library"),
                          "strategy": "by_date_type", "poll_seconds": 30,
                          "options": {"stable_checks": 1}}],
        )
        db = Database(db_url)
        db.upgrade()
        # every process says READY=1 (sd_notify, as to systemd) once its engine is warm and its
        # workers run; the clock must not start while one is still importing and warming up
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(str(tmp / "notify.sock"))
        notify.settimeout(120)
        env = {**os.environ, "RENAMERD_LOGGING__LEVEL": "WARNING",
               "NOTIFY_SOCKET": str(tmp / "notify.sock")}
        procs = [
            subprocess.Popen([sys.executable, "-m", "renamerd.commands.cli", "worker", "--config",
                              str(config)], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
            for _ in range(processes)
        ]
        try:
            ready = 0
            while ready < processes:
                ready += notify.recv(256).split(b"\n").count(b"READY=1")
            _wait(lambda: polled(db), 60)
            time.sleep(0.5)  # every process is up and idle
            t0, c0 = time.perf_counter(), sum(cpu_s(p.pid) for p in procs)
            for f in staging.iterdir():
                f.rename(inbox / f.name)
            _wait(lambda: done_count(db) == len(docs), 600, step=0.02)
            elapsed = time.perf_counter() - t0
            cpu_ms = (sum(cpu_s(p.pid) for p in procs) - c0) * 1000 / len(docs)
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(30)
            notify.close()
            db.dispose()
        return len(docs) / elapsed * 60, cpu_ms
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _wait(cond, timeout: float, step: float = 0.1) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit("benchmark timed out")
        time.sleep(step)


def idle_poll(files: int = 10_000) -> tuple[list[int], list[float], float]:
    """API calls and thread CPU ms of idle polls of a `files`-file emulated Dropbox."""
    from emulators.base import Faults
    from emulators.dropbox import DropboxEmulator
    from renamerd.runtime.daemon import Daemon

    emulator = DropboxEmulator(faults=Faults(retry_after=0)).start()
    tmp = Path(tempfile.mkdtemp(prefix="renamerd-bench-poll-"))
    try:
        emulator.account.add_app("app", "secret")
        token = emulator.account.issue_refresh_token("app")
        for i in range(files):
            emulator.account.put(f"/Inbox/f{i:05d}.pdf", f"%PDF-1.4 bench {i}".encode())
        settings = Settings(
            database={"url": f"sqlite:///{tmp / 'poll.db'}"},
            daemon={"state_dir": str(tmp / "state"), "workers": 0},
            connections=[{"name": "box", "provider": "dropbox", "owner": "p@example.com",
                          "watch": "/Inbox", "target": "/Library", "poll_seconds": 1,
                          "options": {"app_key": "app", "app_secret": "secret",
                                      "refresh_token": token, "endpoint": emulator.url,
                                      "ca_bundle": emulator.ca_bundle}}],
        )
        db = Database(settings.database.url)
        db.upgrade()
        daemon = Daemon(settings, db, workers=0, engine=lambda *a: None)  # type: ignore[arg-type,return-value]
        from renamerd.service.accounts import Accounts

        daemon.owners = {"box": Accounts(db, settings).ensure_user("p@example.com").id}
        t0 = time.perf_counter()
        first = daemon.poll("box")
        first_s = time.perf_counter() - t0
        assert first == files, first
        calls, cpu = [], []
        for _ in range(5):
            emulator.faults.reset_counts()
            c0 = time.thread_time()
            assert daemon.poll("box") == 0
            cpu.append((time.thread_time() - c0) * 1000)
            calls.append(emulator.faults.total_calls)
        daemon.poller.release_leases()
        db.dispose()
        return calls, cpu, first_s
    finally:
        emulator.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def scan(i: int) -> bytes:
    from engine.docmaker import make_scan

    return make_scan([
        ["ACME Supplies GmbH", "Nordwind Energie AG", "Blue Harbor Ltd"][i % 3],
        "Musterstrasse 1, 10115 Berlin", f"Invoice No. INV-{2000 + i}",
        f"Invoice date: 2024-{1 + i % 12:02d}-{1 + i % 28:02d}", f"Total: {100 + i}.00 EUR",
    ], fmt="png")


def compare(label: str, docs: list[bytes], ext: str, runs: int) -> None:
    rates: dict[str, list[float]] = {"engine": [], "one": [], "two": []}
    cpu: dict[str, list[float]] = {"engine": [], "one": [], "two": []}
    measures = (("engine", lambda: engine_rate(docs, ext)),
                ("one", lambda: daemon_rate(docs, 1, ext)),
                ("two", lambda: daemon_rate(docs, 2, ext)))
    for run in range(runs):
        # every other run in reverse order, so that no setup always runs first or last
        for key, measure in measures if run % 2 == 0 else measures[::-1]:
            rate, cpu_ms = measure()
            rates[key].append(rate)
            cpu[key].append(cpu_ms)
        print(f"  {label} run {run + 1}: engine {rates['engine'][-1]:.0f}/min, one worker "
              f"{rates['one'][-1]:.0f}/min ({rates['one'][-1] / rates['engine'][-1]:.2f}x), "
              f"two workers {rates['two'][-1]:.0f}/min "
              f"({rates['two'][-1] / rates['engine'][-1]:.2f}x)", flush=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}

    def paired(key: str, values: dict[str, list[float]]) -> float:
        """Median of the run-by-run ratios: each daemon run against the engine run next to it
        (the machine's speed drifts between runs; a pair shares it)."""
        return statistics.median(d / e for d, e in zip(values[key], values["engine"], strict=True))

    print(f"{label}: {len(docs)} documents, {os.cpu_count()} CPUs, medians of {runs}")
    print(f"    engine alone, one process : {med['engine']:7.0f} docs/min   "
          f"CPU {mcpu['engine']:6.1f} ms/doc")
    for key, n, aim in (("one", "1 worker process  ", 0.9), ("two", "2 worker processes", 1.6)):
        print(f"    daemon, {n}: {med[key]:7.0f} docs/min  = {paired(key, rates):.2f}x "
              f"(aim >= {aim}x)   CPU {mcpu[key]:6.1f} ms/doc = {paired(key, cpu):.2f}x the "
              "engine's", flush=True)
    print("    (x: median of the run-by-run ratios)")


def main() -> None:
    if sys.argv[1:2] == ["--engine-loop"]:
        _engine_loop(sys.argv[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=800, help="one-page text PDFs")
    ap.add_argument("--scans", type=int, default=16, help="scanned pages (PNG, OCR)")
    ap.add_argument("--runs", type=int, default=6,
                    help="an even number: each order of the setups counts as often")
    args = ap.parse_args()
    if args.docs:
        compare("(a) text PDFs", [invoice_pdf(i) for i in range(args.docs)], ".pdf", args.runs)
    if args.scans:
        compare("(a') scans", [scan(i) for i in range(args.scans)], ".png", args.runs)
    calls, cpu, first_s = idle_poll()
    print("\n(b) idle poll of an emulated 10,000-file Dropbox (SDK over TLS), 5 polls")
    print(f"    first poll (full listing, 10,000 jobs written): {first_s:.1f}s")
    print(f"    idle poll: API calls median {statistics.median(calls):.0f} (all: {calls}), "
          f"CPU {statistics.median(cpu):.1f} ms median")


if __name__ == "__main__":
    main()
