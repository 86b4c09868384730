"""The API under a real uvicorn server: concurrent renames, concurrency slots, streamed 413."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import httpx
import pytest

from api.conftest import Api, MakeApi, upload
from emulators.base import EmulatorServer

URL = "/api/v1/rename"


def serve(api: Api) -> EmulatorServer:
    return EmulatorServer(api.client.app, tls=False).start()


def test_64_concurrent_renames_with_50_credits(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(limits={"concurrent_per_account": 64, "burst_per_minute": 1000})
    server = serve(api)
    try:
        start = threading.Barrier(64)

        def one(_i: int) -> int:
            with httpx.Client(base_url=server.url, timeout=60) as c:
                start.wait()
                return c.post(URL, headers=api.auth, files=upload(pdf_bytes)).status_code

        with ThreadPoolExecutor(64) as pool:
            statuses = list(pool.map(one, range(64)))
    finally:
        server.stop()
    assert statuses.count(200) == 50, statuses
    assert set(statuses) <= {200, 402, 429}
    assert api.balance() == 0
    assert len(api.engine.calls) == 50


def test_concurrency_slot_limit_and_release(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(limits={"concurrent_per_account": 1})
    api.engine.gate = threading.Event()
    server = serve(api)
    try:
        with ThreadPoolExecutor(1) as pool, httpx.Client(base_url=server.url, timeout=30) as c:
            first = pool.submit(c.post, URL, headers=api.auth, files=upload(pdf_bytes))
            deadline = time.monotonic() + 10
            while not api.engine.calls and time.monotonic() < deadline:
                time.sleep(0.01)
            second = c.post(URL, headers=api.auth, files=upload(pdf_bytes))
            assert second.status_code == 429
            assert second.json()["code"] == "RATE_LIMITED"
            assert second.headers["retry-after"] == "1"
            api.engine.gate.set()
            assert first.result().status_code == 200
            third = c.post(URL, headers=api.auth, files=upload(pdf_bytes))
            assert third.status_code == 200
    finally:
        server.stop()
    assert api.client.app.state.limiter.slots_in_use(api.user_id) == 0


def _raw_request(server: EmulatorServer, head: str) -> socket.socket:
    u = urlparse(server.url)
    sock = socket.create_connection((u.hostname, u.port), timeout=20)
    sock.sendall(head.encode())
    return sock


def _status(sock: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1])


def test_413_from_content_length_without_reading_the_body(make_api: MakeApi) -> None:
    api = make_api(limits={"max_upload_mb": 1})
    server = serve(api)
    try:
        sock = _raw_request(server, (
            f"POST {URL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.token}\r\n"
            "Content-Type: multipart/form-data; boundary=abc\r\n"
            f"Content-Length: {500 * 1024 * 1024}\r\n\r\n"
        ))
        assert _status(sock) == 413  # answered although not one body byte was sent
        sock.close()
    finally:
        server.stop()


@pytest.mark.slow
def test_413_decided_while_streaming_a_chunked_body(make_api: MakeApi) -> None:
    api = make_api(limits={"max_upload_mb": 2})
    server = serve(api)
    sent = 0
    try:
        sock = _raw_request(server, (
            f"POST {URL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.token}\r\n"
            "Content-Type: multipart/form-data; boundary=abc\r\nTransfer-Encoding: chunked\r\n\r\n"
        ))
        part = (b'--abc\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
                b"Content-Type: application/pdf\r\n\r\n%PDF-1.4\n")
        chunk = b"x" * 65536

        def frame(b: bytes) -> bytes:
            return f"{len(b):x}\r\n".encode() + b + b"\r\n"

        def writer() -> None:
            nonlocal sent
            try:
                sock.sendall(frame(part))
                while sent < 200 * 1024 * 1024:  # would be 200 MB if the server kept reading
                    sock.sendall(frame(chunk))
                    sent += len(chunk)
            except OSError:
                pass

        t = threading.Thread(target=writer, daemon=True)
        t.start()
        status = _status(sock)
        sock.close()
        t.join(10)
    finally:
        server.stop()
    assert status == 413
    assert sent < 40 * 1024 * 1024, sent
