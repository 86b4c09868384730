"""The webhook: each notification POSTed as JSON to `[notify] webhook_url`, signed.

Headers: `X-Renamerd-Timestamp` (Unix seconds) and `X-Renamerd-Signature: sha256=<hex>`, the
HMAC-SHA256 with `webhook_secret` of the timestamp, a dot and the exact body bytes; a receiver
recomputes it and refuses old timestamps (replays). `X-Renamerd-Delivery` stays the same across
the retries of one delivery. The address is checked like `rename-from-url`'s (no private, loopback
or metadata address unless in `webhook_allow_networks`) and the connection pinned to the address
checked; redirects are not followed.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpcore
import httpx

from renamerd.config import NotifySettings
from renamerd.connectors import ConfigError, resolve_secret
from renamerd.service.egress import BlockedDestination, PinnedBackend, Resolver, checked_address
from renamerd.service.notify.retry import PermanentFailure, TransientFailure, with_retries

USER_AGENT = "renamerd-notify/1"
#: answers worth trying again
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Renamerd-Signature value of `body` sent at `timestamp`."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def deliver(settings: NotifySettings, payload: dict[str, Any], *,
            resolver: Resolver | None = None, sleep: Callable[[float], None] = time.sleep,
            clock: Callable[[], float] = time.time) -> None:
    """POST `payload` to the webhook, retried with backoff on connection trouble and on
    408/429/5xx answers. Raises PermanentFailure (blocked address, other 4xx, no secret) or
    TransientFailure (still failing after `settings.retries`)."""
    secret = _secret(settings)
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    delivery = str(payload.get("id") or uuid.uuid4())

    def attempt() -> None:
        stamp = str(int(clock()))
        headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
                   "X-Renamerd-Event": str(payload.get("event", "")),
                   "X-Renamerd-Delivery": delivery, "X-Renamerd-Timestamp": stamp,
                   "X-Renamerd-Signature": sign(secret, stamp, body)}
        _post_once(settings, body, headers, resolver)

    with_retries(attempt, retries=settings.retries, backoff_s=settings.retry_backoff_s,
                 what="webhook", sleep=sleep)


def _post_once(settings: NotifySettings, body: bytes, headers: dict[str, str],
               resolver: Resolver | None) -> None:
    allow = [ipaddress.ip_network(n, strict=False) for n in settings.webhook_allow_networks]
    try:
        address = checked_address(settings.webhook_url, allow, resolver)
    except BlockedDestination as err:
        raise PermanentFailure(f"webhook_url blocked: {err}") from err
    transport = httpx.HTTPTransport(retries=0, trust_env=False)
    # pin the connection to the checked address (httpx has no public hook for this)
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(), max_connections=1,
        network_backend=PinnedBackend(address))
    try:
        with httpx.Client(transport=transport, timeout=settings.timeout_s, trust_env=False,
                          follow_redirects=False) as client:
            response = client.post(settings.webhook_url, content=body, headers=headers)
    except httpx.HTTPError as err:
        raise TransientFailure(f"{type(err).__name__}: {err}") from err
    if response.status_code in _RETRY_STATUS:
        raise TransientFailure(f"the receiver answered HTTP {response.status_code}")
    if not 200 <= response.status_code < 300:
        raise PermanentFailure(f"the receiver answered HTTP {response.status_code}")


def _secret(settings: NotifySettings) -> str:
    try:
        secret = str(resolve_secret(settings.webhook_secret, key="notify.webhook_secret"))
    except ConfigError as err:
        raise PermanentFailure(str(err)) from err
    if not secret:
        raise PermanentFailure("notify.webhook_secret is empty")
    return secret


def check_webhook_address(settings: NotifySettings, resolver: Resolver | None = None
                          ) -> str | None:
    """Why the webhook cannot be used (its address blocked or unresolvable, no secret), or
    None. Sends nothing."""
    allow = [ipaddress.ip_network(n, strict=False) for n in settings.webhook_allow_networks]
    try:
        _secret(settings)
        checked_address(settings.webhook_url, allow, resolver)
    except (BlockedDestination, PermanentFailure) as err:
        return f"{settings.webhook_url}: {err} (private addresses need " \
               "notify.webhook_allow_networks)"
    return None
