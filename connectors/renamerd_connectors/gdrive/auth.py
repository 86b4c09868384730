"""Google Drive connection options, credentials, and the loopback OAuth flow for `renamerd connect`.

Credentials are google-auth objects: a user's refresh token (`google.oauth2.credentials`) or a
service account key file (`google.oauth2.service_account`, JWT bearer grant), both refreshed by
`google_auth_httplib2.AuthorizedHttp` before expiry and after a 401.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from renamerd.connectors import AuthError, ConfigError, ConnectorError, TransientError

DRIVE_SCOPE = "https://www.googleapis.com/auth/drive"
GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"  # noqa: S105 - an address
GOOGLE_AUTH_URI = "https://accounts.google.com/o/oauth2/auth"
GOOGLE_API_ENDPOINT = "https://www.googleapis.com/"
API_PATH = "drive/v3/"

_KNOWN = {
    "client_id", "client_secret", "refresh_token", "service_account_file", "subject",
    "api_endpoint", "token_uri", "auth_uri", "ca_bundle", "drive_id", "pace_seconds",
    "retries", "max_sleep", "timeout", "headless", "connect_timeout",
}


@dataclass(frozen=True)
class GDriveOptions:
    """The validated `[connections.options]` of a gdrive connection."""

    client_id: str | None = None
    client_secret: str | None = None
    refresh_token: str | None = None
    service_account_file: str | None = None
    subject: str | None = None
    api_endpoint: str = GOOGLE_API_ENDPOINT
    token_uri: str | None = None
    auth_uri: str = GOOGLE_AUTH_URI
    ca_bundle: str | None = None
    drive_id: str | None = None
    pace_seconds: float = 0.1
    retries: int = 8
    max_sleep: float = 60.0
    timeout: float = 60.0
    headless: bool = False
    connect_timeout: float = 300.0

    @classmethod
    def parse(
        cls, options: Mapping[str, Any], *, for_connect: bool = False, connection: str = "NAME"
    ) -> GDriveOptions:
        """Validate `options`; raises ConfigError naming the bad key. No I/O but file checks."""
        unknown = sorted(set(options) - _KNOWN)
        if unknown:
            raise ConfigError(f"gdrive: unknown option(s) {', '.join(unknown)}")

        def text(key: str) -> str | None:
            value = options.get(key)
            if value is None or value == "":
                return None
            if not isinstance(value, str):
                raise ConfigError(f"gdrive: option {key} must be a string")
            return value

        def number(key: str, default: float, low: float) -> float:
            value = options.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
                raise ConfigError(f"gdrive: option {key} must be a number >= {low}")
            return float(value)

        for key in ("ca_bundle", "service_account_file"):
            path = text(key)
            if path is not None and not Path(path).is_file():
                raise ConfigError(f"gdrive: option {key}: no such file {path}")
        for key in ("api_endpoint", "token_uri", "auth_uri"):
            url = text(key)
            if url is not None and urlsplit(url).scheme not in ("https", "http"):
                raise ConfigError(f"gdrive: option {key} must be an http(s) URL")
        opts = cls(
            client_id=text("client_id"), client_secret=text("client_secret"),
            refresh_token=text("refresh_token"), service_account_file=text("service_account_file"),
            subject=text("subject"), api_endpoint=text("api_endpoint") or GOOGLE_API_ENDPOINT,
            token_uri=text("token_uri"), auth_uri=text("auth_uri") or GOOGLE_AUTH_URI,
            ca_bundle=text("ca_bundle"), drive_id=text("drive_id"),
            pace_seconds=number("pace_seconds", 0.1, 0.0), retries=int(number("retries", 8, 0)),
            max_sleep=number("max_sleep", 60.0, 0.0), timeout=number("timeout", 60.0, 1.0),
            headless=bool(options.get("headless", False)),
            connect_timeout=number("connect_timeout", 300.0, 1.0),
        )
        if for_connect:
            if not (opts.client_id and opts.client_secret):
                raise ConfigError("gdrive: connecting an account needs client_id and client_secret")
        elif opts.service_account_file is None:
            missing = [k for k in ("client_id", "client_secret", "refresh_token") if not getattr(opts, k)]
            if missing:
                raise ConfigError(
                    f"gdrive: missing option(s) {', '.join(missing)} (or give service_account_file); "
                    f"run `renamerd connect gdrive --connection {connection}` to obtain a refresh token"
                )
        return opts

    @property
    def base_url(self) -> str:
        """The Drive v3 base address: `api_endpoint` with "drive/v3/" appended unless present."""
        base = self.api_endpoint.rstrip("/") + "/"
        return base if base.endswith("/" + API_PATH) else base + API_PATH


def build_credentials(opts: GDriveOptions) -> Any:
    """google-auth credentials for `opts` (not yet refreshed: no network). Raises ConfigError."""
    if opts.service_account_file is not None:
        from google.oauth2 import service_account

        try:
            info = json.loads(Path(opts.service_account_file).read_text())
            if opts.token_uri:
                info["token_uri"] = opts.token_uri
            return service_account.Credentials.from_service_account_info(
                info, scopes=[DRIVE_SCOPE], subject=opts.subject
            )
        except (OSError, ValueError, KeyError) as err:
            raise ConfigError(f"gdrive: service_account_file is not a usable key file: {err}") from None
    from google.oauth2.credentials import Credentials

    return Credentials(
        token=None, refresh_token=opts.refresh_token, token_uri=opts.token_uri or GOOGLE_TOKEN_URI,
        client_id=opts.client_id, client_secret=opts.client_secret,
    )


def authorized_http(opts: GDriveOptions, credentials: Any) -> Any:
    """An httplib2 transport trusting `ca_bundle`, authorising and refreshing with `credentials`."""
    import google_auth_httplib2
    import httplib2

    http = httplib2.Http(ca_certs=opts.ca_bundle, timeout=int(opts.timeout))
    return google_auth_httplib2.AuthorizedHttp(credentials, http=http)


# ------------------------------------------------------------------ connect: loopback redirect


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


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
    verifier = _b64url(secrets.token_bytes(48))
    state = secrets.token_urlsafe(24)
    server: HTTPServer | None = None
    if opts.headless:
        redirect_uri = "http://127.0.0.1:1/"
    else:
        server = HTTPServer(("127.0.0.1", 0), _Catcher)
        server.query = None  # type: ignore[attr-defined]
        redirect_uri = f"http://127.0.0.1:{server.server_port}/"
    url = opts.auth_uri + "?" + urlencode({
        "client_id": opts.client_id, "redirect_uri": redirect_uri, "response_type": "code",
        "scope": DRIVE_SCOPE, "state": state, "access_type": "offline", "prompt": "consent",
        "code_challenge": _b64url(hashlib.sha256(verifier.encode()).digest()),
        "code_challenge_method": "S256",
    })
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
    if query.get("state", [""])[0] != state:
        raise AuthError("gdrive connect: the redirect's state does not match; start again")
    if "error" in query:
        raise AuthError(f"gdrive connect: Google answered {query['error'][0]}")
    code = query.get("code", [""])[0]
    if not code:
        raise AuthError("gdrive connect: the redirect carried no authorisation code")
    return _exchange_code(opts, code, redirect_uri, verifier)


def _wait_for_redirect(server: HTTPServer, timeout: float) -> dict[str, list[str]]:
    deadline = time.monotonic() + timeout
    server.timeout = 0.5
    while time.monotonic() < deadline:
        server.handle_request()
        query = server.query  # type: ignore[attr-defined]
        if query is not None:
            return dict(query)
    raise AuthError(f"gdrive connect: no answer from the browser within {timeout:.0f}s")


def _exchange_code(opts: GDriveOptions, code: str, redirect_uri: str, verifier: str) -> str:
    import httpx

    try:
        resp = httpx.post(
            opts.token_uri or GOOGLE_TOKEN_URI,
            data={"code": code, "client_id": opts.client_id, "client_secret": opts.client_secret,
                  "redirect_uri": redirect_uri, "grant_type": "authorization_code",
                  "code_verifier": verifier},
            verify=opts.ca_bundle or True, timeout=opts.timeout,
        )
    except httpx.HTTPError as err:
        raise TransientError(f"gdrive connect: token endpoint unreachable ({type(err).__name__})") from None
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if resp.status_code != 200:
        if resp.status_code >= 500 or resp.status_code == 429:
            raise TransientError(f"gdrive connect: token endpoint answered {resp.status_code}")
        raise AuthError(f"gdrive connect: Google refused the code: {body.get('error', resp.status_code)}")
    token = body.get("refresh_token")
    if not isinstance(token, str) or not token:
        raise ConnectorError(
            "gdrive connect: Google returned no refresh token; remove renamerd's access at "
            "https://myaccount.google.com/permissions and connect again"
        )
    return token
