"""SSRF-safe fetching for `POST /api/v1/rename-from-url`.

For every hop (the URL and each redirect, at most `fetch.max_redirects`):

1. only `http` and `https`; the host is parsed as an address first, with inet_aton semantics
   (`0x7f.1`, `2130706433`, `017700000001`, `127.1` are 127.0.0.1), else resolved once with
   `getaddrinfo` (the resolver is injectable);
2. every address is checked (`blocked_reason`, service/egress.py): anything not global is
   refused (loopback, private, link-local, cloud metadata, CGNAT, unspecified, multicast,
   reserved, documentation, ULA) and so is every IPv6 form that embeds an IPv4 address
   (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo); networks in `fetch.allow_networks` are exempt;
3. the connection goes to the address that was checked: httpx runs on a network backend pinned
   to it, while the URL, and so the Host header, TLS SNI and certificate check, keep the name.
   A DNS answer that changes between check and connect cannot matter: DNS is not asked again.

The body is streamed with the size limit (Content-Length first, then counted), with connect and
read timeouts, each hop within their sum, and the whole fetch, redirects included, within
`fetch.total_timeout_s`
(a server dripping bytes, or a chain of slow redirects, is cut off).
Failures raise `FetchError` with the HTTP status the API answers.
"""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import anyio
import httpcore
import httpx

from renamerd.config import FetchSettings
from renamerd.service.egress import (  # noqa: F401  (the checks' names, for callers of this module)
    IPAddress,
    blocked_reason,
    parse_ip_literal,
    parse_ipv4_loose,
    system_resolver,
)

#: (host, port) -> the addresses it resolves to; blocking, run in a worker thread
Resolver = Callable[[str, int], Sequence[str]]
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "renamerd-fetch/1"


class FetchError(Exception):
    """The fetch failed; `status` and `code` are what the API answers, `str()` the message."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def _a(words: str) -> str:
    """`words` after the right article ("an IPv4-mapped address", "a loopback address")."""
    vowel = words[:1].lower() in "aeiou" and not words.lower().startswith(("uni", "use"))
    return ("an " if vowel or words.startswith(("IPv", "RFC", "NAT")) else "a ") + words


def _blocked(message: str) -> FetchError:
    return FetchError(400, f"URL blocked: {message}", "URL_BLOCKED")


@dataclass
class FetchedDocument:
    data: bytes
    filename: str
    content_type: str
    final_url: str
    #: addresses actually connected to, one per hop (for tests and logs)
    connected: list[str] = field(default_factory=list)


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens every TCP connection to one checked address, whatever host httpcore asks for."""

    def __init__(self, address: str, connected: list[str]) -> None:
        self.address = address
        self.connected = connected
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self, host: str, port: int, timeout: float | None = None,
        local_address: str | None = None, socket_options: Any = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connected.append(self.address)
        return await self.inner.connect_tcp(
            self.address, port, timeout=timeout, local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not used for fetching")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def _filename(response: httpx.Response, url: httpx.URL) -> str:
    from python_multipart.multipart import parse_options_header

    from renamerd.api.uploads import safe_filename

    disposition = response.headers.get("content-disposition", "")
    if disposition:
        _kind, params = parse_options_header(disposition)
        name = params.get(b"filename", b"").decode("utf-8", "replace")
        if name:
            return safe_filename(name)
    segment = unquote(url.path.rstrip("/").rsplit("/", 1)[-1])
    return safe_filename(segment)


class SafeFetcher:
    """Fetches one URL at a time under the rules above. Safe to share; holds no connection.

    `settings` is read at each fetch, so a reload that changes the `[fetch]` section in place
    (runtime/reload.py) applies to the next fetch; `max_bytes` is a number, or a function giving
    the current limit (the app's: `limits.max_upload_bytes` of the live settings)."""

    def __init__(
        self, settings: FetchSettings, max_bytes: int | Callable[[], int], *,
        resolver: Resolver | None = None, ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.settings = settings
        self._max_bytes = max_bytes
        self.resolver = resolver or system_resolver
        self.ssl_context = ssl_context or httpx.create_ssl_context()
        self._allow: tuple[tuple[str, ...], list[IPNetwork]] = ((), [])

    @property
    def max_bytes(self) -> int:
        """The largest document fetched, now."""
        return self._max_bytes() if callable(self._max_bytes) else self._max_bytes

    @property
    def allow(self) -> list[IPNetwork]:
        """The networks of `fetch.allow_networks` now (parsed once per value)."""
        given = tuple(self.settings.allow_networks)
        if self._allow[0] != given:
            self._allow = (given, [ipaddress.ip_network(n, strict=False) for n in given])
        return self._allow[1]

    async def check_url(self, url: str) -> tuple[httpx.URL, str]:
        """Validate `url` and resolve its host: (parsed URL, the checked address to connect to).

        Raises FetchError(400, URL_BLOCKED / INVALID_URL) naming the reason. Safe to repeat.
        """
        if not url.strip():
            raise FetchError(400, "invalid URL: the url is empty", "INVALID_URL")
        try:
            # Judge the raw host first: httpx refuses some notations (0177.0.0.1) that other
            # parsers accept, and the refusal should name what the address is.
            raw_host = urlsplit(url).hostname or ""
            raw_ip = parse_ip_literal(raw_host)
            raw_reason = blocked_reason(raw_ip, self.allow) if raw_ip is not None else None
            if raw_reason:
                raise _blocked(f"{url} is {_a(raw_reason)}")
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, TypeError, ValueError) as err:
            raise FetchError(400, f"invalid URL: {err}", "INVALID_URL") from err
        if parsed.scheme not in ("http", "https"):
            if not parsed.scheme:
                raise FetchError(400, "invalid URL: it has no scheme (http:// or https://)",
                                 "INVALID_URL")
            raise _blocked(f"only http and https URLs are fetched (got {parsed.scheme!r})")
        host = parsed.host
        if not host:
            raise FetchError(400, "invalid URL: no host", "INVALID_URL")
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        literal = parse_ip_literal(host)
        if literal is not None:
            addresses = [str(literal)]
        else:
            try:
                addresses = list(await anyio.to_thread.run_sync(self.resolver, host, port))
            except (OSError, UnicodeError) as err:
                raise FetchError(400, f"cannot resolve host {host!r}", "URL_UNRESOLVABLE") from err
            if not addresses:
                raise FetchError(400, f"cannot resolve host {host!r}", "URL_UNRESOLVABLE")
        checked: list[IPAddress] = []
        for text in addresses:
            ip = parse_ip_literal(text)
            if ip is None:
                raise _blocked(f"{host!r} resolves to an unparseable address")
            reason = blocked_reason(ip, self.allow)
            if reason:
                shown = host if literal is None else url
                raise _blocked(f"{shown} is {_a(reason)}" if literal is not None else
                               f"{shown!r} resolves to {_a(reason)}")
            checked.append(ip)
        return parsed, str(checked[0])

    async def fetch(self, url: str) -> FetchedDocument:
        """Download `url` following at most `max_redirects` redirects, each hop checked.

        Raises FetchError: 400 (blocked, invalid, unresolvable, too many redirects, refused by
        the server), 404 (the server has no such file), 413 (over the size limit), 502 (the
        server failed, timed out or could not be reached). Safe to repeat (GET only).
        """
        # ONE deadline for the URL and all its redirects, not one per hop
        deadline = self.settings.total_timeout_s
        try:
            with anyio.fail_after(deadline):
                return await self._follow(url)
        except TimeoutError as err:
            raise FetchError(
                502, f"fetching the URL took longer than {deadline:g} s (redirects included)",
                "FETCH_FAILED") from err

    async def _follow(self, url: str) -> FetchedDocument:
        connected: list[str] = []
        current = url
        for _hop in range(self.settings.max_redirects + 1):
            parsed, address = await self.check_url(current)
            hop = self.settings.connect_timeout_s + self.settings.read_timeout_s
            try:
                with anyio.fail_after(hop):
                    response_or_next = await self._get(parsed, address, connected)
            except TimeoutError as err:
                raise FetchError(
                    502, f"fetching the URL took longer than {hop:g} s", "FETCH_FAILED"
                ) from err
            if isinstance(response_or_next, str):
                current = response_or_next
                continue
            data, filename, ctype = response_or_next
            return FetchedDocument(data, filename, ctype, str(parsed), connected)
        raise FetchError(
            400, f"too many redirects (more than {self.settings.max_redirects})", "TOO_MANY_REDIRECTS"
        )

    async def _get(
        self, url: httpx.URL, address: str, connected: list[str]
    ) -> str | tuple[bytes, str, str]:
        transport = httpx.AsyncHTTPTransport(verify=self.ssl_context, retries=0, trust_env=False)
        # Pin the connection to the checked address (httpx has no public hook for this).
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=self.ssl_context, max_connections=1,
            network_backend=_PinnedBackend(address, connected),
        )
        timeout = httpx.Timeout(
            self.settings.read_timeout_s, connect=self.settings.connect_timeout_s
        )
        headers = {"User-Agent": USER_AGENT, "Accept": "*/*", "Accept-Encoding": "identity"}
        try:
            async with (
                httpx.AsyncClient(
                    transport=transport, timeout=timeout, follow_redirects=False, trust_env=False
                ) as client,
                client.stream("GET", url, headers=headers) as response,
            ):
                if response.status_code in REDIRECTS:
                    location: str | None = response.headers.get("location")
                    if not location:
                        raise FetchError(502, "redirect without a Location header", "FETCH_FAILED")
                    return urljoin(str(url), location)
                if response.status_code in (404, 410):
                    raise FetchError(404, "file not found at the URL", "FILE_NOT_FOUND")
                if response.status_code >= 500:
                    raise FetchError(
                        502, f"the server answered HTTP {response.status_code}", "FETCH_FAILED"
                    )
                if response.status_code != 200:
                    raise FetchError(
                        400, f"the server answered HTTP {response.status_code}", "FETCH_REFUSED"
                    )
                data = await self._read_limited(response)
                return data, _filename(response, url), response.headers.get("content-type", "")
        except httpx.TimeoutException as err:
            raise FetchError(502, "timed out fetching the URL", "FETCH_FAILED") from err
        except httpx.HTTPError as err:
            raise FetchError(
                502, f"could not fetch the URL ({type(err).__name__})", "FETCH_FAILED"
            ) from err

    async def _read_limited(self, response: httpx.Response) -> bytes:
        from renamerd.api.uploads import too_large

        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            err = too_large(self.max_bytes)
            raise FetchError(413, err.message, err.code)
        chunks = bytearray()
        async for chunk in response.aiter_bytes():
            chunks += chunk
            if len(chunks) > self.max_bytes:
                err = too_large(self.max_bytes)
                raise FetchError(413, err.message, err.code)
        return bytes(chunks)
