"""An emulator of the Dropbox API v2 (the routes renamerd uses), speaking Dropbox's wire format.

The official `dropbox` SDK talks to it unchanged over TLS (trustme CA): RPC routes take a JSON
body and answer JSON; `files/download` takes its argument in the `Dropbox-API-Arg` header and
answers the metadata in `Dropbox-API-Result`; route errors are 409 with
``{"error_summary": "path/not_found/..", "error": {".tag": "path", ...}}``; auth errors are 401
(`expired_access_token`, `invalid_access_token`); throttling is 429 with a `too_many_requests`
or `too_many_write_operations` reason, `retry_after` and a Retry-After header.

Emulated routes: ``/oauth2/authorize`` (auto-approves and shows the code), ``/oauth2/token``
(authorization_code with PKCE, refresh_token; access tokens expire, refresh tokens are
revocable and then give `invalid_grant`), ``files/list_folder`` (+ ``/continue``,
``/get_latest_cursor``, ``/longpoll``), ``files/get_metadata``, ``files/download``,
``files/move_v2``, ``files/create_folder_v2``, ``files/delete_v2``.

Cursors are stateless tokens holding (path, recursive, change sequence number); an incremental
``continue`` reads only the change log since that number, never the whole tree, so a poll costs
the same on a drive of 50 or 50,000 files. `DropboxAccount` is the backdoor tests use directly.

The emulator is in three parts: `dropbox_account.py` (the state and backdoor),
`dropbox_app.py` (the routes), and `DropboxEmulator` here (both behind a TLS server).
"""

from __future__ import annotations

from typing import Any

from .base import EmulatorServer, Faults
from .dropbox_account import DropboxAccount
from .dropbox_app import DropboxThrottleShape, create_app

__all__ = ["DropboxAccount", "DropboxEmulator"]


class DropboxEmulator:
    """The account, its ASGI app and a TLS server on 127.0.0.1; `.url` is the `endpoint`."""

    def __init__(self, *, faults: Faults | None = None, **account_options: Any) -> None:
        self.account = DropboxAccount(**account_options)
        self.faults = faults or Faults(retry_after=0)
        self.server = EmulatorServer(create_app(self.account), tls=True, faults=self.faults)
        self.server.app = DropboxThrottleShape(self.server.app)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ca_bundle(self) -> str:
        return self.server.ca_bundle

    def start(self) -> DropboxEmulator:
        self.server.start()
        return self

    def reset(self, **account_options: Any) -> None:
        """A fresh, empty account (see `DropboxAccount.reset`) and fault injector, same server."""
        self.account.reset(**account_options)
        self.faults.rate = 0.0
        self.faults.retry_after = 0
        self.faults.exempt = ()
        self.faults.reset_counts()

    def stop(self) -> None:
        if self.server._server is not None:
            # don't wait for keep-alive connections a client still holds (say, in a traceback)
            self.server._server.force_exit = True
        self.server.stop()

    def __enter__(self) -> DropboxEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
