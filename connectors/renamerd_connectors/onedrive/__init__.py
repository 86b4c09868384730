"""OneDrive (personal and business) and SharePoint libraries, through Microsoft Graph. The
provider's map:

SDK: no Graph SDK; Graph v1.0 over httpx (`graph.py`), tokens from msal, Microsoft's identity
library (`auth.py`), with msal's HTTP also on httpx so that `ca_bundle` holds everywhere.

Options (`options.py`): `client_id`, `refresh_token` (stored by `renamerd connect onedrive`),
`client_secret`, `tenant`, `authority`, `graph_endpoint`, `drive_id`, `scopes`, `ca_bundle`,
`timeout`.

Authentication (`auth.py`, `connect.py`): the authority (login.microsoftonline.com/{tenant})
issues a refresh token; `GraphTokens` trades it for access tokens (about an hour) shortly before
they expire. Microsoft rotates the refresh token on every refresh; the connector hands the new
one to `on_token_rotated` so the daemon can store it. `renamerd connect onedrive` is the
device-code sign-in (`connect.py`).

Changes (`delta.py`, `folders.py`): Graph delta. On a personal drive, delta of the watched
folder; on a business drive or SharePoint library (delta only on the root), delta of the root,
filtered to the watched folder. The cursor is the deltaLink, with the drive and folder ids it
belongs to. Delta items carry no parent path, so folder paths come from an id -> path cache fed
by the feed itself and, for folders not seen yet, one GET of that folder.

Files (`connector.py`, `items.py`, `names.py`): ids are Graph item ids (they survive moves); the
revision is the content hash (quickXorHash, else sha256/sha1), not the cTag. OneDrive is
case-insensitive. Downloads follow the 302 of ``/content`` to a pre-authenticated URL without
the Authorization header. Names OneDrive refuses (" * : < > ? / \\ |, CON, ...) are refused
before any call; `names.clean_name` makes one acceptable.

Errors (`errors.py`, `graph.py`):

- a name clash on a move or folder creation is a 409 (conflictBehavior=fail): `Conflict`;
- 429, 503, 509, 5xx, 423 and network errors: `TransientError`, honouring Retry-After, retried
  by the connection's Pacer (up to 120 s apart: Graph's Retry-After can reach minutes);
- an expired access token is refreshed before the call; a 401 drops it and retries once with a
  fresh one, then becomes `AuthError`; a refused refresh token (``invalid_grant``,
  ``interaction_required``, ...) is `AuthError`; the sign-in service unreachable: `TransientError`;
- a 410 Gone to a deltaLink restarts the enumeration (`Changes.reset`); 404: `NotFound`.
"""

from .connector import OneDriveConnector

__all__ = ["OneDriveConnector"]
