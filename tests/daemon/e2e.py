"""Helpers for the end-to-end daemon tests: documents, a config file, the `renamerd` process."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))

from engine.docmaker import make_pdf  # noqa: E402
from servers import free_port  # noqa: E402

ISSUERS = ["ACME Supplies GmbH", "Nordwind Energie AG", "Blue Harbor Ltd", "Kaffee Klatsch KG",
           "Papier & Co. GmbH", "Orbit Telecom SA", "Green Leaf Market Inc."]


def invoice_pdf(i: int) -> bytes:
    """A one-page text PDF invoice, different for every i."""
    issuer = ISSUERS[i % len(ISSUERS)]
    return make_pdf([
        issuer, "Musterstrasse 1, 10115 Berlin", f"Invoice No. INV-{10000 + i}",
        f"Invoice date: 2024-{1 + i % 12:02d}-{1 + i % 28:02d}", f"Total: {100 + i}.00 EUR",
    ])


def drop(path: Path, data: bytes) -> None:
    """Put a document into a watched folder as a scanner or a sync client does: written under
    a name the local connector ignores (`*.part`), then renamed into place. A plain write
    into a folder the daemon watches with `stable_checks = 1` can be seen half written, and
    its two versions become two jobs."""
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    os.replace(part, path)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: the bearer token that reads /metrics of servers started with write_config
METRICS_TOKEN = "metrics-e2e-token"


def write_config(path: Path, *, db_url: str, state: Path, connections: list[dict[str, Any]],
                 daemon: dict[str, Any] | None = None, signup: int = 50,
                 limits_storage: str = "") -> Path:
    def table(values: dict[str, Any]) -> str:
        return "\n".join(f"{k} = {toml_value(v)}" for k, v in values.items())

    parts = [
        f"[server]\nhost = \"127.0.0.1\"\nport = {free_port()}\nshutdown_grace_s = 10\n"
        f"metrics_token = {toml_value(METRICS_TOKEN)}\n",
        f"[database]\nurl = {toml_value(db_url)}\n",
        f"[credits]\nsignup_grant = {signup}\n",
        f"[limits]\nstorage_url = {toml_value(limits_storage)}\n",
        "[logging]\nformat = \"json\"\n",
        "[daemon]\n" + table({"state_dir": str(state), "lease_s": 5, "workers": 2,
                              "retry_backoff_s": 1, **(daemon or {})}) + "\n",
    ]
    for conn in connections:
        options = conn.get("options", {})
        plain = {k: v for k, v in conn.items() if k != "options"}
        parts.append("[[connections]]\n" + table(plain) + "\n")
        if options:
            parts.append("[connections.options]\n" + table(options) + "\n")
    path.write_text("\n".join(parts))
    return path


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def renamerd(*args: str, config: Path, log: Path | None = None,
             env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start `renamerd ARGS --config CONFIG` as a child process (stderr to `log`)."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-m", "renamerd.commands.cli", *args, "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=out, env={**os.environ, **(env or {})},
    )


def renamerd_cli(*args: str, config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "renamerd.commands.cli", *args, "--config", str(config)],
                          capture_output=True, text=True, timeout=120)


def wait_for(cond: Callable[[], bool], timeout: float, what: str = "condition",
             proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"renamerd exited with {proc.returncode} while waiting: {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes], timeout: float = 30) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(timeout)
