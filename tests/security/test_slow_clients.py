"""Slow clients against the real server (uvicorn with renamerd's protocol, in a thread): half
header lines and trickled bodies are answered 408 and cut off within the configured deadlines,
a trickled upload holds no concurrency slot, a normal client is served meanwhile, and failing
accept() calls are logged at most once per interval."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from renamerd.api.protocol import AcceptErrorLogLimit
from renamerd.commands.server import build_app, uvicorn_config
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.user_admin import UserAdmin
from renamerd.storage.database import Database

HEADER_S = 1.0
BODY_S = 1.0
PER_CLIENT = 400


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # in a thread
        pass


class _Ctx:
    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db


class Running:
    def __init__(self, port: int, token: str, admin_token: str) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.auth = {"Authorization": f"Bearer {token}"}
        self.admin = {"Authorization": f"Bearer {admin_token}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    tmp: Path = tmp_path_factory.mktemp("slow")
    settings = Settings(
        database={"url": f"sqlite:///{tmp / 'renamerd.db'}"},
        server={"header_timeout_s": HEADER_S, "body_idle_timeout_s": BODY_S,
                "max_connections": 2000, "max_connections_per_client": PER_CLIENT},
        limits={"concurrent_per_account": 1},
    )
    db = Database(settings.database.url)
    db.upgrade()
    accounts = Accounts(db, settings)
    user = accounts.create_user("slow@example.org", "Slow")
    _, token = accounts.create_token(user.email)
    admin = accounts.create_user("admin@example.org", "Admin")
    UserAdmin(db).set_admin(admin.email)
    _, admin_token = accounts.create_token(admin.email)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)
    port = sock.getsockname()[1]
    ctx: Any = _Ctx(settings, db)
    app = build_app(ctx, rename_fn=_quick_engine)
    config = uvicorn_config(ctx, app, "127.0.0.1", port)
    srv = _Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(srv.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    yield Running(port, token, admin_token)
    srv.should_exit = True
    thread.join(15)
    db.dispose()


def _quick_engine(data: bytes, filename: str, options: Any, config: Any) -> Any:
    from renamerd.engine.types import RenameResult

    return RenameResult(original_filename=filename, suggested_filename="x.pdf",
                        extracted_info={}, folder_path="", organization_strategy="root",
                        template_used="auto", confidence=0.9)


PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _read_all(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    chunks = []
    try:
        while True:
            got = sock.recv(65536)
            if not got:
                break
            chunks.append(got)
    except (TimeoutError, ConnectionResetError):
        pass
    return b"".join(chunks)


def test_half_header_lines_are_cut_off_while_normal_clients_are_served(server: Running) -> None:
    socks = []
    for _ in range(300):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"GET /api/v1/credits HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
        socks.append(s)
    start = time.monotonic()
    r = httpx.get(f"{server.url}/api/v1/credits", headers=server.auth, timeout=10)
    assert r.status_code == 200 and r.json() == {"credits": 50}
    answers = [_read_all(s, HEADER_S + 4) for s in socks]
    took = time.monotonic() - start
    for s in socks:
        s.close()
    assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), {a[:40] for a in answers}
    assert b'"error"' in answers[0]
    assert took < HEADER_S + 5


def test_one_address_holding_its_share_of_connections_leaves_the_rest_to_others(
        server: Running) -> None:
    """Slowloris topping up its half-sent requests: past `max_connections_per_client` its
    next connection gets 429 at once, while a client at another address is served."""
    socks = []
    for _ in range(PER_CLIENT):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"GET /api/v1/credits HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
        socks.append(s)
    try:
        extra = socket.create_connection(("127.0.0.1", server.port))
        refused = _read_all(extra, 3)
        extra.close()
        assert refused.startswith(b"HTTP/1.1 429 ") and b"TOO_MANY_CONNECTIONS" in refused
        other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        with other:
            r = other.get(f"{server.url}/api/v1/credits", headers=server.auth, timeout=10)
        assert r.status_code == 200
    finally:
        for s in socks:
            s.close()
    deadline = time.monotonic() + 5
    while True:  # the closed connections are counted off as the server sees them go
        r = httpx.get(f"{server.url}/api/v1/credits", headers=server.auth, timeout=10)
        if r.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert r.status_code == 200


def test_a_silent_connection_is_closed(server: Running) -> None:
    s = socket.create_connection(("127.0.0.1", server.port))
    start = time.monotonic()
    answer = _read_all(s, HEADER_S + 4)
    s.close()
    assert answer.startswith(b"HTTP/1.1 408 ") and time.monotonic() - start < HEADER_S + 3


def test_an_endless_header_line_gets_431_and_is_cut_off(server: Running) -> None:
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"GET /api/v1/credits HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
    sent = 0
    try:
        while sent < 4 * 1024 * 1024:  # far past the 64 KiB default; the server stops reading
            s.sendall(b"a" * 16384)
            sent += 16384
    except (BrokenPipeError, ConnectionResetError):
        pass
    answer = _read_all(s, HEADER_S + 4)
    s.close()
    assert sent < 4 * 1024 * 1024 or answer.startswith(b"HTTP/1.1 431 "), answer[:60]
    if answer:
        assert answer.startswith(b"HTTP/1.1 431 ") and b'"HEADERS_TOO_LARGE"' in answer
    # many headers that are each small but together too large: the same
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"GET /api/v1/credits HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              + b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 100) for i in range(1000)) + b"\r\n"
              + b"POST /api/v1/credits HTTP/1.1\r\nHost: x\r\ncontent-length: 3\r\n\r\nabc")
    answer = _read_all(s, HEADER_S + 4)
    s.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:60]
    # a normal request with a large but allowed header and a body in the same packet is served
    r = httpx.get(f"{server.url}/api/v1/credits",
                  headers={**server.auth, "X-Note": "n" * 30000}, timeout=10)
    assert r.status_code == 200


def test_malformed_http_gets_a_json_400(server: Running) -> None:
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n")
    answer = _read_all(s, HEADER_S + 4)
    s.close()
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:60]
    assert b"application/json" in answer and b'"INVALID_REQUEST"' in answer


def _multipart(data: bytes) -> tuple[bytes, str]:
    boundary = "slowboundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"a.pdf\"\r\nContent-Type: application/pdf\r\n\r\n").encode() + data + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def test_a_trickled_body_gets_408_and_holds_no_slot(server: Running) -> None:
    body, ctype = _multipart(PDF)
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall((f"POST /api/v1/rename HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               f"Authorization: {server.auth['Authorization']}\r\nContent-Type: {ctype}\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body[:20])
    time.sleep(0.2)
    # meanwhile (concurrent_per_account = 1) the same account renames: the trickler has no slot
    r = httpx.post(f"{server.url}/api/v1/rename", headers=server.auth,
                   files={"file": ("b.pdf", PDF, "application/pdf")}, timeout=10)
    assert r.status_code == 200, r.text
    start = time.monotonic()
    answer = _read_all(s, BODY_S + 4)
    s.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:60]
    assert time.monotonic() - start < BODY_S + 3
    # and the account is not left with a slot held or a credit taken by the cut-off upload
    r = httpx.post(f"{server.url}/api/v1/rename", headers=server.auth,
                   files={"file": ("c.pdf", PDF, "application/pdf")}, timeout=10)
    assert r.status_code == 200
    assert httpx.get(f"{server.url}/api/v1/credits", headers=server.auth).json() == {
        "credits": 48}


def test_a_client_given_host_gets_no_redirect(server: Running) -> None:
    r = httpx.get(f"{server.url}/api/v1/credits/", headers={"Host": "evil.example"},
                  follow_redirects=False)
    assert r.status_code == 404 and "location" not in r.headers
    assert r.json()["error"]


def test_metrics_need_a_token_by_default(server: Running) -> None:
    r = httpx.get(f"{server.url}/metrics")
    assert r.status_code == 401 and r.json()["error"] and r.json()["code"] == "UNAUTHORIZED"
    r = httpx.get(f"{server.url}/metrics", headers=server.auth)  # not an admin's token
    assert r.status_code == 401
    r = httpx.get(f"{server.url}/metrics", headers=server.admin)  # an admin's token
    assert r.status_code == 200 and "renamerd_" in r.text


def test_forwarded_for_is_ignored_without_trusted_proxies(server: Running) -> None:
    # with no trusted proxy, a client cannot pick the address its rate limits key on:
    # the unauthenticated-request limiter and the logs see 127.0.0.1 whatever it claims
    settings = Settings()
    assert settings.server.proxies == []
    config = uvicorn_config(_Ctx(settings, None), None, None, None)  # type: ignore[arg-type]
    assert config.proxy_headers is False
    trusted = Settings(server={"trusted_proxies": ["10.0.0.0/8"]})
    config = uvicorn_config(_Ctx(trusted, None), None, None, None)  # type: ignore[arg-type]
    assert config.proxy_headers is True and config.forwarded_allow_ips == ["10.0.0.0/8"]


def test_accept_errors_are_logged_once_per_interval() -> None:
    now = [0.0]
    limit = AcceptErrorLogLimit(every_s=10, clock=lambda: now[0])

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, None, None)

    passed = []
    for i in range(1000):
        now[0] = i * 0.05  # 1000 failures in 50 s
        r = record("socket.accept() out of system resource: [Errno 24] Too many open files")
        if limit.filter(r):
            passed.append(r.getMessage())
    assert 5 <= len(passed) <= 6
    assert "more like it" in passed[1]
    assert limit.filter(record("something else entirely"))
