"""SSRF-safe fetching: the vector table, redirects, DNS rebinding, limits, and rename-from-url."""

from __future__ import annotations

import asyncio
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from api.conftest import MakeApi
from api.test_account import assert_error
from emulators.base import EmulatorServer
from renamerd.api.fetch import FetchError, SafeFetcher, blocked_reason, parse_ipv4_loose
from renamerd.config import FetchSettings

NAMES = {
    "localhost": ["127.0.0.1", "::1"],
    "metadata.internal": ["169.254.169.254"],
    "intranet.corp": ["10.20.30.40"],
    "mixed.example": ["93.184.216.34", "10.0.0.1"],
    "nip.example": ["127.0.0.1"],
    "v6only.example": ["fd12:3456::1"],
    "public.example": ["93.184.216.34"],
}


def resolver(host: str, port: int) -> list[str]:
    if host not in NAMES:
        raise socket.gaierror(f"unknown host {host}")
    return NAMES[host]


# (url, words expected in the refusal)
VECTORS = [
    ("http://127.0.0.1/", "loopback"),
    ("http://localhost:8080/admin", "loopback"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://0/", "unspecified"),
    ("http://10.1.2.3/", "private"),
    ("http://172.16.5.4/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://metadata.internal/computeMetadata/v1/", "metadata"),
    ("http://169.254.10.10/", "link-local"),
    ("http://100.64.0.1/", "carrier-grade NAT"),
    ("http://[::1]/", "loopback"),
    ("http://[::]/", "unspecified"),
    ("http://[::ffff:127.0.0.1]/", "IPv4-mapped"),
    ("http://[::ffff:a9fe:a9fe]/", "IPv4-mapped"),
    ("http://[::127.0.0.1]/", "IPv4-compatible"),
    ("http://[64:ff9b::a00:1]/", "NAT64"),
    ("http://[2002:7f00:1::]/", "6to4"),
    ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"),
    ("http://[fd00::1]/", "unique local"),
    ("http://v6only.example/", "unique local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://2130706433/", "loopback"),
    ("http://0x7f000001/", "loopback"),
    ("http://0x7f.1/", "loopback"),
    ("http://017700000001/", "loopback"),
    ("http://0177.0.0.1/", "loopback"),
    ("http://127.1/", "loopback"),
    ("http://127.0.0.1./", "loopback"),
    ("http://nip.example/", "loopback"),
    ("http://mixed.example/", "private"),
    ("http://224.0.0.1/", "multicast"),
    ("http://255.255.255.255/", "reserved"),
    ("http://198.18.0.1/", "benchmarking"),
    ("ftp://public.example/file.pdf", "only http and https"),
    ("file:///etc/passwd", "only http and https"),
    ("gopher://public.example:70/", "only http and https"),
]


@pytest.mark.parametrize("url, why", VECTORS, ids=[v[0] for v in VECTORS])
def test_ssrf_vectors_are_refused(url: str, why: str) -> None:
    fetcher = SafeFetcher(FetchSettings(), 1024, resolver=resolver)
    with pytest.raises(FetchError) as info:
        asyncio.run(fetcher.check_url(url))
    assert info.value.status == 400
    assert info.value.code == "URL_BLOCKED"
    assert why.lower() in str(info.value).lower()


def test_enough_vectors() -> None:
    assert len(VECTORS) >= 20


@pytest.mark.parametrize("url", ["http://93.184.216.34/a.pdf", "https://public.example/a.pdf",
                                 "http://[2606:2800:220:1::]/"])
def test_public_addresses_pass_the_check(url: str) -> None:
    fetcher = SafeFetcher(FetchSettings(), 1024, resolver=resolver)
    _parsed, address = asyncio.run(fetcher.check_url(url))
    assert address in ("93.184.216.34", "2606:2800:220:1::")


def test_allow_networks_exempts_admin_listed_ranges() -> None:
    fetcher = SafeFetcher(FetchSettings(allow_networks=["10.20.0.0/16"]), 1024, resolver=resolver)
    assert asyncio.run(fetcher.check_url("http://intranet.corp/doc.pdf"))[1] == "10.20.30.40"
    with pytest.raises(FetchError):
        asyncio.run(fetcher.check_url("http://10.21.0.1/"))


@pytest.mark.parametrize("host, ip", [
    ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("017700000001", "127.0.0.1"),
    ("127.1", "127.0.0.1"), ("10.1", "10.0.0.1"), ("192.168.257", "192.168.1.1"),
    ("0xA9.0xFE.0xA9.0xFE", "169.254.169.254"), ("1.2.3.4", "1.2.3.4"),
])
def test_loose_ipv4_notations(host: str, ip: str) -> None:
    assert str(parse_ipv4_loose(host)) == ip


@pytest.mark.parametrize("host", ["example.com", "1.2.3.4.5", "256.1.1.1", "08.1.1.1", "1..1", "4294967296"])
def test_not_ipv4(host: str) -> None:
    assert parse_ipv4_loose(host) is None


def test_blocked_reason_for_public_is_none() -> None:
    import ipaddress

    assert blocked_reason(ipaddress.ip_address("8.8.8.8")) is None
    assert blocked_reason(ipaddress.ip_address("2001:4860:4860::8888")) is None


# --- against local servers ------------------------------------------------------------------

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


async def _doc(request: Request) -> Response:
    return Response(PDF, media_type="application/pdf")


async def _redirect(request: Request) -> Response:
    return RedirectResponse(request.query_params["to"], status_code=302)


async def _slow_redirect(request: Request) -> Response:
    await asyncio.sleep(2)
    return RedirectResponse(request.query_params["to"], status_code=302)


async def _loop(request: Request) -> Response:
    n = int(request.query_params.get("n", "0"))
    return RedirectResponse(f"/loop?n={n + 1}", status_code=301)


async def _big(request: Request) -> Response:
    size = int(request.query_params["size"])

    async def gen():
        for _ in range(size // 65536 + 1):
            yield b"%" * 65536

    if request.query_params.get("length"):
        return Response(b"%PDF-" + b"x" * size, media_type="application/pdf")
    return StreamingResponse(gen(), media_type="application/pdf")


async def _slow(request: Request) -> Response:
    await asyncio.sleep(2)
    return Response(PDF)


async def _drip(request: Request) -> Response:
    async def gen():
        yield b"%PDF-1.4\n"
        for _ in range(100):
            await asyncio.sleep(0.1)  # each read is quick, the whole is slow
            yield b"%"

    return StreamingResponse(gen(), media_type="application/pdf")


async def _status(request: Request) -> Response:
    return Response(b"nope", status_code=int(request.path_params["code"]))


DOC_APP = Starlette(routes=[
    Route("/files/{name}", _doc), Route("/redirect", _redirect), Route("/loop", _loop),
    Route("/slowredirect", _slow_redirect),
    Route("/big", _big), Route("/slow", _slow), Route("/drip", _drip), Route("/status/{code:int}", _status),
])

LOCAL = FetchSettings(allow_networks=["127.0.0.1/32"], read_timeout_s=0.5, connect_timeout_s=2)


@pytest.fixture(scope="module")
def docs() -> Iterator[EmulatorServer]:
    with EmulatorServer(DOC_APP, tls=False) as server:
        yield server


def fetch(url: str, settings: FetchSettings = LOCAL, max_bytes: int = 1 << 20, **kw):
    return asyncio.run(SafeFetcher(settings, max_bytes, **kw).fetch(url))


def test_fetch_from_an_allowed_local_server(docs: EmulatorServer) -> None:
    doc = fetch(f"{docs.url}/files/Rechnung%20M%C3%A4rz.pdf")
    assert doc.data == PDF and doc.filename == "Rechnung März.pdf"
    assert doc.connected == ["127.0.0.1"]


def test_redirect_to_a_private_address_is_refused(docs: EmulatorServer) -> None:
    for target in ("http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/x",
                   "http://[::1]/", "http://0x7f.2/", "file:///etc/passwd"):
        with pytest.raises(FetchError) as info:
            fetch(f"{docs.url}/redirect?to={target}")
        assert info.value.code == "URL_BLOCKED", target


def test_redirects_are_followed_and_capped(docs: EmulatorServer) -> None:
    doc = fetch(f"{docs.url}/redirect?to=/files/a.pdf")
    assert doc.data == PDF and doc.connected == ["127.0.0.1", "127.0.0.1"]
    with pytest.raises(FetchError) as info:
        fetch(f"{docs.url}/loop")
    assert info.value.code == "TOO_MANY_REDIRECTS"


def test_size_limit_while_streaming_and_from_content_length(docs: EmulatorServer) -> None:
    for query in ("size=3000000", "size=3000000&length=1"):
        with pytest.raises(FetchError) as info:
            fetch(f"{docs.url}/big?{query}")
        assert info.value.status == 413


def test_upstream_statuses_and_timeouts(docs: EmulatorServer) -> None:
    cases = {"/status/404": 404, "/status/410": 404, "/status/403": 400, "/status/503": 502,
             "/slow": 502}
    for path, status in cases.items():
        with pytest.raises(FetchError) as info:
            fetch(docs.url + path)
        assert info.value.status == status, path


def test_a_dripping_server_is_cut_off(docs: EmulatorServer) -> None:
    start = time.monotonic()
    with pytest.raises(FetchError) as info:
        fetch(f"{docs.url}/drip", FetchSettings(allow_networks=["127.0.0.1/32"], read_timeout_s=0.5,
                                                connect_timeout_s=0.5))
    assert info.value.status == 502 and "longer than 1 s" in str(info.value)
    assert time.monotonic() - start < 5


def test_unreachable_port_is_502() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(FetchError) as info:
        fetch(f"http://127.0.0.1:{port}/x.pdf")
    assert info.value.status == 502


class _TlsDocServer:
    """DOC_APP over TLS with a certificate for the name docs.test (not in any DNS)."""

    def __init__(self) -> None:
        import trustme

        self.ca = trustme.CA()
        self.tmp = tempfile.TemporaryDirectory()
        d = Path(self.tmp.name)
        self.ca.issue_cert("docs.test").private_key_and_cert_chain_pem.write_to_path(str(d / "s.pem"))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(DOC_APP, log_level="warning", lifespan="off",
                                ssl_certfile=str(d / "s.pem"))
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[sock])), daemon=True
        )
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context()
        self.ca.configure_trust(ctx)
        return ctx

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.tmp.cleanup()


@pytest.fixture(scope="module")
def tls_docs() -> Iterator[_TlsDocServer]:
    server = _TlsDocServer()
    yield server
    server.stop()


def test_dns_rebinding_cannot_reach_a_private_address(tls_docs: _TlsDocServer) -> None:
    """The first answer is checked and pinned; a second, private answer is never asked for."""
    answers = [["127.0.0.1"], ["10.0.0.1"], ["10.0.0.1"]]
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return answers[len(calls) - 1]

    doc = fetch(f"https://docs.test:{tls_docs.port}/files/x.pdf", resolver=rebinding,
                ssl_context=tls_docs.ssl_context())
    # TLS verified the certificate for docs.test (SNI by name) over the pinned address
    assert doc.data == PDF
    assert calls == ["docs.test"] and doc.connected == ["127.0.0.1"]
    # a redirect on the same name resolves again, gets the private answer, and is refused
    calls.clear()
    with pytest.raises(FetchError) as info:
        fetch(f"https://docs.test:{tls_docs.port}/redirect?to=/files/y.pdf", resolver=rebinding,
              ssl_context=tls_docs.ssl_context())
    assert info.value.code == "URL_BLOCKED" and calls == ["docs.test", "docs.test"]


def test_certificate_is_checked_for_the_name(tls_docs: _TlsDocServer) -> None:
    with pytest.raises(FetchError) as info:
        fetch(f"https://other.test:{tls_docs.port}/files/x.pdf",
              resolver=lambda h, p: ["127.0.0.1"], ssl_context=tls_docs.ssl_context())
    assert info.value.status == 502


# --- the endpoint ---------------------------------------------------------------------------

def test_rename_from_url(make_api: MakeApi, docs: EmulatorServer) -> None:
    api = make_api(fetch={"allow_networks": ["127.0.0.1/32"]})
    r = api.client.post("/api/v1/rename-from-url", headers=api.auth,
                        json={"url": f"{docs.url}/files/invoice-7.pdf", "strategy": "by_issuer",
                              "language": "de"})
    assert r.status_code == 200, r.text
    assert r.json()["originalFilename"] == "invoice-7.pdf"
    name, options = api.engine.calls[-1]
    assert (options.strategy, options.language) == ("by_issuer", "de")
    assert api.balance() == 49


def test_rename_from_url_blocked_charges_nothing(make_api: MakeApi, docs: EmulatorServer) -> None:
    api = make_api()  # no allow_networks: 127.0.0.1 is loopback
    for url in (f"{docs.url}/files/a.pdf", "http://169.254.169.254/", "ftp://x.example/a.pdf",
                f"{docs.url}/redirect?to=http://10.0.0.1/"):
        r = api.client.post("/api/v1/rename-from-url", headers=api.auth, json={"url": url})
        body = assert_error(r, 400, "URL_BLOCKED")
        assert "blocked" in body["error"]
    api2 = make_api(fetch={"allow_networks": ["127.0.0.1/32"]})
    r = api2.client.post("/api/v1/rename-from-url", headers=api2.auth,
                         json={"url": f"{docs.url}/redirect?to=http://10.0.0.1/"})
    assert_error(r, 400, "URL_BLOCKED")
    assert api.balance() == 50 and api2.balance() == 50 and not api.engine.calls


def test_rename_from_url_errors(make_api: MakeApi, docs: EmulatorServer) -> None:
    api = make_api(fetch={"allow_networks": ["127.0.0.1/32"]}, limits={"max_upload_mb": 1})
    post = lambda body: api.client.post("/api/v1/rename-from-url", headers=api.auth, json=body)  # noqa: E731
    assert_error(post({"url": f"{docs.url}/status/404"}), 404, "FILE_NOT_FOUND")
    assert_error(post({"url": f"{docs.url}/big?size=2000000"}), 413)
    assert_error(post({"url": f"{docs.url}/status/500"}), 502)
    assert_error(post({"url": f"{docs.url}/status/200"}), 415)  # b"nope" is no document
    # a wrong option's value is an INVALID_OPTION naming the field, as on POST /rename
    sideways = post({"url": f"{docs.url}/files/a.pdf", "strategy": "sideways"})
    assert_error(sideways, 400, "INVALID_OPTION")
    assert "strategy" in sideways.json()["error"] and "by_date" in sideways.json()["error"]
    assert_error(post({"strategy": "root"}), 400, "INVALID_REQUEST")  # no url
    bad = api.client.post("/api/v1/rename-from-url", content=b'{"url": "x",, }',
                          headers={**api.auth, "content-type": "application/json"})
    assert_error(bad, 400, "INVALID_REQUEST")
    assert bad.json()["error"].startswith("invalid request: the body is not valid JSON (at ")
    assert api.balance() == 50


def test_rename_from_url_refuses_unknown_fields_and_bodies_not_json(
        make_api: MakeApi, docs: EmulatorServer) -> None:
    api = make_api(fetch={"allow_networks": ["127.0.0.1/32"]})
    url = f"{docs.url}/files/a.pdf"
    post = lambda **kw: api.client.post(  # noqa: E731
        "/api/v1/rename-from-url", **{"headers": api.auth, **kw})
    body = assert_error(post(json={"url": url, "stratgy": "x"}), 400, "UNKNOWN_FIELD")
    assert body["error"].startswith("unknown field 'stratgy' (did you mean 'strategy'?)")
    for kw in ({"data": {"url": url}}, {"files": {"url": (None, url)}},
               {"content": b'{"url": "x"}', "headers": {**api.auth, "content-type": "text/plain"}},
               {"content": b'{"url": "x"}'}):  # no Content-Type at all
        body = assert_error(post(**kw), 400, "INVALID_REQUEST")
        assert "send the body as JSON with Content-Type: application/json" in body["error"]
        assert "dictionary" not in body["error"]
    assert "must be a JSON object" in assert_error(post(json=[url]), 400)["error"]
    assert api.balance() == 50 and not api.engine.calls
    typed = post(content=b'{"url": "%s"}' % url.encode(),
                 headers={**api.auth, "content-type": "application/json; charset=utf-8"})
    assert typed.status_code == 200, typed.text


def test_rename_from_url_idempotency(make_api: MakeApi, docs: EmulatorServer) -> None:
    api = make_api(fetch={"allow_networks": ["127.0.0.1/32"]})
    headers = {**api.auth, "Idempotency-Key": "url-1"}
    body = {"url": f"{docs.url}/files/a.pdf"}
    first = api.client.post("/api/v1/rename-from-url", headers=headers, json=body)
    second = api.client.post("/api/v1/rename-from-url", headers=headers, json=body)
    assert first.json() == second.json() and second.headers["idempotent-replayed"] == "true"
    assert api.balance() == 49 and len(api.engine.calls) == 1


def test_one_deadline_covers_every_redirect_hop(docs: EmulatorServer) -> None:
    # each hop answers in 2 s (within its own 0.5 + 3 s), five hops: 10 s without a total
    chain = "/slow"
    for _ in range(4):
        chain = f"/slowredirect?to={chain}"
    settings = FetchSettings(allow_networks=["127.0.0.1/32"], read_timeout_s=3,
                             connect_timeout_s=0.5, total_timeout_s=3)
    start = time.monotonic()
    with pytest.raises(FetchError) as info:
        fetch(docs.url + chain, settings)
    assert info.value.status == 502 and "redirects included" in str(info.value)
    assert time.monotonic() - start < 4.5


def test_a_reload_applies_fetch_and_the_upload_limit_to_the_next_fetch(
        make_api: MakeApi, docs: EmulatorServer) -> None:
    """`[fetch] allow_networks` added by a reload lets the next rename-from-url through, as
    the reload's log says ("[fetch] changed: applied"), without a restart."""
    from renamerd.api.app import reconfigure
    from renamerd.config import Settings
    from renamerd.runtime import reload as reloading

    api = make_api()  # 127.0.0.1 is loopback: blocked
    post = lambda: api.client.post(  # noqa: E731
        "/api/v1/rename-from-url", headers=api.auth, json={"url": f"{docs.url}/files/a.pdf"})
    assert_error(post(), 400, "URL_BLOCKED")

    def reload(**sections: object) -> None:
        data = {**api.settings.model_dump(exclude={"source_file"}), **sections}
        what = reloading.plan(api.settings, Settings(**data))
        assert "fetch" in what.live or "limits" in what.live
        reloading.apply(api.settings, Settings(**data), what)
        reconfigure(api.client.app, what.live)  # type: ignore[arg-type]

    reload(fetch={"allow_networks": ["127.0.0.1/32"]})
    assert post().status_code == 200
    reload(limits={"max_upload_mb": 0.000001})  # 1 byte: the fetched PDF is over it
    assert_error(post(), 413)
