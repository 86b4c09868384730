"""A Python client for the v1 API (httpx), following the description's retry rules.

* 429: wait `Retry-After` seconds, else until `X-RateLimit-Reset` (Unix ms); a repeated 429
  waits at least 1, 2, 4, ... s (exponential backoff), up to `max_rate_limit_retries` times.
* 500 and 502 (and 503/504, and connections that fail): retry after 1, 2, 4, 8, 16 s, then give up.
* Any other 4xx: raised at once, never retried.
* Both rename calls send an `Idempotency-Key` (one per logical call, the same on every retry), so
  a retry after a lost answer replays the first result and costs no second credit.

    with RenamerdClient("https://renamerd.example", "rt_...") as client:
        client.credits()                       # {"credits": 49}
        client.rename("scan.pdf", strategy="by_date", language="de")
        client.rename("notes.pdf", below_confidence="keep", confidence_threshold=0.6)

`rename_files(server, token, paths, options)` renames several files and returns one dict per file
(the result, or the error); `renamerd rename --server URL --token T FILE...` uses it.
"""

from __future__ import annotations

import mimetypes
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import httpx

BACKOFF_5XX: tuple[float, ...] = (1, 2, 4, 8, 16)
RETRY_STATUSES = frozenset({500, 502, 503, 504})
#: longest single wait on a 429, whatever the server says
MAX_RATE_LIMIT_WAIT_S = 3600.0
_OPTION_NAMES = {
    "strategy": "strategy", "template_mode": "templateMode", "templateMode": "templateMode",
    "custom_template": "customTemplate", "customTemplate": "customTemplate",
    "template_id": "templateId", "templateId": "templateId", "language": "language",
    "below_confidence": "belowConfidence", "belowConfidence": "belowConfidence",
    "confidence_threshold": "confidenceThreshold", "confidenceThreshold": "confidenceThreshold",
}


class ClientError(Exception):
    """An error answer of the API (after the retries it allows), or the server unreachable."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(f"{status}: {message}" if status else message)
        self.status = status
        self.message = message
        self.code = code


def api_options(options: Any) -> dict[str, str]:
    """Form fields from RenameOptions, a dataclass, or a mapping with either naming style.
    None values are left out (the server's defaults apply)."""
    if options is None:
        return {}
    if is_dataclass(options) and not isinstance(options, type):
        options = asdict(options)
    if not isinstance(options, Mapping):
        raise TypeError("options must be a mapping or RenameOptions")
    fields: dict[str, str] = {}
    for name, value in options.items():
        if value is None:
            continue
        if name not in _OPTION_NAMES:
            raise ValueError(f"unknown rename option {name!r}")
        fields[_OPTION_NAMES[name]] = str(value)
    return fields


class RenamerdClient:
    """v1 API client. `transport`, `sleep` and `clock` are injectable (tests). Thread-unsafe."""

    def __init__(
        self, server: str, token: str, *, timeout: float = 120.0, verify: Any = True,
        transport: httpx.BaseTransport | None = None, sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time, max_rate_limit_retries: int = 6,
    ) -> None:
        self.http = httpx.Client(
            base_url=server.rstrip("/"), timeout=timeout, verify=verify, transport=transport,
            headers={"Authorization": f"Bearer {token}", "User-Agent": "renamerd-client/1"},
        )
        self.sleep = sleep
        self.clock = clock
        self.max_rate_limit_retries = max_rate_limit_retries
        #: waits done so far, in seconds (for tests and progress output)
        self.waits: list[float] = []

    def __enter__(self) -> RenamerdClient:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # -- endpoints -------------------------------------------------------------------------

    def user(self) -> dict[str, Any]:
        """GET /api/v1/user. Raises ClientError."""
        return self._call("GET", "/api/v1/user")  # type: ignore[no-any-return]

    def credits(self) -> dict[str, Any]:
        """GET /api/v1/credits. Raises ClientError."""
        return self._call("GET", "/api/v1/credits")  # type: ignore[no-any-return]

    def team(self) -> dict[str, Any] | None:
        """GET /api/v1/team: the team, or None when the user is in no team."""
        return self._call("GET", "/api/v1/team")  # type: ignore[no-any-return]

    def rename(
        self, document: str | os.PathLike[str] | bytes, filename: str | None = None, *,
        options: Any = None, idempotency_key: str | None = None, **fields: str | float,
    ) -> dict[str, Any]:
        """POST /api/v1/rename with a file path or bytes (then give `filename`).

        Options as `options=` (RenameOptions or mapping) and/or keyword fields
        (`strategy="by_date"`). Raises ClientError. Safe to repeat with the same key.
        """
        if isinstance(document, bytes):
            data, name = document, filename or "document"
        else:
            path = Path(document)
            data, name = path.read_bytes(), filename or path.name
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        form = {**api_options(options), **api_options(fields)}
        key = idempotency_key or uuid.uuid4().hex
        return self._call(  # type: ignore[no-any-return]
            "POST", "/api/v1/rename", files={"file": (name, data, ctype)}, data=form,
            headers={"Idempotency-Key": key},
        )

    def rename_from_url(
        self, url: str, *, options: Any = None, idempotency_key: str | None = None,
        **fields: str | float,
    ) -> dict[str, Any]:
        """POST /api/v1/rename-from-url. Raises ClientError. Safe to repeat with the same key."""
        body: dict[str, Any] = {"url": url, **api_options(options), **api_options(fields)}
        key = idempotency_key or uuid.uuid4().hex
        return self._call(  # type: ignore[no-any-return]
            "POST", "/api/v1/rename-from-url", json=body, headers={"Idempotency-Key": key}
        )

    # -- the retry loop --------------------------------------------------------------------

    def _rate_limit_wait(self, response: httpx.Response, attempt: int) -> float:
        wait = 0.0
        retry_after = response.headers.get("retry-after", "")
        reset = response.headers.get("x-ratelimit-reset", "")
        try:
            wait = float(retry_after)
        except ValueError:
            try:
                wait = float(reset) / 1000 - self.clock()
            except ValueError:
                wait = 1.0
        if attempt > 0:  # repeated 429s: exponential backoff on top of what the server said
            wait = max(wait, float(2 ** (attempt - 1)))
        return min(max(wait, 0.0), MAX_RATE_LIMIT_WAIT_S)

    def _wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.sleep(seconds)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        server_failures = 0
        rate_limited = 0
        while True:
            try:
                response = self.http.request(method, path, **kwargs)
            except httpx.TransportError as err:
                if server_failures >= len(BACKOFF_5XX):
                    raise ClientError(0, f"cannot reach the server: {type(err).__name__}") from err
                self._wait(BACKOFF_5XX[server_failures])
                server_failures += 1
                continue
            status = response.status_code
            if status < 400:
                return response.json()
            if status == 429 and rate_limited < self.max_rate_limit_retries:
                self._wait(self._rate_limit_wait(response, rate_limited))
                rate_limited += 1
                continue
            if status in RETRY_STATUSES and server_failures < len(BACKOFF_5XX):
                self._wait(BACKOFF_5XX[server_failures])
                server_failures += 1
                continue
            raise _error(response)


def _error(response: httpx.Response) -> ClientError:
    try:
        body = response.json()
        message, code = str(body.get("error", "")), body.get("code")
    except (ValueError, AttributeError):
        message, code = response.text[:200], None
    return ClientError(response.status_code, message or response.reason_phrase, code)


def rename_files(
    server: str, token: str, paths: Iterable[str | os.PathLike[str]], options: Any = None,
    *, client: RenamerdClient | None = None,
) -> list[dict[str, Any]]:
    """Rename each file through the API at `server`.

    Returns one dict per path, in order: the API's rename result plus `"path"`, or
    `{"path", "originalFilename", "error", "status", "code"}` when that file failed (the other
    files still go). Each file gets its own idempotency key, reused across its retries.
    """
    own = client is None
    api = client or RenamerdClient(server, token)
    results: list[dict[str, Any]] = []
    try:
        for p in paths:
            path = Path(p)
            try:
                result = api.rename(path, options=options)
                results.append({"path": str(path), **result})
            except (ClientError, OSError) as err:
                status = err.status if isinstance(err, ClientError) else 0
                code = err.code if isinstance(err, ClientError) else None
                message = err.message if isinstance(err, ClientError) else str(err)
                results.append({
                    "path": str(path), "originalFilename": path.name, "error": message,
                    "status": status, "code": code,
                })
    finally:
        if own:
            api.close()
    return results
