"""Dropbox's errors mapped to the connector protocol's.

The SDK raises `ApiError` for a route's own errors (a Stone union such as
RelocationError('to', WriteError('conflict', ...))), and `RateLimitError`, `InternalServerError`,
`AuthError`, `BadInputError` or `HttpError` for the HTTP status; requests raises its own errors for
the network. Mapping:

- 429 (`too_many_requests`, `too_many_write_operations`), 5xx, 408/425, network errors, an
  unreadable answer, and the route errors `too_many_write_operations` / `internal_error`:
  `TransientError` (with Dropbox's `retry_after`), retried by the Pacer;
- route error `conflict`: `Conflict`; `not_found`, `not_file`, `not_folder`: `NotFound`;
- route error `reset` (the list_folder cursor was invalidated): `Reset`, handled by the feed;
- `invalid_client` (a 400 from the token endpoint) and a refused refresh token: `AuthError`
  (see `DropboxApi.call` for the one renewed attempt after `invalid_access_token`);
- TLS verification failures: `ConnectorError` (a retry cannot cure them).
"""

from __future__ import annotations

from typing import Any

import requests
from dropbox import exceptions as dbx_errors
from stone.backends.python_rsrc import stone_base, stone_validators

from renamerd.connectors import AuthError, Conflict, ConnectorError, NotFound, TransientError


class Reset(ConnectorError):
    """Dropbox invalidated the cursor (`reset`): list the folder again."""


#: SDK and transport errors `sdk_error` maps (`dbx_errors.AuthError` is handled by the caller)
SDK_ERRORS = (
    dbx_errors.ApiError, dbx_errors.HttpError, requests.RequestException,
    stone_validators.ValidationError,
)


def tags(error: Any) -> list[str]:
    """The tag path of a Stone union error: RelocationError('to', WriteError('conflict', ...))
    gives ["to", "conflict", ...]."""
    path: list[str] = []
    while isinstance(error, stone_base.Union):
        path.append(error._tag)
        error = error._value
    return path


def refused(connection: str, reason: str) -> AuthError:
    """The AuthError telling a person to reconnect `connection`."""
    return AuthError(
        f"Dropbox refused the credentials of connection {connection!r} ({reason}); "
        f"reconnect with: renamerd connect dropbox --connection {connection}"
    )


def route_error(what: str, error: Any) -> ConnectorError:
    """The connector error for a route's own error (the `error` of an `ApiError`)."""
    path = tags(error)
    summary = "/".join(path) or repr(error)
    if "reset" in path:
        return Reset(f"{what}: cursor reset by Dropbox")
    if "too_many_write_operations" in path or "internal_error" in path:
        return TransientError(f"{what}: Dropbox is busy ({summary})")
    if "conflict" in path:
        return Conflict(f"{what}: the name is taken ({summary})")
    if {"not_found", "not_file", "not_folder"} & set(path):
        return NotFound(f"{what}: not found ({summary})")
    return ConnectorError(f"{what}: Dropbox refused ({summary})")


def sdk_error(what: str, err: Exception, connection: str) -> ConnectorError:
    """The connector error for one of `SDK_ERRORS` raised by the call `what`."""
    if isinstance(err, dbx_errors.ApiError):
        return route_error(what, err.error)
    if isinstance(err, dbx_errors.RateLimitError):
        reason = tags(getattr(err.error, "reason", None)) or ["too_many_requests"]
        return TransientError(
            f"{what}: Dropbox throttled the call ({reason[0]})", retry_after=err.backoff
        )
    if isinstance(err, dbx_errors.InternalServerError):
        return TransientError(f"{what}: Dropbox server error {err.status_code}")
    if isinstance(err, dbx_errors.BadInputError):
        message = str(err.message or "")
        if "invalid_client" in message:
            return refused(connection, "invalid_client: check app_key and app_secret")
        return ConnectorError(f"{what}: Dropbox rejected the request: {message[:300]}")
    if isinstance(err, dbx_errors.HttpError):
        if err.status_code in (408, 425):
            return TransientError(f"{what}: HTTP {err.status_code}")
        return ConnectorError(f"{what}: Dropbox answered HTTP {err.status_code}")
    if isinstance(err, requests.exceptions.SSLError):
        return ConnectorError(f"{what}: TLS verification failed ({err})")
    if isinstance(err, requests.RequestException):
        return TransientError(f"{what}: network error ({type(err).__name__})")
    return TransientError(f"{what}: unreadable answer from Dropbox ({err})")
