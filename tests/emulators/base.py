"""Run a provider emulator (an ASGI app) on 127.0.0.1, over TLS with a trustme CA if asked.

Shared by the Drive, Dropbox and Graph emulators:

- `EmulatorServer(app, tls=True).start()` serves in a background thread; `.url` is its base
  address, `.ca_bundle` the CA file to hand to the SDK; `.stop()` ends it.
- `Faults` injects failures before the app sees a request: a rate (0.2 = 20% of calls) of
  429 with Retry-After or 500/503 responses, deterministic with a seed; and counts calls by path,
  so tests can assert how many API calls a poll cost.
"""

from __future__ import annotations

import asyncio
import random
import socket
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

Scope = dict[str, Any]


@dataclass
class Faults:
    rate: float = 0.0
    seed: int = 1234
    retry_after: float = 0.05
    #: paths (prefix match) never failed on purpose, e.g. the token endpoint
    exempt: tuple[str, ...] = ()
    calls: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    _rng: random.Random = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def reset_counts(self) -> None:
        with self._lock:
            self.calls.clear()
            self.injected.clear()

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def decide(self, path: str) -> int | None:
        """Count the call; return a status to fail it with, or None to let it through."""
        with self._lock:
            self.calls[path] += 1
            if self.rate <= 0 or any(path.startswith(p) for p in self.exempt):
                return None
            if self._rng.random() >= self.rate:
                return None
            status = self._rng.choice([429, 429, 500, 503])
            self.injected[str(status)] += 1
            return status


class FaultMiddleware:
    def __init__(self, app: Any, faults: Faults) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = self.faults.decide(scope["path"])
        if status is None:
            await self.app(scope, receive, send)
            return
        # drain the request body so the client sees a clean response
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        headers = [(b"content-type", b"application/json")]
        if status == 429:
            headers.append((b"retry-after", str(self.faults.retry_after).encode()))
        body = b'{"error": {"code": "injected", "message": "fault injected by the emulator"}}'
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # running in a thread
        pass


class EmulatorServer:
    """Serve `app` on 127.0.0.1 in a thread. TLS (trustme) when `tls` is true."""

    _ca: Any = None
    _ca_lock = threading.Lock()

    def __init__(self, app: Any, *, tls: bool = True, faults: Faults | None = None) -> None:
        self.faults = faults or Faults()
        self.app = FaultMiddleware(app, self.faults)
        self.tls = tls
        self._tmp = tempfile.TemporaryDirectory(prefix="renamerd-emu-")
        self.ca_bundle = ""
        self.port = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def certificate_authority(cls) -> Any:
        import trustme

        with cls._ca_lock:
            if cls._ca is None:
                cls._ca = trustme.CA()
            return cls._ca

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def start(self) -> EmulatorServer:
        sock = socket.socket()
        # accepted sockets inherit it: without, Nagle + delayed ACK cost ~40 ms per request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        kwargs: dict[str, Any] = {}
        if self.tls:
            ca = self.certificate_authority()
            cert = ca.issue_cert("127.0.0.1", "localhost")
            d = Path(self._tmp.name)
            cert.private_key_and_cert_chain_pem.write_to_path(str(d / "server.pem"))
            ca.cert_pem.write_to_path(str(d / "ca.pem"))
            kwargs = {"ssl_certfile": str(d / "server.pem")}
            self.ca_bundle = str(d / "ca.pem")
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", **kwargs)
        self._server = _Server(config)

        def serve() -> None:
            asyncio.run(self._server.serve(sockets=[sock]))  # type: ignore[union-attr]

        self._thread = threading.Thread(target=serve, name="emulator", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("emulator did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self._tmp.cleanup()

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
