"""Dropbox, through the official Python SDK (`dropbox`, API v2). The provider's map:

SDK and hosts (`client.py`): `dropbox.Dropbox` speaks to api.dropboxapi.com (metadata, moves),
content.dropboxapi.com (downloads) and notify.dropboxapi.com (longpoll); the `endpoint` option
moves all of them, and the token endpoint, to one https address (a proxy, or the tests'
emulator). The SDK's own retries are off; the connection's `Pacer` does them.

Options (`options.py`): `app_key` (required), `app_secret` (optional), `refresh_token`
(required; stored by `renamerd connect dropbox`), `endpoint`, `ca_bundle`, `timeout`.

Authentication (`auth.py`): OAuth 2 with PKCE and `token_access_type=offline`, so Dropbox returns
a refresh token; the SDK trades it for short-lived access tokens (4 h) and renews them itself.
`renamerd connect dropbox` runs the no-redirect flow: the person opens the authorize address and
pastes the code Dropbox shows.

Changes (`feed.py`): `files/list_folder` (recursive or not) paged with `list_folder/continue`
until `has_more` is false; the stored cursor is Dropbox's cursor wrapped with the watched path,
so a changed `watch` starts over. A cursor Dropbox resets is answered by a full listing with
`Changes.reset` set. `wait_for_changes` is `list_folder/longpoll` (no API quota; returns when
something under the folder changes, honouring Dropbox's `backoff`).

Files (`connector.py`): ids are "id:..." and survive moves; `revision` is `content_hash` (it
survives moves and renames, `rev` does not). Dropbox is case-insensitive: lookups go by
`path_lower`, names come from `path_display`. `move` is `files/move_v2` with autorename off.

Errors (`errors.py`, `api.py`):

- a taken name (in any case) on a move or folder creation: `Conflict`, never an overwrite;
- 429 `too_many_requests` / `too_many_write_operations` (honouring `retry_after`), 5xx, network
  errors: `TransientError`, retried by the Pacer until its retries are spent;
- an expired access token is refreshed by the SDK before the call; a 401 `invalid_access_token`
  is retried once after a forced refresh, then becomes `AuthError`, as does a revoked refresh
  token (`invalid_grant`) or a wrong app key or secret (`invalid_client`);
- `not_found` / `not_file` / `not_folder`: `NotFound`; TLS failures: `ConnectorError`.
"""

from .connector import DropboxConnector

__all__ = ["DropboxConnector"]
