"""The consent flow `renamerd connect gdrive` runs for a person at a terminal.

Google's installed-app flow: the person opens the consent address (`auth.authorization_url`),
and Google redirects the browser to http://127.0.0.1:PORT/, where a one-request server catches
the code (`_Catcher`); with `headless = true` (a machine without a browser) the person pastes the
address the browser was sent to instead. The code is then exchanged (`auth.exchange_code`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from renamerd.connectors import AuthError

from . import auth
from .options import GDriveOptions


class _Catcher(BaseHTTPRequestHandler):
    """Answers the browser's redirect to http://127.0.0.1:PORT/ and keeps its query."""

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        query = parse_qs(urlsplit(self.path).query)
        status, body = 404, b"not found"
        if "code" in query or "error" in query:
            self.server.query = query  # type: ignore[attr-defined]
            status, body = 200, b"renamerd: Google Drive access granted. You can close this window."
            if "error" in query:
                body = b"renamerd: access was not granted. You can close this window."
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep codes out of logs
        pass


def connect_flow(
    options: Mapping[str, Any], *, echo: Callable[[str], None], prompt: Callable[[str], str]
) -> str:
    """Run Google's installed-app flow (loopback redirect, PKCE) and return the refresh token.

    Prints the consent address with `echo`; a local server on 127.0.0.1 catches the browser's
    redirect. With `headless = true` no server is started and `prompt` asks for the address the
    browser was sent to (copy it from the address bar, the page itself will not load). Raises
    ConfigError (options), AuthError (refused, state mismatch, no refresh token) or
    TransientError (token endpoint unreachable). Not safe to repeat with the same code.
    """
    opts = GDriveOptions.parse(options, for_connect=True)
    verifier = auth.new_verifier()
    state = secrets.token_urlsafe(24)
    server: HTTPServer | None = None
    if opts.headless:
        redirect_uri = "http://127.0.0.1:1/"
    else:
        server = HTTPServer(("127.0.0.1", 0), _Catcher)
        server.query = None  # type: ignore[attr-defined]
        redirect_uri = f"http://127.0.0.1:{server.server_port}/"
    url = auth.authorization_url(opts, redirect_uri=redirect_uri, state=state, verifier=verifier)
    echo("Open this address in a browser and allow renamerd to manage your Google Drive files:")
    echo(url)
    try:
        if server is None:
            query = parse_qs(urlsplit(prompt("Paste the address the browser was sent to").strip()).query)
        else:
            echo(f"Waiting for the browser to come back to {redirect_uri} ...")
            query = _wait_for_redirect(server, opts.connect_timeout)
    finally:
        if server is not None:
            server.server_close()
    code = auth.code_from_redirect(query, state)
    return auth.exchange_code(opts, code, redirect_uri, verifier)


def _wait_for_redirect(server: HTTPServer, timeout: float) -> dict[str, list[str]]:
    deadline = time.monotonic() + timeout
    server.timeout = 0.5
    while time.monotonic() < deadline:
        server.handle_request()
        query = server.query  # type: ignore[attr-defined]
        if query is not None:
            return dict(query)
    raise AuthError(f"gdrive connect: no answer from the browser within {timeout:.0f}s")
