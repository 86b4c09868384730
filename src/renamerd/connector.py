"""The Connector protocol: the daemon's only way into a user's storage.

One module per provider lives in `connectors/renamerd_connectors/` and registers under the
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

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from importlib.metadata import entry_points
from typing import Any, BinaryIO, Protocol, TypeVar, runtime_checkable

log = logging.getLogger(__name__)

T = TypeVar("T")


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
class SupportsWaitForChanges(Protocol):
    """Optional: a connector that can block until its provider signals news (Dropbox longpoll)."""

    def wait_for_changes(self, cursor: str, timeout_s: float) -> bool:
        """Block up to about `timeout_s`; True when `changes(cursor)` has news (or the cursor was
        reset), False on a quiet timeout. Read-only, safe to repeat. Raises TransientError."""
        ...


def split_name(name: str) -> tuple[str, str]:
    """("report.final", ".pdf") for "report.final.pdf"; no extension gives (name, "")."""
    dot = name.rfind(".")
    if dot <= 0:
        return name, ""
    return name[:dot], name[dot:]


def join_path(folder: str, name: str) -> str:
    folder = folder.rstrip("/")
    return f"{folder}/{name}" if folder else f"/{name}"


def free_name(
    connector: Connector,
    folder_path: str,
    name: str,
    *,
    limit: int = 1000,
    skip: Iterable[str] = (),
) -> str:
    """The first of "name.ext", "name (2).ext", "name (3).ext"... not taken in `folder_path`.

    Relies on `stat_path`, which is case-insensitive on providers that are. Read-only. The answer
    can be taken by someone else before the move; `move` then raises Conflict and the caller asks
    again, passing the names that clashed in `skip` (a folder holding a name is invisible to
    `stat_path`, so without `skip` the same name would come back). Raises Conflict after
    `limit` candidates.
    """
    fold = str.casefold if connector.case_insensitive else str
    skipped = {fold(s) for s in skip}
    stem, ext = split_name(name)
    for n in range(1, limit + 1):
        candidate = name if n == 1 else f"{stem} ({n}){ext}"
        if fold(candidate) in skipped:
            continue
        if connector.stat_path(join_path(folder_path, candidate)) is None:
            return candidate
    raise Conflict(f"no free name for {name!r} in {folder_path!r} after {limit} tries")


@dataclass
class Pacer:
    """Per-connection pacing and retries, after rclone's pacer.

    `call(fn)` runs `fn`, keeping at least `min_sleep` between calls; when `fn` raises a
    TransientError it sleeps (the error's `retry_after` if given, else exponential backoff with
    jitter, capped at `max_sleep`) and tries again, up to `retries` times, then re-raises.
    """

    min_sleep: float = 0.0
    max_sleep: float = 30.0
    retries: int = 8
    backoff: float = 0.5
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    _last: float = field(default=0.0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def call(self, fn: Callable[[], T], what: str = "call") -> T:
        attempt = 0
        while True:
            self._wait_turn()
            try:
                return fn()
            except TransientError as err:
                attempt += 1
                if attempt > self.retries:
                    raise
                delay = err.retry_after
                if delay is None:
                    delay = self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random())
                delay = min(max(delay, 0.0), self.max_sleep)
                log.info("%s: transient error (%s), retry %d in %.2fs", what, err, attempt, delay)
                self.sleep(delay)

    def _wait_turn(self) -> None:
        if self.min_sleep <= 0:
            return
        with self._lock:
            now = self.clock()
            gap = self._last + self.min_sleep - now
            if gap > 0:
                self.sleep(gap)
            self._last = max(now, self._last + self.min_sleep)


def resolve_secret(value: Any, *, key: str) -> Any:
    """Resolve `{ env = "VAR" }` or `{ file = "/path" }` option values; others pass through."""
    import os
    from pathlib import Path

    if isinstance(value, Mapping):
        if "env" in value:
            env = str(value["env"])
            if env not in os.environ:
                raise ConfigError(f"option {key}: environment variable {env} is not set")
            return os.environ[env]
        if "file" in value:
            try:
                return Path(str(value["file"])).read_text().strip()
            except OSError as err:
                raise ConfigError(f"option {key}: cannot read {value['file']}: {err}") from err
    return value


def resolve_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Resolve every secret reference; `*_file` keys are read into the key without `_file`.

    `service_account_file` and `ca_bundle` stay paths (they name files by design).
    """
    from pathlib import Path

    keep_paths = {"service_account_file", "ca_bundle"}
    out: dict[str, Any] = {}
    for key, value in options.items():
        value = resolve_secret(value, key=key)
        if key.endswith("_file") and key not in keep_paths and isinstance(value, str):
            base = key[: -len("_file")]
            try:
                out[base] = Path(value).read_text().strip()
            except OSError as err:
                raise ConfigError(f"option {key}: cannot read {value}: {err}") from err
        else:
            out[key] = value
    return out


def available_providers() -> dict[str, Any]:
    """Entry points registered under ``renamerd.connectors``, by provider name."""
    return {ep.name: ep for ep in entry_points(group="renamerd.connectors")}


def load_connector(provider: str) -> type[Connector]:
    """The connector class registered as `provider`. Raises ConfigError for unknown names or
    a provider whose SDK extra is not installed (naming the extra to install). A class found
    is kept for the life of the process (reading the installed packages' entry points takes
    10-20 ms; every worker thread opens its own connector)."""
    found = _loaded.get(provider)
    if found is not None:
        return found
    eps = available_providers()
    if provider not in eps:
        known = ", ".join(sorted(eps)) or "none"
        raise ConfigError(f"unknown provider {provider!r} (registered: {known})")
    try:
        cls: type[Connector] = eps[provider].load()
    except ImportError as err:
        module = eps[provider].value.split(":")[0]
        if getattr(err, "name", None) and module.startswith(str(err.name)):
            raise ConfigError(f"provider {provider!r}: module {module} is missing") from err
        raise ConfigError(
            f"provider {provider!r} needs its extra: pip install 'renamerd[{provider}]' ({err})"
        ) from err
    except AttributeError as err:
        raise ConfigError(f"provider {provider!r}: {eps[provider].value} does not exist") from err
    _loaded[provider] = cls
    return cls


_loaded: dict[str, type[Connector]] = {}


def open_connector(
    provider: str, options: Mapping[str, Any], *, name: str, state_dir: str
) -> Connector:
    """Construct the connector for one configured connection, secrets resolved."""
    cls = load_connector(provider)
    return cls(resolve_options(options), name=name, state_dir=state_dir)  # type: ignore[call-arg]


def iter_chunks(stream: Iterable[bytes], dest: BinaryIO, max_bytes: int) -> int:
    """Copy chunks into `dest`, raising TooLarge past `max_bytes`. Shared by the providers."""
    total = 0
    for chunk in stream:
        if not chunk:
            continue
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge(f"file is larger than {max_bytes} bytes")
        dest.write(chunk)
    return total
