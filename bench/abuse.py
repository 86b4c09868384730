"""Abuse benchmark: a normal client's renames while another account attacks a real server.

    .venv/bin/python bench/abuse.py [--runs N] [--seconds S] [--attackers K] [--slow-clients C]

Starts `renamerd serve` (SQLite in a temporary folder, default engine settings: one worker
process per core, 30 s deadline, 1 GB ceiling per worker) with two accounts, then per run:

1. unloaded: the normal client renames one-page invoice PDFs one after another for S seconds;
2. loaded: the same, while K attacker threads upload, in turns, the documents of issue 14 (the
   PDF with 1.6 M dates on one line, an XLSX row of 16 M empty cells, a DOCX paragraph of 2.5 M
   runs, an 8940x8940 RGBA PNG, and a PDF of 70,000 dates that is under every limit and costs
   ~0.7 s of CPU), and C slow clients hold connections open (half a header line; a body of
   1,000 bytes trickled a byte a second) from an address of their own (127.0.0.3), so past
   `server.max_connections_per_client` (64) theirs are refused.

It prints, per run and as medians over the runs, the normal client's median and worst latency
unloaded and loaded (and their ratios), the attacks answered, and the server's peak resident
memory: the sum over its process tree (the API process, the forkserver, the engine workers),
sampled every 50 ms. The issue's goal: loaded median under 2x unloaded, memory under 1 GB.
"""

from __future__ import annotations

import argparse
import itertools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from daemon.e2e import invoice_pdf  # noqa: E402
from renamerd.config import Settings  # noqa: E402
from renamerd.service.accounts import Accounts  # noqa: E402
from renamerd.storage.database import Database  # noqa: E402
from security import hostile as h  # noqa: E402
from security.test_image_bounds import write_rgba_png  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tree_rss_mb(root: int) -> float:
    """Resident memory of `root` and all its descendants, in MB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(stat[1]), []).append(pid)
        rss[pid] = int(stat[21]) * PAGE
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total / 1e6


class Server:
    """`renamerd serve` in a child process with two accounts (normal, attacker)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        db_url = f"sqlite:///{workdir / 'abuse.db'}"
        config = workdir / "config.toml"
        config.write_text(
            f'[server]\nhost = "127.0.0.1"\nport = {self.port}\n'
            f'[database]\nurl = "{db_url}"\n[logging]\nlevel = "WARNING"\n'
            "[limits]\nburst_per_minute = 100000000\ndaily_per_account = 100000000\n"
            "concurrent_per_account = 1000\n")
        db = Database(db_url)
        db.upgrade()
        accounts = Accounts(db, Settings(database={"url": db_url}))
        self.tokens: dict[str, str] = {}
        for who in ("normal", "attacker"):
            user = accounts.create_user(f"{who}@example.org", who)
            accounts.credits.grant(user.id, 10_000_000, reason="benchmark")
            self.tokens[who] = accounts.create_token(user.email)[1]
        db.dispose()
        env = {k: v for k, v in os.environ.items() if not k.startswith("RENAMERD_")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "renamerd.commands.cli", "serve", "--config", str(config)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/api/v1/credits",
                             headers=self.auth("normal")).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("renamerd serve did not start")
            time.sleep(0.1)
        time.sleep(2)  # the engine workers warm up

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def attack_documents(workdir: Path) -> list[tuple[str, bytes, str]]:
    png = workdir / "huge.png"
    write_rgba_png(png)
    office = "application/vnd.openxmlformats-officedocument"
    return [
        ("dates.pdf", h.pdf_dates_line(), "application/pdf"),
        ("wide.xlsx", h.xlsx_wide_row(), f"{office}.spreadsheetml.sheet"),
        ("runs.docx", h.docx_many_runs(), f"{office}.wordprocessingml.document"),
        ("huge.png", png.read_bytes(), "image/png"),
        ("70k-dates.pdf", h.pdf_dates_line(70_000), "application/pdf"),
    ]


def normal_client(server: Server, seconds: float) -> list[float]:
    """Rename invoices one after another for `seconds`; the latencies (s)."""
    latencies: list[float] = []
    with httpx.Client(base_url=server.url, headers=server.auth("normal"), timeout=120) as c:
        end = time.monotonic() + seconds
        for i in itertools.count():
            if time.monotonic() > end:
                break
            started = time.monotonic()
            r = c.post("/api/v1/rename", files={"file": (f"inv{i}.pdf", invoice_pdf(i % 200),
                                                         "application/pdf")})
            latencies.append(time.monotonic() - started)
            if r.status_code != 200:
                raise SystemExit(f"normal rename failed: {r.status_code} {r.text}")
    return latencies


def attacker(server: Server, docs: list[tuple[str, bytes, str]], stop: threading.Event,
             answers: list[int], offset: int) -> None:
    with httpx.Client(base_url=server.url, headers=server.auth("attacker"), timeout=120) as c:
        for i in itertools.count(offset):
            if stop.is_set():
                return
            name, data, ctype = docs[i % len(docs)]
            try:
                answers.append(c.post("/api/v1/rename",
                                      files={"file": (name, data, ctype)}).status_code)
            except httpx.TransportError:
                answers.append(0)


def slow_client(port: int, trickle: bool, stop: threading.Event) -> None:
    """Half a header line, held; or a body trickled a byte a second."""
    try:
        # (from an address of their own, as an attacker's: past
        # server.max_connections_per_client they are refused, the normal client is not)
        with socket.create_connection(("127.0.0.1", port), timeout=5,
                                      source_address=("127.0.0.3", 0)) as s:
            if not trickle:
                s.sendall(b"POST /api/v1/rename HTTP/1.1\r\nHost: x\r\nX-Half: ab")
                stop.wait()
                return
            s.sendall(b"POST /api/v1/rename HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                      b"Content-Type: multipart/form-data; boundary=b\r\n\r\n")
            while not stop.wait(1.0):
                s.sendall(b"x")
    except OSError:
        return


def one_run(server: Server, docs: list[tuple[str, bytes, str]], seconds: float,
            attackers: int, slow: int) -> dict[str, float]:
    unloaded = normal_client(server, seconds)
    stop = threading.Event()
    answers: list[int] = []
    peak = [tree_rss_mb(server.proc.pid)]

    def sample() -> None:
        while not stop.wait(0.05):
            peak[0] = max(peak[0], tree_rss_mb(server.proc.pid))

    threads = [threading.Thread(target=sample, daemon=True)]
    threads += [threading.Thread(target=slow_client, args=(server.port, i % 10 == 0, stop),
                                 daemon=True) for i in range(slow)]
    threads += [threading.Thread(target=attacker, args=(server, docs, stop, answers, i),
                                 daemon=True) for i in range(attackers)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # the attack is under way
    loaded = normal_client(server, seconds)
    stop.set()
    for t in threads:
        t.join(60)
    return {
        "unloaded_median_ms": statistics.median(unloaded) * 1000,
        "unloaded_worst_ms": max(unloaded) * 1000,
        "loaded_median_ms": statistics.median(loaded) * 1000,
        "loaded_worst_ms": max(loaded) * 1000,
        "median_ratio": statistics.median(loaded) / statistics.median(unloaded),
        "worst_ratio": max(loaded) / max(unloaded),
        "peak_rss_mb": peak[0],
        "attacks": len(answers),
        "attacks_refused": sum(1 for a in answers if a != 200),
        "renames_loaded": len(loaded),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--attackers", type=int, default=6)
    parser.add_argument("--slow-clients", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        docs = attack_documents(workdir)
        server = Server(workdir)
        try:
            print(f"server pid {server.proc.pid}, idle tree RSS "
                  f"{tree_rss_mb(server.proc.pid):.0f} MB")
            results = []
            for run in range(args.runs):
                r = one_run(server, docs, args.seconds, args.attackers, args.slow_clients)
                results.append(r)
                print(f"run {run + 1}: " + ", ".join(f"{k} {v:.1f}" for k, v in r.items()))
        finally:
            server.stop()
    print("medians over runs:")
    for key in results[0]:
        print(f"  {key:20s} {statistics.median(r[key] for r in results):10.1f}")


if __name__ == "__main__":
    main()
