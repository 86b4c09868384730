"""Microsoft identity platform for the OneDrive connector: msal over httpx, and refresh-token
upkeep (`GraphTokens`).

The OAuth endpoints are the authority's (`options.authority_url`: login.microsoftonline.com
and the tenant, unless the `authority` option moves it): msal fetches
``{authority}/v2.0/.well-known/openid-configuration`` once per application object (tenant
discovery) and then talks to the authorize and token endpoints it names. Instance discovery is
off, so a custom authority (national cloud, proxy, emulator) works without asking
login.microsoftonline.com. The terminal sign-in of `renamerd connect` is in `connect.py`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from renamerd.connectors import AuthError, TransientError

log = logging.getLogger(__name__)

#: token-endpoint errors no retry will cure: a person must reconnect (or fix the app)
AUTH_ERRORS = frozenset({"invalid_grant", "interaction_required", "invalid_client",
                         "unauthorized_client", "consent_required", "invalid_scope",
                         "unsupported_grant_type"})


class MsalHttp:
    """The http_client msal asks for, over httpx: msal's default (requests) lets the
    REQUESTS_CA_BUNDLE environment variable override `verify`, so `ca_bundle` would be ignored."""

    def __init__(self, verify: str | bool, timeout: float) -> None:
        self._client = httpx.Client(verify=verify, timeout=timeout, follow_redirects=False)

    def post(self, url: str, params: Any = None, data: Any = None, headers: Any = None,
             **kwargs: Any) -> httpx.Response:
        if isinstance(data, str | bytes):
            return self._client.post(url, params=params, content=data, headers=headers)
        return self._client.post(url, params=params, data=data, headers=headers)

    def get(self, url: str, params: Any = None, headers: Any = None, **kwargs: Any) -> httpx.Response:
        return self._client.get(url, params=params, headers=headers)

    def close(self) -> None:
        self._client.close()


def msal_application(client_id: str, client_secret: str | None, *, authority: str,
                     verify: str | bool, timeout: float) -> Any:
    """An msal application for `authority`: confidential with a secret, else public.

    Tenant discovery happens here (a network call). Raises ValueError when the authority
    refuses it (msal puts the HTTP status in the message), httpx.HTTPError or OSError when it
    cannot be reached.
    """
    import msal

    kwargs: dict[str, Any] = {"authority": authority, "instance_discovery": False,
                              "validate_authority": False, "http_client": MsalHttp(verify, timeout)}
    if client_secret:
        return msal.ConfidentialClientApplication(client_id, client_credential=client_secret,
                                                  **kwargs)
    return msal.PublicClientApplication(client_id, **kwargs)


def reconnect_hint(name: str) -> str:
    return f"reconnect with `renamerd connect onedrive --connection {name}`"


class GraphTokens:
    """Access tokens for one connection, from its refresh token (msal).

    `token()` returns a valid access token, refreshing it shortly before it expires (a quarter of
    its lifetime, at most 5 minutes early); `invalidate()` forces the next call to refresh (after
    Graph answered 401). Microsoft rotates the refresh token on every refresh: the newest is kept
    and handed to `on_rotated` when set. Not for concurrent use.
    """

    def __init__(self, *, name: str, client_id: str, client_secret: str | None, refresh_token: str,
                 authority: str, verify: str | bool, timeout: float, scopes: list[str]) -> None:
        self.name = name
        self.on_rotated: Callable[[str], None] | None = None
        self._client_id, self._client_secret = client_id, client_secret
        self._refresh_token = refresh_token
        self._authority, self._verify, self._timeout = authority, verify, timeout
        self._scopes = scopes
        self._lock = threading.Lock()
        self._app: Any = None
        self._access: str | None = None
        self._until = 0.0

    def _application(self) -> Any:
        """The msal application (created on first use: tenant discovery is a network call)."""
        if self._app is None:
            try:
                self._app = msal_application(self._client_id, self._client_secret,
                                             authority=self._authority, verify=self._verify,
                                             timeout=self._timeout)
            except ValueError as err:  # tenant discovery failed: status in the message
                text = str(err)
                if "HTTP status: 5" in text or "HTTP status: 429" in text:
                    raise TransientError(f"onedrive {self.name}: sign-in service unavailable") from err
                raise AuthError(f"onedrive connection {self.name!r}: the sign-in service refused "
                                f"authority {self._authority}; check tenant and authority") from err
            except (httpx.HTTPError, OSError) as err:
                raise TransientError(f"onedrive {self.name}: cannot reach the sign-in service "
                                     f"({type(err).__name__})") from err
        return self._app

    def token(self) -> str:
        """A valid access token. Raises AuthError (refresh token refused: a person must
        reconnect) or TransientError (sign-in service trouble; retry later). Safe to repeat."""
        with self._lock:
            if self._access and time.monotonic() < self._until:
                return self._access
            from msal.exceptions import MsalServiceError

            app = self._application()
            try:
                result = app.acquire_token_by_refresh_token(self._refresh_token, scopes=self._scopes)
            except (httpx.HTTPError, OSError, ValueError, MsalServiceError) as err:
                raise TransientError(f"onedrive {self.name}: token refresh failed "
                                     f"({type(err).__name__})") from err
            if "access_token" in result:
                self._access = str(result["access_token"])
                lifetime = float(result.get("expires_in", 3600))
                self._until = time.monotonic() + lifetime - min(300.0, lifetime / 4)
                self._rotated(result.get("refresh_token"))
                return self._access
            error = result.get("error")
            code = str(result.get("error_description", "")).split(":", 1)[0][:20]
            if isinstance(error, str) and error in AUTH_ERRORS:
                raise AuthError(f"onedrive connection {self.name!r}: Microsoft refused the refresh "
                                f"token ({error} {code}); {reconnect_hint(self.name)}")
            raise TransientError(f"onedrive {self.name}: token endpoint said {error!r} {code}")

    def _rotated(self, token: Any) -> None:
        if not token or token == self._refresh_token:
            return
        self._refresh_token = str(token)
        if self.on_rotated is not None:
            try:
                self.on_rotated(self._refresh_token)
            except Exception:  # storing is best effort; the token in memory still works
                log.warning("onedrive %s: could not store the rotated refresh token", self.name,
                            exc_info=True)

    def invalidate(self) -> None:
        """Forget the access token (Graph said 401); the next `token()` refreshes."""
        with self._lock:
            self._access = None

    def close(self) -> None:
        """Close msal's HTTP client. Safe to call twice."""
        if self._app is not None:
            self._app.http_client.close()
        self._app = None
