"""Real receivers for the notification tests: an SMTP server (aiosmtpd) and an HTTP server that
checks webhook signatures, each able to fail its first deliveries on purpose."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SmtpServer:
    """What the server received; `fail_next` answers that many DATA commands with 451."""

    host: str = "127.0.0.1"
    port: int = 0
    messages: list[Message] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    fail_next: int = 0
    failed: int = 0
    logins: list[str] = field(default_factory=list)

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        if self.fail_next > 0:
            self.fail_next -= 1
            self.failed += 1
            return "451 4.3.0 try again later"
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 30) -> list[Message]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.messages


def start_smtp(password: str | None = None) -> tuple[SmtpServer, Controller]:
    """An SMTP server on a free local port (AUTH LOGIN/PLAIN with user "renamerd" and
    `password` when given, without TLS)."""
    server = SmtpServer(port=free_port())

    def authenticate(_srv: Any, _sess: Any, _env: Any, _mech: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login == b"renamerd" and \
            data.password == (password or "").encode()
        if ok:
            server.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)  # (unhandled: aiosmtpd answers 535)

    kwargs: dict[str, Any] = {}
    if password is not None:
        kwargs = {"authenticator": authenticate, "auth_require_tls": False,
                  "auth_exclude_mechanism": ["LOGIN"]}  # (smtplib and its LOGIN hang)
    controller = Controller(server, hostname="127.0.0.1", port=server.port, **kwargs)
    controller.start()
    return server, controller


@dataclass
class WebhookReceiver:
    """Records deliveries whose signature checks out; answers `statuses` first (then 200)."""

    secret: str
    url: str = ""
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    bad_signatures: int = 0
    attempts: int = 0
    max_age_s: float = 300

    def verify(self, headers: dict[str, str], body: bytes) -> bool:
        stamp = headers.get("X-Renamerd-Timestamp", "")
        if not stamp.isdigit() or abs(time.time() - int(stamp)) > self.max_age_s:
            return False
        expected = "sha256=" + hmac.new(self.secret.encode(), stamp.encode() + b"." + body,
                                        hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, headers.get("X-Renamerd-Signature", ""))

    def wait_for(self, count: int, timeout: float = 30) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.deliveries) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.deliveries


def start_webhook(secret: str) -> tuple[WebhookReceiver, ThreadingHTTPServer]:
    receiver = WebhookReceiver(secret)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {k: v for k, v in self.headers.items()}
            receiver.attempts += 1
            status = receiver.statuses.pop(0) if receiver.statuses else 200
            if status == 200:
                if receiver.verify(headers, body):
                    receiver.headers.append(headers)
                    receiver.deliveries.append(json.loads(body))
                else:
                    receiver.bad_signatures += 1
                    status = 401
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{httpd.server_address[1]}/hooks/renamerd"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return receiver, httpd


