"""Drive v3 calls through google-api-python-client, with Drive's errors mapped to ours.

`DriveApi.run(make)` builds one request from the (lazily built, static-discovery) service, runs
it once and maps failures; the connection's `Pacer` retries the transient ones. The client's own
retry loop is off (`num_retries=0`) so that every retry is paced and counted in one place.
"""

from __future__ import annotations

import contextlib
import json
import logging
import ssl
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

from renamerd.connectors import (
    AuthError,
    ConnectorError,
    NotFound,
    Pacer,
    TooLarge,
    TransientError,
)

from .auth import authorized_http, build_credentials
from .options import GDriveOptions

log = logging.getLogger(__name__)
T = TypeVar("T")

RATE_REASONS = {"userRateLimitExceeded", "rateLimitExceeded", "sharingRateLimitExceeded"}
TRANSIENT_STATUS = {408, 429, 500, 502, 503, 504}
CHUNK = 8 * 1024 * 1024


class InvalidCursor(ConnectorError):
    """Drive refused a page token (400 on `pageToken`); the caller starts over."""


class _Capped:
    """A write-only sink that refuses to grow past `limit` bytes (raising TooLarge)."""

    def __init__(self, dest: BinaryIO, limit: int) -> None:
        self.dest, self.limit, self.total = dest, limit, 0

    def write(self, data: bytes) -> int:
        if self.total + len(data) > self.limit:
            raise TooLarge(f"file is larger than {self.limit} bytes")
        self.total += len(data)
        return self.dest.write(data)


def _retry_after(resp: Any) -> float | None:
    try:
        return float(resp.get("retry-after"))
    except (TypeError, ValueError):
        return None


def _reason_of(content: bytes) -> tuple[str, str]:
    """(reason, location) of Drive's error body, empty strings if absent."""
    try:
        errors = json.loads(content)["error"].get("errors") or [{}]
        return str(errors[0].get("reason", "")), str(errors[0].get("location", ""))
    except (ValueError, KeyError, TypeError, AttributeError):
        return "", ""


_pacers: dict[str, Pacer] = {}
_pacers_lock = threading.Lock()


def connection_pacer(connection: str, opts: GDriveOptions) -> Pacer:
    """The Pacer shared by every instance (one per worker thread) of one connection, so the
    pace holds per connection, not per thread. Thread-safe; a changed config gets a new one."""
    with _pacers_lock:
        pacer = _pacers.get(connection)
        wanted = (opts.pace_seconds, opts.retries, opts.max_sleep)
        if pacer is None or (pacer.min_sleep, pacer.retries, pacer.max_sleep) != wanted:
            pacer = Pacer(min_sleep=opts.pace_seconds, retries=opts.retries, max_sleep=opts.max_sleep)
            _pacers[connection] = pacer
        return pacer


class DriveApi:
    """One connection's Drive client: lazily built service, pacing, error mapping."""

    def __init__(self, opts: GDriveOptions, connection: str) -> None:
        self.opts = opts
        self.connection = connection
        self.pacer = connection_pacer(connection, opts)
        self._http: Any = None
        self._service: Any = None

    def service(self) -> Any:
        """The `drive v3` Resource; built on first use from the packaged discovery document."""
        if self._service is None:
            from googleapiclient.discovery import build

            self._http = authorized_http(self.opts, build_credentials(self.opts))
            self._service = build(
                "drive", "v3", http=self._http, static_discovery=True, cache_discovery=False,
                client_options={"api_endpoint": self.opts.base_url},
            )
        return self._service

    def run(self, make: Callable[[Any], Any], what: str) -> Any:
        """Execute the request `make(service)` with retries; returns the decoded JSON body.

        Raises NotFound (404), AuthError (revoked refresh token, 401), InvalidCursor, TransientError
        once the pacer's retries are spent, ConnectorError otherwise. As safe to repeat as the
        request itself.
        """
        return self.pacer.call(lambda: self.guard(lambda: make(self.service()).execute(num_retries=0), what),
                               what)

    def guard(self, fn: Callable[[], T], what: str) -> T:
        """Run `fn` once, translating google-api-python-client / google-auth / socket errors."""
        from google.auth import exceptions as gauth
        from googleapiclient.errors import HttpError
        from httplib2 import HttpLib2Error

        try:
            return fn()
        except HttpError as err:
            raise self._http_error(err, what) from None
        except gauth.RefreshError as err:
            if getattr(err, "retryable", False):
                raise TransientError(f"{what}: Google's token endpoint is unavailable") from None
            data = err.args[1] if len(err.args) > 1 and isinstance(err.args[1], dict) else {}
            code = data.get("error", "refused")
            if self.opts.service_account_file:
                fix = "check the service account key file and its access to the drive"
            else:
                fix = (f"the refresh token was revoked or expired: run `renamerd connect gdrive "
                       f"--connection {self.connection}`")
            raise AuthError(
                f"connection {self.connection!r}: Google refused the credentials ({code}); {fix}"
            ) from None
        except gauth.TransportError as err:
            raise TransientError(f"{what}: token endpoint unreachable ({type(err).__name__})") from None
        except ssl.SSLCertVerificationError as err:
            raise ConnectorError(f"{what}: TLS certificate not trusted ({err.verify_message})") from None
        except (HttpLib2Error, OSError) as err:
            raise TransientError(f"{what}: network error ({type(err).__name__})") from None

    def _http_error(self, err: Any, what: str) -> ConnectorError:
        status = int(err.resp.status)
        reason, location = _reason_of(err.content or b"")
        if status in TRANSIENT_STATUS or (status == 403 and reason in RATE_REASONS):
            return TransientError(f"{what}: HTTP {status} {reason}".rstrip(), _retry_after(err.resp))
        if status == 404:
            return NotFound(f"{what}: not found")
        if status == 401:
            return AuthError(
                f"connection {self.connection!r}: Google refused the access token after a refresh; "
                f"run `renamerd connect gdrive --connection {self.connection}`"
            )
        if status == 400 and location == "pageToken":
            return InvalidCursor(f"{what}: the stored page token was refused")
        return ConnectorError(f"{what}: HTTP {status} {reason}".rstrip())

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Stream the content of `file_id` into `dest` in ranged chunks; returns the byte count.

        Never writes more than `max_bytes` (raises TooLarge); each chunk is retried on its own.
        """
        from googleapiclient.http import MediaIoBaseDownload

        request = self.service().files().get_media(fileId=file_id, supportsAllDrives=True)
        sink = _Capped(dest, max_bytes)
        downloader = MediaIoBaseDownload(sink, request, chunksize=max(1, min(max_bytes + 1, CHUNK)))
        done = False
        while not done:
            _, done = self.pacer.call(
                lambda: self.guard(lambda: downloader.next_chunk(num_retries=0), "download"), "download"
            )
        return sink.total

    def close(self) -> None:
        """Drop the HTTP connections. Safe to call twice."""
        if self._http is not None:
            with contextlib.suppress(Exception):  # closing is best effort
                self._http.close()
        self._http = self._service = None
