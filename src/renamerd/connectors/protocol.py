"""The Connector protocol: the daemon's only way into a user's storage.

One package per provider lives in `connectors/renamerd_connectors/` and registers under the
entry-point group ``renamerd.connectors``; the core never imports a provider module directly
(see `load_connector`). Modelled on rclone's `fs.Fs`: a few primitives with written contracts.

Paths are provider paths: '/'-separated, absolute, no trailing slash ("/" is the root). For the
local connector they are filesystem paths. Ids are opaque strings chosen by the provider; for
providers with stable ids (Drive, Dropbox, OneDrive) an id survives a move, for local folders the
id is the path.

Errors: every method raises only `ConnectorError` subclasses for provider trouble. Transient
provider trouble (429, 5xx, network) is retried inside the connector with `Pacer`; only when the
retries are spent does a `TransientError` escape. `AuthError` means a person must reconnect the
account: the daemon stops that connection and leaves the others running.

Optional capabilities (looked up with getattr, as rclone's Features): `SupportsConnectFlow` for
`renamerd connect`, `SupportsWaitForChanges` for providers with a long poll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO, Protocol, runtime_checkable


class ConnectorError(Exception):
    """Base of every error a connector raises. The message is safe to log (no secrets)."""


class NotFound(ConnectorError):
    """The file or folder does not exist (any more)."""


class Conflict(ConnectorError):
    """The destination name is taken. Nothing was changed."""


class TooLarge(ConnectorError):
    """A download exceeded the caller's byte limit. The partial data must be discarded."""


class TransientError(ConnectorError):
    """Throttling, server errors or network trouble that outlasted the connector's retries.

    Safe to retry the same call later; `retry_after` is the provider's hint in seconds, if any.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class AuthError(ConnectorError):
    """Credentials are missing, revoked or refused; a person must reconnect the account."""


class ConfigError(ConnectorError):
    """The connection's options are wrong (missing key, bad value). Raised by the constructor."""


@dataclass(frozen=True)
class RemoteFile:
    """A file as the provider sees it.

    `revision` changes whenever the content changes (Drive md5/headRevisionId, Dropbox
    content_hash, Graph cTag, local size+mtime) and stays the same across a move or rename, so
    (connection, id, revision) names one piece of work.
    """

    id: str
    path: str
    name: str
    size: int
    revision: str
    modified: datetime | None = None
    parent_id: str | None = None


@dataclass
class Changes:
    """What `Connector.changes` found: files to consider, and the cursor to pass next time.

    `files` holds only files (never folders) below the watched folder that are new or whose
    content changed since `cursor`, and which are complete (a local file whose size or mtime is
    still moving is held back until it is stable). A file may be reported again in a later call
    (callers de-duplicate by id and revision). `reset` is true when the provider invalidated the
    old cursor and the connector fell back to a full listing.
    """

    files: list[RemoteFile]
    cursor: str
    reset: bool = False


@runtime_checkable
class Connector(Protocol):
    """One connection to one account of one provider.

    Constructed as ``Cls(options, name=connection_name, state_dir=path)``: `options` is the
    `[connections.options]` table with secrets already resolved; the constructor validates them
    (raising `ConfigError`) but does no network I/O. Instances are used from one thread at a time.
    """

    #: provider name as used in config ("local", "gdrive", ...)
    provider: str
    #: whether names differing only in case clash (Dropbox, OneDrive: True)
    case_insensitive: bool

    def changes(self, watch: str, cursor: str | None, *, recursive: bool = True) -> Changes:
        """Files under `watch` that are new or changed since `cursor` (None: everything there now).

        Pages through the provider's feed until it is drained. A provider-invalidated cursor
        (Dropbox `reset`, Graph 410) is handled here by a full listing with `reset=True`.
        Read-only; safe to repeat with the same cursor. Raises NotFound if `watch` does not exist.
        """
        ...

    def stat(self, file_id: str) -> RemoteFile | None:
        """The file's current metadata, or None if it no longer exists. Read-only."""
        ...

    def stat_path(self, path: str) -> RemoteFile | None:
        """The file at `path` (case-insensitively where the provider is), or None. Read-only."""
        ...

    def download(self, file_id: str, dest: BinaryIO, max_bytes: int) -> int:
        """Write the file's content to `dest` and return the byte count.

        Raises NotFound if gone, TooLarge as soon as more than `max_bytes` arrive. Safe to repeat
        (the caller truncates `dest` first).
        """
        ...

    def list_folders(self, path: str) -> list[str]:
        """The names of the folders directly in folder `path`, sorted (files left out): what
        the web app's folder browser shows. Read-only; raises NotFound when `path` is no
        folder."""
        ...

    def ensure_folder(self, path: str) -> str:
        """Create `path` and its parents as needed and return the folder's id.

        Idempotent: an existing folder is reused (with duplicate names, the oldest one).
        """
        ...

    def move(self, file_id: str, folder_id: str, name: str) -> RemoteFile:
        """Move the file into `folder_id` under exactly `name` and return its new metadata.

        Never overwrites: raises Conflict if another file holds `name` there. If the file
        already sits at that place under that name, returns it unchanged (safe to repeat).
        Raises NotFound if the file or folder is gone.
        """
        ...

    def close(self) -> None:
        """Release sessions and sockets. Safe to call twice."""
        ...


@runtime_checkable
class SupportsConnectFlow(Protocol):
    """Optional: a connector class whose accounts are authorised by `renamerd connect`."""

    @classmethod
    def connect_flow(
        cls, options: dict[str, Any], *, echo: Callable[[str], None], prompt: Callable[[str], str]
    ) -> str:
        """Run the provider's sign-in for a person at a terminal and return a refresh token.

        `options` are the connection's options with secret references resolved (no refresh
        token needed); `echo` prints a line, `prompt` asks for one. Raises AuthError when the
        person refuses or the code expires, ConfigError for missing options. Not repeatable: each
        run is a new consent.
        """
        ...


@runtime_checkable
class SupportsRemoveEmptyFolder(Protocol):
    """Optional: a connector that can remove a folder only if it is empty, in one step.

    Cloud providers delete folders with everything in them, so a check before the delete could
    lose a file that arrives between the two: those connectors leave this out, and Undo leaves
    the folders it emptied there.
    """

    def remove_empty_folder(self, path: str) -> bool:
        """Remove the folder at `path` if it holds nothing; True when removed. False when it
        holds anything, is gone or is no folder. Never removes a file. Safe to repeat."""
        ...


@runtime_checkable
class SupportsWaitForChanges(Protocol):
    """Optional: a connector that can block until its provider signals news (Dropbox longpoll)."""

    def wait_for_changes(self, cursor: str, timeout_s: float) -> bool:
        """Block up to about `timeout_s`; True when `changes(cursor)` has news (or the cursor was
        reset), False on a quiet timeout. Read-only, safe to repeat. Raises TransientError."""
        ...
