"""Google's OAuth endpoints and credentials for the Drive connector.

Credentials are google-auth objects: a user's refresh token (`google.oauth2.credentials`) or a
service account key file (`google.oauth2.service_account`, JWT bearer grant), both refreshed by
`google_auth_httplib2.AuthorizedHttp` before expiry and after a 401 (the token refresh is
google-auth's). The consent flow of `renamerd connect gdrive` (`connect.py`) is the installed-app
flow with PKCE: `authorization_url` for the consent page, `exchange_code` at the token endpoint.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from renamerd.connectors import AuthError, ConfigError, ConnectorError, TransientError

from .options import GDriveOptions

DRIVE_SCOPE = "https://www.googleapis.com/auth/drive"
GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"  # noqa: S105 - an address


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


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_verifier() -> str:
    """A fresh PKCE code verifier (kept by the client until the code exchange)."""
    return _b64url(secrets.token_bytes(48))


def authorization_url(opts: GDriveOptions, *, redirect_uri: str, state: str, verifier: str) -> str:
    """Google's consent page for full Drive access, asking for a refresh token (offline access,
    consent prompt) and bound to `verifier` by its S256 challenge. Pure."""
    return opts.auth_uri + "?" + urlencode({
        "client_id": opts.client_id, "redirect_uri": redirect_uri, "response_type": "code",
        "scope": DRIVE_SCOPE, "state": state, "access_type": "offline", "prompt": "consent",
        "code_challenge": _b64url(hashlib.sha256(verifier.encode()).digest()),
        "code_challenge_method": "S256",
    })


def code_from_redirect(query: Mapping[str, list[str]], state: str) -> str:
    """The authorisation code of the redirect's query, after checking its `state`.

    Raises AuthError when the state does not match (start again), when Google answered an
    error (the person refused), or when there is no code.
    """
    if query.get("state", [""])[0] != state:
        raise AuthError("gdrive connect: the redirect's state does not match; start again")
    if "error" in query:
        raise AuthError(f"gdrive connect: Google answered {query['error'][0]}")
    code = query.get("code", [""])[0]
    if not code:
        raise AuthError("gdrive connect: the redirect carried no authorisation code")
    return code


def exchange_code(opts: GDriveOptions, code: str, redirect_uri: str, verifier: str) -> str:
    """Trade an authorisation code for the refresh token at the token endpoint.

    Raises AuthError (Google refused the code), TransientError (token endpoint unreachable,
    5xx, 429), ConnectorError (no refresh token: the account had already granted access). Each
    code works once.
    """
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
