"""Microsoft identity platform for the OneDrive connector: msal over httpx, refresh-token
upkeep, and the device-code sign-in used by `renamerd connect onedrive`.

msal fetches ``{authority}/v2.0/.well-known/openid-configuration`` once per application object
(tenant discovery) and then talks to the token endpoint it names. Instance discovery is off, so a
custom authority (national cloud, proxy, emulator) works without asking login.microsoftonline.com.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from renamerd.connectors import AuthError, ConfigError, TransientError

log = logging.getLogger(__name__)

LOGIN_ENDPOINT = "https://login.microsoftonline.com"
DEFAULT_SCOPES = ("Files.ReadWrite.All",)
#: token-endpoint errors no retry will cure: a person must reconnect (or fix the app)
AUTH_ERRORS = frozenset({"invalid_grant", "interaction_required", "invalid_client",
                         "unauthorized_client", "consent_required", "invalid_scope",
                         "unsupported_grant_type"})


def text_option(options: dict[str, Any], key: str, name: str, *, required: bool = False) -> str:
    """A string option ("" when absent). Raises ConfigError when required and missing, or when
    the value is not a string."""
    value = options.get(key)
    if value is None or value == "":
        if required:
            raise ConfigError(f"onedrive connection {name!r}: option {key} is required")
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"onedrive connection {name!r}: option {key} must be a string")
    return value


def scopes_option(options: dict[str, Any], name: str) -> list[str]:
    """`scopes` as a list (a space-separated string is split). Raises ConfigError."""
    scopes = options.get("scopes", list(DEFAULT_SCOPES))
    if isinstance(scopes, str):
        scopes = scopes.split()
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
        raise ConfigError(f"onedrive connection {name!r}: scopes must be a list of strings")
    return scopes


def authority_url(options: dict[str, Any], name: str) -> str:
    """`authority` as given when it names a tenant, else ``{authority or login}/{tenant}``."""
    tenant = text_option(options, "tenant", name) or "common"
    authority = (text_option(options, "authority", name) or LOGIN_ENDPOINT).rstrip("/")
    parts = urlsplit(authority)
    if parts.scheme != "https" or not parts.netloc:
        raise ConfigError(f"onedrive connection {name!r}: authority must be an https URL")
    return authority if parts.path.strip("/") else f"{authority}/{quote(tenant, safe='')}"


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


def _reconnect(name: str) -> str:
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
            import msal

            kwargs: dict[str, Any] = {"authority": self._authority, "instance_discovery": False,
                                      "validate_authority": False,
                                      "http_client": MsalHttp(self._verify, self._timeout)}
            try:
                if self._client_secret:
                    self._app = msal.ConfidentialClientApplication(
                        self._client_id, client_credential=self._client_secret, **kwargs)
                else:
                    self._app = msal.PublicClientApplication(self._client_id, **kwargs)
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
                                f"token ({error} {code}); {_reconnect(self.name)}")
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


def device_code_flow(options: dict[str, Any], *, echo: Callable[[str], None]) -> str:
    """Device-code sign-in: print the address and code, wait for the person, return the refresh
    token. Raises AuthError when sign-in is refused or the code expires."""
    import msal

    name = "new connection"
    client_id = text_option(options, "client_id", name, required=True)
    verify: str | bool = text_option(options, "ca_bundle", name) or True
    if text_option(options, "client_secret", name):
        echo("Note: the device-code sign-in uses the app as a public client "
             "(enable 'Allow public client flows' in its registration).")
    try:
        app = msal.PublicClientApplication(client_id, authority=authority_url(options, name),
                                           instance_discovery=False, validate_authority=False,
                                           http_client=MsalHttp(verify, 60.0))
        flow = app.initiate_device_flow(scopes=scopes_option(options, name))
    except (ValueError, httpx.HTTPError) as err:
        raise AuthError(f"onedrive: cannot start the device sign-in ({err})") from err
    try:
        if "user_code" not in flow:
            raise AuthError(f"onedrive: device sign-in refused: {flow.get('error')} "
                            f"{str(flow.get('error_description', ''))[:120]}")
        echo(f"To connect OneDrive, open {flow['verification_uri']} and enter the code "
             f"{flow['user_code']}")
        echo("Waiting for you to finish signing in...")
        result = app.acquire_token_by_device_flow(flow)
        if "refresh_token" not in result:
            raise AuthError(f"onedrive: sign-in did not complete: {result.get('error')} "
                            f"{str(result.get('error_description', ''))[:120]}")
        echo("Signed in.")
        return str(result["refresh_token"])
    finally:
        app.http_client.close()
