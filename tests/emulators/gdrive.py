"""Google Drive v3 and Google OAuth 2.0 emulator, for the real google-api-python-client.

Served by `tests/emulators/base.EmulatorServer` (TLS with a trustme CA). What it speaks:

- OAuth: `GET /o/oauth2/auth` (auto-consent: 302 to the loopback `redirect_uri` with `code` and
  `state`; PKCE S256 checked at the token endpoint), `POST /token` with the grants
  `authorization_code`, `refresh_token` and the service-account JWT bearer grant
  (`urn:ietf:params:oauth:grant-type:jwt-bearer`, RS256 signature checked against the registered
  key). Errors as Google sends them: 400 `{"error": "invalid_grant", "error_description": ...}`.
  Access tokens expire after `access_token_lifetime` seconds on the server while `expires_in`
  reports `reported_expires_in` (google-auth refreshes 3m45s early, so a short honest lifetime
  would refresh before every call; a lie makes the 401 -> refresh path run, as when Google
  revokes a token early).
- Drive under `/drive/v3/`: `files.list` (the `q` language subset `'<id>' in parents`, `name`,
  `mimeType`, `trashed`, `modifiedTime`/`createdTime` comparisons, `and`/`or`/`not`/parentheses;
  `orderBy`; paging with opaque tokens; `corpora`/`driveId`), `files.get` (metadata, or content
  with `alt=media` honouring `Range`, 416 for an empty file), `files.create` (metadata only:
  folders), `files.update` (`addParents`/`removeParents`/`name`; an item keeps exactly one
  parent), `files.delete`, `changes.getStartPageToken` and `changes.list` (numeric page tokens,
  one entry per file at its latest change, `nextPageToken` then `newStartPageToken`). The `fields`
  partial-response mask is applied, so a client that forgets to ask for `parents` does not get
  them. Error bodies use Drive's `{"error": {"code", "message", "errors": [{"reason"...}]}}`.
- Shared drives: items carry `driveId`; without `supportsAllDrives=true` they are "not found",
  and listings include them only with `includeItemsFromAllDrives=true`.

Backdoor (Python, in-process, thread-safe): `put`, `mkdir`, `read`, `listing`, `find`, `delete`,
`add_shared_drive`, `issue_refresh_token`, `revoke`, `register_service_account`, `fail_next`,
`lose_reply` (the call takes effect, the answer is an error), `expire_access_tokens`, `reset`.
Memory holds the items plus one change-log entry per item (a file changed twice keeps only its
latest entry), so it grows with the drive, not with its history.

Not emulated: uploads (`/upload/drive/v3`), exports of Docs Editors files, permissions,
revisions, push notifications (`changes.watch`), `fullText` search, batch requests.

The emulator is in four parts: `gdrive_state.py` (the state and backdoor), `gdrive_app.py`
(the endpoints), `gdrive_query.py` (the `q` language and the `fields` mask), and
`DriveEmulator` here (all behind a TLS server).
"""

from __future__ import annotations

from typing import Any

from emulators.base import EmulatorServer, Faults
from emulators.gdrive_app import build_app
from emulators.gdrive_state import FOLDER, DriveState

__all__ = ["FOLDER", "DriveEmulator", "DriveState"]


class DriveEmulator:
    """State + app + TLS server in one. `start()`/`stop()`; `.url`, `.ca_bundle`, `.faults`."""

    def __init__(self, **state_kwargs: Any) -> None:
        self.state = DriveState(**state_kwargs)
        self.faults = Faults(exempt=("/token", "/o/oauth2"))
        self.server = EmulatorServer(build_app(self.state), tls=True, faults=self.faults)

    def start(self) -> DriveEmulator:
        self.server.start()
        return self

    def reset(self) -> DriveEmulator:
        """A fresh, empty account on the running server; fault rate 0, counters cleared."""
        self.state.reset()
        self.faults.rate = 0.0
        self.faults.reset_counts()
        return self

    def stop(self) -> None:
        if self.server._server is not None:  # do not wait for clients' idle keep-alive sockets
            self.server._server.force_exit = True
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ca_bundle(self) -> str:
        return self.server.ca_bundle

    @property
    def token_uri(self) -> str:
        return f"{self.url}/token"

    @property
    def auth_uri(self) -> str:
        return f"{self.url}/o/oauth2/auth"

    def api_calls(self) -> int:
        """Drive API calls seen (OAuth endpoints not counted)."""
        return sum(n for path, n in self.faults.calls.items() if path.startswith("/drive/"))
