"""Google Drive (My Drive, or one shared drive), through the Drive v3 API. The provider's map:

SDK (`api.py`): google-api-python-client, built from its packaged discovery document, over
httplib2 with google-auth's `AuthorizedHttp`; the client's own retries are off and every call runs
through the connection's `Pacer`, shared by the connection's per-thread instances.

Options (`options.py`): `client_id`, `client_secret`, `refresh_token` (stored by `renamerd
connect gdrive`), or `service_account_file` (+ `subject`); `drive_id` for a shared drive; Google's
addresses (`api_endpoint`, `token_uri`, `auth_uri`, `ca_bundle`) and pacing.

Authentication (`auth.py`, `connect.py`): OAuth 2 with PKCE for a user (the installed-app flow:
consent page, loopback redirect to 127.0.0.1, code exchange), or a service account's JWT grant.
google-auth refreshes the access token (about an hour) before it expires and after a 401.

Changes (`feed.py`): the Drive changes feed. The cursor is Drive's page token: `changes.list`
from it until `newStartPageToken`; without one, `changes.getStartPageToken` and a listing of the
watched folder. The feed covers the whole drive and is filtered to the watched folder through the
folder cache (`tree.py`: id -> name and parent, learnt from listings and from the feed itself).

Files (`folders.py`, `connector.py`): Drive knows items by id and parents, not paths; several items
may share a name in one folder (lookups take the oldest). Ids survive moves; the revision is
md5Checksum. Names are case-sensitive. Docs Editors files and shortcuts are never reported.

Errors (`api.py`):

- a taken name: Drive would accept a duplicate, so `move` checks before and after and raises
  `Conflict` (stepping back if a file arrived meanwhile);
- 408, 429, 500, 502-504, 403 `rateLimitExceeded` / `userRateLimitExceeded`, network errors:
  `TransientError` (with Retry-After), retried by the Pacer;
- a refused refresh (revoked or expired refresh token, `invalid_grant`) or a 401 after a refresh:
  `AuthError`; the token endpoint unavailable: `TransientError`;
- 404: `NotFound`; a page token Drive refuses (400 on `pageToken`): a new listing with
  `Changes.reset`; an untrusted TLS certificate: `ConnectorError`.
"""

from .connector import GDriveConnector

__all__ = ["GDriveConnector"]
