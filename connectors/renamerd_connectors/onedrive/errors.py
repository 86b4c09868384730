"""Graph's answers mapped to the connector protocol's errors.

- 429, 503, 509, other 5xx, and 423 (locked): `TransientError`, honouring Retry-After;
- 404: `NotFound`; 409 (a name clash, with conflictBehavior=fail): `Conflict`;
- 410 Gone to a delta link: `Resync` (the feed restarts the enumeration);
- 401 after one refresh of the access token: `AuthError` (see `graph.GraphClient`);
- anything else 4xx: `ConnectorError` with Graph's error code and message.
"""

from __future__ import annotations

import httpx

from renamerd.connectors import AuthError, Conflict, ConnectorError, NotFound, TransientError

from .auth import reconnect_hint


class Resync(Exception):
    """Graph answered 410 Gone to a delta token."""


def graph_error(resp: httpx.Response) -> tuple[str, str]:
    """(code, message) of Graph's error body; ("unknown", reason) when it has none."""
    try:
        err = resp.json().get("error", {})
    except (ValueError, AttributeError):
        return "unknown", resp.reason_phrase
    if isinstance(err, dict):
        return str(err.get("code", "unknown")), str(err.get("message", ""))[:200]
    return str(err), ""


def retry_after(resp: httpx.Response) -> float | None:
    """The Retry-After header in seconds, if there is a readable one."""
    value = resp.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def raise_for(resp: httpx.Response, name: str) -> None:
    """Raise the connector error an error status calls for; return for 1xx-3xx."""
    status = resp.status_code
    if status < 400:
        return
    code, message = graph_error(resp)
    what = f"onedrive {name}: {status} {code}: {message}"
    if status in (429, 503, 509) or status >= 500 or status == 423:
        raise TransientError(what, retry_after=retry_after(resp))
    if status == 404:
        raise NotFound(what)
    if status == 409:
        raise Conflict(what)
    if status == 410:
        raise Resync(what)
    if status == 401:
        raise AuthError(f"onedrive connection {name!r}: {code}; {reconnect_hint(name)}")
    raise ConnectorError(what)
