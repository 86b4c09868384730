"""The HTTP/1.1 protocol the server runs: uvicorn's httptools protocol with two deadlines a
slow client cannot stretch, and a rate-limited log line for accept errors.

- **Headers**: from a request's first byte, its headers must be complete within
  `server.header_timeout_s`; a client sending half a header line is answered 408 and cut off
  (uvicorn itself waits forever).
- **Body**: between two pieces of the body at most `server.body_idle_timeout_s`; a body
  trickled a byte now and then is answered 408 (the app sees the client gone) and cut off.

Only the time a request is *being sent* counts: once the body is complete, the app's own work
(a rename) has no deadline here. An idle keep-alive connection is uvicorn's
`timeout_keep_alive`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("renamerd.api")

_BODY = json.dumps({"error": "request timeout: the request was not sent in time",
                    "code": "REQUEST_TIMEOUT"}).encode()
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                    b"content-length: " + str(len(_BODY)).encode() +
                    b"\r\nconnection: close\r\n\r\n" + _BODY)


class TimedHttpProtocol(HttpToolsProtocol):
    """HttpToolsProtocol with a header deadline and a body idle deadline (class attributes,
    set by `protocol_class`)."""

    header_timeout_s: float = 10.0
    body_idle_timeout_s: float = 20.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s)  # a connection that never sends a byte too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm(self.header_timeout_s)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self.body_idle_timeout_s)

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        self._arm(self.body_idle_timeout_s)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self._disarm()  # the keep-alive timer of uvicorn takes over
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


def protocol_class(header_timeout_s: float, body_idle_timeout_s: float) -> type[HttpToolsProtocol]:
    """TimedHttpProtocol with these deadlines, for `uvicorn.Config(http=...)`."""
    return type("TimedHttpProtocol", (TimedHttpProtocol,), {
        "header_timeout_s": header_timeout_s, "body_idle_timeout_s": body_idle_timeout_s})


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
