"""API benchmark: requests per second through a real uvicorn server, against the engine in-process.

    .venv/bin/python bench/api.py [--quick] [--runs N] [--seconds S] [--database URL]

Starts `renamerd serve` as its own process on 127.0.0.1 (SQLite in a temporary folder unless
--database is given; limits raised so they never trigger; a user with plenty of credits), then
measures, each for S seconds and N runs (median reported):

(a) GET  /api/v1/credits             at concurrency 1 and 20
(b) POST /api/v1/rename, a one-page text PDF, at concurrency 1 and 20
(c) renamerd.engine.rename() on the same PDF, in this process, one thread

and prints the ratio of (b) to (c): what HTTP, auth, limits, credits (reserve + commit) and the
multipart parsing cost on top of the engine. Wall-clock rates suffer on a loaded machine, so it
also prints CPU time: the server process's CPU milliseconds per request (from /proc) against
the engine's CPU milliseconds per rename in-process. Runs are interleaved (HTTP, engine, HTTP, ...) so
load on a shared machine hits both alike. Client threads keep their connections alive.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from engine import docmaker as dm  # noqa: E402
from renamerd.config import Settings  # noqa: E402
from renamerd.engine import rename  # noqa: E402
from renamerd.engine.types import RenameOptions  # noqa: E402
from renamerd.service.accounts import Accounts  # noqa: E402
from renamerd.storage.database import Database  # noqa: E402

INVOICE = [
    dm.TextAt(20, 20, "Northwind Traders Ltd", 16, bold=True),
    dm.TextAt(20, 28, "12 High Street, London EC1A 1BB, United Kingdom", 9),
    dm.TextAt(130, 50, "INVOICE", 18, bold=True),
    dm.TextAt(130, 60, "Invoice number: INV-2024-0042", 10),
    dm.TextAt(130, 65, "Invoice date: 14 March 2024", 10),
    dm.TextAt(20, 97, "Consulting services, February 2024    10    120.00    1,200.00", 10),
    dm.TextAt(130, 120, "Total due: GBP 1,440.00", 11, bold=True),
]


POOLED_SQLITE = """
import sys
import renamerd.storage.database as m
from sqlalchemy.pool import QueuePool
_create = m.create_engine
def create_engine(url, **kw):
    if kw.get("poolclass") is not None:
        kw.update(poolclass=QueuePool, pool_size=8, max_overflow=32)
    return _create(url, **kw)
m.create_engine = create_engine
from renamerd.commands.cli import main
main(sys.argv[1:])
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """`renamerd serve` in a child process, with a user and token on its database."""

    def __init__(self, workdir: Path, database: str | None, pooled_sqlite: bool = False) -> None:
        self.port = free_port()
        self.db_url = database or f"sqlite:///{workdir / 'bench.db'}"
        config = workdir / "config.toml"
        config.write_text(
            f'[server]\nhost = "127.0.0.1"\nport = {self.port}\n'
            f'[database]\nurl = "{self.db_url}"\n'
            "[limits]\nburst_per_minute = 100000000\ndaily_per_account = 100000000\n"
            "concurrent_per_account = 1000\n"
            '[logging]\nlevel = "WARNING"\n'
        )
        settings = Settings(database={"url": self.db_url})
        db = Database(self.db_url)
        db.upgrade()
        accounts = Accounts(db, settings)
        email = f"bench-{os.getpid()}-{int(time.time())}@example.org"
        user = accounts.create_user(email, "Bench")
        accounts.credits.grant(user.id, 10_000_000, reason="benchmark")
        _, self.token = accounts.create_token(email)
        db.dispose()
        env = {k: v for k, v in os.environ.items() if not k.startswith("RENAMERD_")}
        command = [sys.executable, "-m", "renamerd.commands.cli", "serve", "--config", str(config)]
        if pooled_sqlite:
            # What-if: the same server with a bigger SQLite QueuePool (8 + 32 overflow) than
            # db.py's default (database.pool_size); db.py pools SQLite connections itself now.
            command = [sys.executable, "-c", POOLED_SQLITE, "serve", "--config", str(config)]
        self.proc = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/api/v1/credits", headers=self.auth).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("renamerd serve did not start")
            time.sleep(0.1)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rate(concurrency: int, seconds: float, make_call: Callable[[httpx.Client], None],
         base_url: str, server_pid: int | None = None, cpu: list[float] | None = None) -> float:
    """Completed calls per second with `concurrency` threads calling in a loop. With
    `server_pid`, appends the server's CPU milliseconds per call to `cpu`."""
    done = [0] * concurrency
    errors: list[BaseException] = []
    start = threading.Barrier(concurrency + 1)
    stop_at = [0.0]

    def worker(i: int) -> None:
        with httpx.Client(base_url=base_url, timeout=120) as client:
            make_call(client)  # warm the connection
            start.wait()
            try:
                while time.monotonic() < stop_at[0]:
                    make_call(client)
                    done[i] += 1
            except BaseException as err:  # reported after the run
                errors.append(err)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
    for t in threads:
        t.start()
    stop_at[0] = time.monotonic() + 3600
    start.wait()
    t0 = time.monotonic()
    cpu0 = cpu_seconds(server_pid) if server_pid else 0.0
    stop_at[0] = t0 + seconds
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    if errors:
        raise errors[0]
    if server_pid and cpu is not None:
        # the calls finishing after the deadline are in the CPU time too: count them
        cpu.append((cpu_seconds(server_pid) - cpu0) * 1000 / (sum(done) + concurrency))
    return sum(done) / elapsed


def engine_rate(pdf: bytes, seconds: float, cpu: list[float]) -> float:
    """In-process renames per second (wall clock); appends CPU milliseconds per call to `cpu`."""
    options = RenameOptions()
    rename(pdf, "bench.pdf", options)
    n = 0
    t0 = time.monotonic()
    c0 = time.process_time()
    while time.monotonic() - t0 < seconds:
        rename(pdf, "bench.pdf", options)
        n += 1
    cpu.append((time.process_time() - c0) * 1000 / n)
    return n / (time.monotonic() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 run of 1 s each")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--database", default=None, help="SQLAlchemy URL (default: SQLite)")
    parser.add_argument("--pooled-sqlite", action="store_true",
                        help="what-if: serve with a bigger SQLite connection pool")
    args = parser.parse_args()
    runs, seconds = (1, 1.0) if args.quick else (args.runs, args.seconds)

    pdf = dm.make_pdf(INVOICE)
    with tempfile.TemporaryDirectory(prefix="renamerd-bench-") as tmp:
        served = Served(Path(tmp), args.database, args.pooled_sqlite)
        auth = served.auth

        def credits(c: httpx.Client) -> None:
            r = c.get("/api/v1/credits", headers=auth)
            if r.status_code != 200:
                raise RuntimeError(f"credits: {r.status_code} {r.text}")

        def do_rename(c: httpx.Client) -> None:
            r = c.post("/api/v1/rename", headers=auth,
                       files={"file": ("bench.pdf", pdf, "application/pdf")})
            if r.status_code != 200:
                raise RuntimeError(f"rename: {r.status_code} {r.text}")

        samples: dict[str, list[float]] = {k: [] for k in (
            "credits_c1", "credits_c20", "rename_c1", "rename_c20", "engine",
            "cpu_ms_credits", "cpu_ms_rename", "cpu_ms_engine")}
        pid = served.proc.pid
        try:
            for _ in range(runs):
                samples["credits_c1"].append(
                    rate(1, seconds, credits, served.url, pid, samples["cpu_ms_credits"]))
                samples["credits_c20"].append(rate(20, seconds, credits, served.url))
                samples["rename_c1"].append(
                    rate(1, seconds, do_rename, served.url, pid, samples["cpu_ms_rename"]))
                samples["engine"].append(engine_rate(pdf, seconds, samples["cpu_ms_engine"]))
                samples["rename_c20"].append(rate(20, seconds, do_rename, served.url))
        finally:
            served.stop()

    med = {k: statistics.median(v) for k, v in samples.items()}
    overhead_ms = 1000 / med["rename_c1"] - 1000 / med["engine"]
    print(f"renamerd API benchmark: {runs} run(s) x {seconds:g} s, medians, "
          f"{os.cpu_count()} CPU(s), {'SQLite' if not args.database else args.database.split(':')[0]}"
          f"{' (pooled connections)' if args.pooled_sqlite else ''}")
    print(f"  GET  /api/v1/credits   c=1 : {med['credits_c1']:8.1f} req/s")
    print(f"  GET  /api/v1/credits   c=20: {med['credits_c20']:8.1f} req/s")
    print(f"  POST /api/v1/rename    c=1 : {med['rename_c1']:8.1f} req/s")
    print(f"  POST /api/v1/rename    c=20: {med['rename_c20']:8.1f} req/s")
    print(f"  engine in-process      1 thread: {med['engine']:8.1f} renames/s")
    print(f"  ratio HTTP/engine      c=1 : {med['rename_c1'] / med['engine']:.2f}   "
          f"(c=20: {med['rename_c20'] / med['engine']:.2f})")
    print(f"  HTTP+auth+limits+credits per rename: {overhead_ms:.1f} ms = "
          f"{overhead_ms / (1000 / med['rename_c1']) * 100:.0f}% of the request (aim < 20%)")
    cpu_overhead = med["cpu_ms_rename"] - med["cpu_ms_engine"]
    print(f"  server CPU per request: credits {med['cpu_ms_credits']:.1f} ms, rename "
          f"{med['cpu_ms_rename']:.1f} ms; engine CPU per rename in-process "
          f"{med['cpu_ms_engine']:.1f} ms")
    print(f"  CPU the API adds per rename: {cpu_overhead:.1f} ms = "
          f"{cpu_overhead / med['cpu_ms_rename'] * 100:.0f}% of the server's CPU per rename")
    print(json.dumps({"medians": med, "samples": samples}))


if __name__ == "__main__":
    main()
