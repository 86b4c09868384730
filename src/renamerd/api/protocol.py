"""The HTTP/1.1 protocol the server runs: uvicorn's httptools protocol with two deadlines a
slow client cannot stretch, and a rate-limited log line for accept errors.

- **Headers**: from a request's first byte, its headers must be complete within
  `server.header_timeout_s`; a client sending half a header line is answered 408 and cut off
  (uvicorn itself waits forever).
- **Body**: between two pieces of the body at most `server.body_idle_timeout_s`; a body
  trickled a byte now and then is answered 408 (the app sees the client gone) and cut off.

- **Size**: the request line and headers may take `server.max_header_kb` together; past it
  the client gets 431 and is cut off (uvicorn buffers a header of any size).
- **Connections per client**: one address may hold `server.max_connections_per_client` open
  connections; the next is answered 429 and closed, so one client holding connections open
  (slowloris) cannot take every slot of `server.max_connections` from the others. Trusted
  proxies are not counted (their connections carry everyone's requests).

Only the time a request is *being sent* counts: once the body is complete, the app's own work
(a rename) has no deadline here. An idle keep-alive connection is uvicorn's
`timeout_keep_alive`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import time
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("renamerd.api")

def _response(status: str, error: str, code: str) -> bytes:
    """A whole HTTP/1.1 answer with the JSON error body, closing the connection."""
    body = json.dumps({"error": error, "code": code}).encode()
    return (b"HTTP/1.1 " + status.encode() + b"\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() +
            b"\r\nconnection: close\r\n\r\n" + body)


TIMEOUT_RESPONSE = _response("408 Request Timeout",
                             "request timeout: the request was not sent in time",
                             "REQUEST_TIMEOUT")
TOO_MANY_CONNECTIONS = _response(
    "429 Too Many Requests",
    "too many connections: this address holds the most open connections the server allows "
    "one client", "TOO_MANY_CONNECTIONS")
HEADERS_TOO_LARGE = _response(
    "431 Request Header Fields Too Large",
    "request headers too large: the request line and headers are over the server's limit",
    "HEADERS_TOO_LARGE")


class TimedHttpProtocol(HttpToolsProtocol):
    """HttpToolsProtocol with a header deadline and a body idle deadline (class attributes,
    set by `protocol_class`)."""

    header_timeout_s: float = 10.0
    body_idle_timeout_s: float = 20.0
    max_header_bytes: int = 64 * 1024
    #: open connections one address may hold (0: no cap), and the addresses not counted
    max_per_client: int = 0
    uncounted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    #: open connections per client address, of every connection of this class (the event
    #: loop's thread only: no lock)
    open_per_client: dict[str, int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._in_headers = True  # until a request's headers are complete
        self._header_bytes = 0  # bytes received while in the headers (an endless line too)
        self._parsed_header_bytes = 0  # the request line and headers parsed (all in one chunk)
        self._refused = False  # 431 sent: what the parser still finds is dropped
        self._client: str | None = None  # the address counted in open_per_client

    def data_received(self, data: bytes) -> None:
        if self._in_headers:
            self._header_bytes += len(data)
        super().data_received(data)
        # (checked after parsing: a chunk that completes the headers and carries body bytes
        # has left the header phase)
        if self._in_headers and self._header_bytes > self.max_header_bytes:
            self._refuse_headers()

    def send_400_response(self, msg: str) -> None:
        """A request the HTTP parser refused (uvicorn answers in plain text): the same JSON
        error body as every other answer."""
        if self._refused or self.transport.is_closing():
            return
        self._disarm()
        self.transport.write(_response(
            "400 Bad Request", f"invalid request: malformed HTTP ({msg})", "INVALID_REQUEST"))
        self.transport.close()

    def _refuse_headers(self) -> None:
        self._refused = True
        if not self.transport.is_closing():
            self._disarm()
            self.transport.write(HEADERS_TOO_LARGE)
            self.transport.close()

    def on_url(self, url: bytes) -> None:
        self._parsed_header_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed_header_bytes += len(name) + len(value) + 4
        super().on_header(name, value)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.max_per_client and not self._count_client(transport):
            self._refused = True
            transport.write(TOO_MANY_CONNECTIONS)
            transport.close()
            return
        self._arm(self.header_timeout_s)  # a connection that never sends a byte too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._client is not None:
            left = self.open_per_client.get(self._client, 1) - 1
            if left > 0:
                self.open_per_client[self._client] = left
            else:
                self.open_per_client.pop(self._client, None)
            self._client = None
        super().connection_lost(exc)

    def _count_client(self, transport: Any) -> bool:
        """Count this connection against its address; False when the address already holds
        `max_per_client` (not counted then)."""
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        if not isinstance(host, str):
            return True  # a Unix socket: no address to count
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return True
        if any(address in net for net in self.uncounted):
            return True
        held = self.open_per_client.get(host, 0)
        if held >= self.max_per_client:
            log.warning("refused a connection from %s: it holds %d open", host, held)
            return False
        self.open_per_client[host] = held + 1
        self._client = host
        return True

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm(self.header_timeout_s)

    def on_headers_complete(self) -> None:
        self._in_headers = False
        if self._parsed_header_bytes > self.max_header_bytes:
            self._refuse_headers()  # the app never sees this request
            return
        super().on_headers_complete()
        self._arm(self.body_idle_timeout_s)

    def on_body(self, body: bytes) -> None:
        if self._refused:
            return
        super().on_body(body)
        self._arm(self.body_idle_timeout_s)

    def on_message_complete(self) -> None:
        self._disarm()
        if self._refused:
            return
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self._disarm()  # the keep-alive timer of uvicorn takes over
        # the next request on this connection
        self._in_headers, self._header_bytes, self._parsed_header_bytes = True, 0, 0
        super().on_response_complete()

    def _timed_out(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.flow.read_paused:  # the app has not taken the body read so far: not the client
            self._arm(self.body_idle_timeout_s)
            return
        cycle = self.cycle
        if cycle is None or not cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app's receive() now says the client is gone
            cycle.message_event.set()
        self.transport.close()


def protocol_class(header_timeout_s: float, body_idle_timeout_s: float,
                   max_header_bytes: int = 64 * 1024, max_per_client: int = 0,
                   uncounted: list[str] | tuple[str, ...] = ()) -> type[HttpToolsProtocol]:
    """TimedHttpProtocol with these deadlines, header limit and cap of connections per client
    address (`uncounted`: addresses or CIDRs not counted, the trusted proxies), for
    `uvicorn.Config(http=...)`. Each class counts its own connections."""
    return type("TimedHttpProtocol", (TimedHttpProtocol,), {
        "header_timeout_s": header_timeout_s, "body_idle_timeout_s": body_idle_timeout_s,
        "max_header_bytes": max_header_bytes, "max_per_client": max_per_client,
        "uncounted": _networks(uncounted),
        "open_per_client": {}})


def _networks(entries: list[str] | tuple[str, ...]
              ) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The networks of addresses and CIDRs ("*": every address); entries of neither kind are
    skipped (the config validates trusted_proxies; forwarded_allow_ips is older and free)."""
    out: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for entry in entries:
        if entry.strip() == "*":
            out += [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
            continue
        try:
            out.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            continue
    return tuple(out)


class AcceptErrorLogLimit(logging.Filter):
    """At most one log record about failing accept() calls (EMFILE: too many open files) per
    `every_s` seconds, saying how many were left out; other records pass. Thread-safe enough
    for logging (a lost count under a race is harmless)."""

    def __init__(self, every_s: float = 10.0, clock: Any = time.monotonic) -> None:
        super().__init__()
        self.every_s = every_s
        self.clock = clock
        self._last = float("-inf")
        self.suppressed = 0

    @staticmethod
    def _is_accept_error(record: logging.LogRecord) -> bool:
        text = record.getMessage().lower()
        return "accept" in text or "too many open files" in text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._is_accept_error(record):
            return True
        now = self.clock()
        if now - self._last < self.every_s:
            self.suppressed += 1
            return False
        if self.suppressed:
            record.msg = f"{record.getMessage()} ({self.suppressed} more like it in the last " \
                         f"{self.every_s:g} s were not logged)"
            record.args = None
            self.suppressed = 0
        record.exc_info = None  # one line, not a traceback per failed accept
        record.exc_text = None
        self._last = now
        return True


def limit_accept_error_logs(every_s: float = 10.0) -> None:
    """Install AcceptErrorLogLimit on the loggers asyncio and uvicorn report accept errors
    to. Safe to repeat (installed once)."""
    for name in ("asyncio", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, AcceptErrorLogLimit) for f in logger.filters):
            logger.addFilter(AcceptErrorLogLimit(every_s))
