"""Connecting a drive through the browser: each provider's OAuth authorization-code flow with
PKCE and state, back to `{server.public_url}/connections/callback/{provider}`.

`start(provider, options, redirect_uri)` gives the consent page's address and what the callback
needs (state and PKCE verifier: kept server-side, in the user's session); `finish(...)` trades
the code for a refresh token. The options are the provider's `[providers.<name>]` with its
secret references resolved; the endpoint overrides (Google's `auth_uri`/`token_uri`, Dropbox's
`endpoint`, Microsoft's `authority` and `tenant`) move the consent page and the token endpoint
together, so the emulators of the tests stand in for the real services.

Google goes through the gdrive connector's own functions; Dropbox and Microsoft are plain
OAuth 2.0 requests (their SDKs only offer this flow for a terminal or a web framework's
session of their own). Codes work once: `finish` is not safe to repeat.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from renamerd.connectors import AuthError, ConfigError, TransientError, resolve_options

ONEDRIVE_SCOPES = "offline_access https://graph.microsoft.com/Files.ReadWrite.All"


@dataclass(frozen=True)
class Consent:
    """A started consent: where to send the person, and what the callback must match."""

    url: str
    state: str
    verifier: str


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(
        b"=").decode()


def start(provider: str, options: Mapping[str, Any], redirect_uri: str) -> Consent:
    """The consent page of `provider` for this app. Raises ConfigError (the provider's app
    settings are incomplete). No network I/O."""
    opts = resolve_options(options)
    state = secrets.token_urlsafe(24)
    verifier = secrets.token_urlsafe(48)
    if provider == "gdrive":
        from renamerd_connectors.gdrive.auth import authorization_url
        from renamerd_connectors.gdrive.options import GDriveOptions

        g = GDriveOptions.parse(opts, for_connect=True)
        url = authorization_url(g, redirect_uri=redirect_uri, state=state, verifier=verifier)
    elif provider == "dropbox":
        url = _dropbox_web(opts) + "/oauth2/authorize?" + urlencode({
            "client_id": _need(opts, "app_key", provider), "response_type": "code",
            "token_access_type": "offline", "redirect_uri": redirect_uri, "state": state,
            "code_challenge": _challenge(verifier), "code_challenge_method": "S256"})
    elif provider == "onedrive":
        url = _authority(opts) + "/oauth2/v2.0/authorize?" + urlencode({
            "client_id": _need(opts, "client_id", provider), "response_type": "code",
            "redirect_uri": redirect_uri, "response_mode": "query", "scope": ONEDRIVE_SCOPES,
            "state": state, "code_challenge": _challenge(verifier),
            "code_challenge_method": "S256", "prompt": "select_account"})
    else:
        raise ConfigError(f"{provider!r} cannot be connected through the browser")
    return Consent(url, state, verifier)


def finish(provider: str, options: Mapping[str, Any], redirect_uri: str, code: str,
           verifier: str) -> str:
    """The refresh token for the code the provider sent back. Raises AuthError (the provider
    refused the code), TransientError (unreachable, 5xx, 429), ConfigError."""
    opts = resolve_options(options)
    if provider == "gdrive":
        from renamerd_connectors.gdrive.auth import exchange_code
        from renamerd_connectors.gdrive.options import GDriveOptions

        return exchange_code(GDriveOptions.parse(opts, for_connect=True), code, redirect_uri,
                             verifier)
    if provider == "dropbox":
        url = _dropbox_api(opts) + "/oauth2/token"
        form = {"code": code, "grant_type": "authorization_code", "code_verifier": verifier,
                "client_id": _need(opts, "app_key", provider), "redirect_uri": redirect_uri}
        if opts.get("app_secret"):
            form["client_secret"] = str(opts["app_secret"])
    elif provider == "onedrive":
        url = _authority(opts) + "/oauth2/v2.0/token"
        form = {"code": code, "grant_type": "authorization_code", "code_verifier": verifier,
                "client_id": _need(opts, "client_id", provider), "redirect_uri": redirect_uri,
                "scope": ONEDRIVE_SCOPES}
        if opts.get("client_secret"):
            form["client_secret"] = str(opts["client_secret"])
    else:
        raise ConfigError(f"{provider!r} cannot be connected through the browser")
    return _token_request(provider, url, form, opts.get("ca_bundle") or True)


def _token_request(provider: str, url: str, form: dict[str, str], verify: Any) -> str:
    try:
        resp = httpx.post(url, data=form, verify=verify, timeout=30)
    except httpx.HTTPError as err:
        raise TransientError(f"{provider}: the token endpoint could not be reached "
                             f"({type(err).__name__})") from None
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if resp.status_code >= 500 or resp.status_code == 429:
        raise TransientError(f"{provider}: the token endpoint answered {resp.status_code}")
    if resp.status_code != 200:
        why = body.get("error_description") or body.get("error") or resp.status_code
        raise AuthError(f"{provider} refused the authorisation: {why}")
    token = body.get("refresh_token")
    if not isinstance(token, str) or not token:
        raise AuthError(f"{provider} returned no refresh token (offline access not granted)")
    return token


def _need(opts: Mapping[str, Any], key: str, provider: str) -> str:
    value = opts.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"[providers.{provider}] needs {key}")
    return value.strip()


def _dropbox_web(opts: Mapping[str, Any]) -> str:
    endpoint = opts.get("endpoint")
    return str(endpoint).rstrip("/") if endpoint else "https://www.dropbox.com"


def _dropbox_api(opts: Mapping[str, Any]) -> str:
    endpoint = opts.get("endpoint")
    return str(endpoint).rstrip("/") if endpoint else "https://api.dropboxapi.com"


def _authority(opts: Mapping[str, Any]) -> str:
    from renamerd_connectors.onedrive.options import authority_url

    return authority_url(dict(opts), "web").rstrip("/")


def revoke(provider: str, options: Mapping[str, Any], refresh_token: str) -> bool:
    """Ask the provider to revoke `refresh_token` (a connection deleted, an account deleted).
    Returns True when it did; False where the provider offers no revocation of one token
    (Microsoft: the person removes the app in their account's settings). Raises AuthError (the
    token was already invalid), TransientError, ConfigError. Safe to repeat (then AuthError)."""
    opts = resolve_options(options)
    verify = opts.get("ca_bundle") or True
    try:
        if provider == "gdrive":
            token_uri = str(opts.get("token_uri") or "https://oauth2.googleapis.com/token")
            resp = httpx.post(token_uri.rsplit("/", 1)[0] + "/revoke",
                              data={"token": refresh_token}, verify=verify, timeout=30)
        elif provider == "dropbox":
            form = {"grant_type": "refresh_token", "refresh_token": refresh_token,
                    "client_id": _need(opts, "app_key", provider)}
            if opts.get("app_secret"):
                form["client_secret"] = str(opts["app_secret"])
            got = httpx.post(_dropbox_api(opts) + "/oauth2/token", data=form, verify=verify,
                             timeout=30)
            if got.status_code != 200:
                raise AuthError(f"dropbox: the token was not accepted ({got.status_code})")
            access = got.json().get("access_token", "")
            resp = httpx.post(_dropbox_api(opts) + "/2/auth/token/revoke", verify=verify,
                              headers={"Authorization": f"Bearer {access}"}, timeout=30)
        else:
            return False
    except httpx.HTTPError as err:
        raise TransientError(f"{provider}: revocation failed ({type(err).__name__})") from None
    if resp.status_code >= 500 or resp.status_code == 429:
        raise TransientError(f"{provider}: revocation answered {resp.status_code}")
    if resp.status_code != 200:
        raise AuthError(f"{provider}: the token was not revoked ({resp.status_code})")
    return True
