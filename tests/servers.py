"""Start real PostgreSQL and Redis servers for the tests (and benchmarks) on 127.0.0.1.

Each server lives in a temporary folder and is stopped at exit. PostgreSQL refuses to run as
root, so as root it runs as the `postgres` system user (created by Debian's package).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    path = shutil.which(name)
    if not path:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (apt-get install postgresql)")
    return path


@dataclass
class PostgresServer:
    port: int
    datadir: str
    user: str
    _proc: subprocess.Popen[bytes] | None = None

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        shutil.rmtree(os.path.dirname(self.datadir), ignore_errors=True)


def start_postgres() -> PostgresServer:
    base = tempfile.mkdtemp(prefix="renamerd-pg-")
    datadir = os.path.join(base, "data")
    run_as: list[str] = []
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.getuid() == 0:
        user = "postgres"
        pw = pwd.getpwnam(user)
        os.chown(base, pw.pw_uid, pw.pw_gid)
        os.chmod(base, 0o755)
        run_as = ["runuser", "-u", user, "--"]
    subprocess.run(
        [*run_as, _pg_bin("initdb"), "-D", datadir, "-A", "trust", "-U", user, "-E", "UTF8",
         "--no-sync"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    port = free_port()
    proc = subprocess.Popen(
        [*run_as, _pg_bin("postgres"), "-D", datadir, "-p", str(port), "-h", "127.0.0.1",
         "-k", base, "-c", "fsync=off", "-c", "synchronous_commit=off",
         "-c", "full_page_writes=off", "-c", "max_connections=300"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    server = PostgresServer(port=port, datadir=datadir, user=user, _proc=proc)
    try:
        _wait_port(port)
        _wait_ready(server)
    except Exception:
        server.stop()
        raise
    return server


def _wait_ready(server: PostgresServer, timeout: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(host="127.0.0.1", port=server.port, user=server.user,
                                 dbname="postgres", connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def create_database(server: PostgresServer, name: str, template: str | None = None) -> str:
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=server.port, user=server.user, dbname="postgres",
                         autocommit=True) as conn:
        tmpl = f' TEMPLATE "{template}"' if template else ""
        conn.execute(f'CREATE DATABASE "{name}"{tmpl}')
    return server.url(name)


@dataclass
class RedisServer:
    port: int
    _proc: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()


def start_redis() -> RedisServer:
    exe = shutil.which("redis-server")
    if not exe:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _wait_port(port)
    return RedisServer(port=port, _proc=proc)
