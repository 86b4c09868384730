"""Moving a local file without ever overwriting one.

Within one filesystem: `os.link` + `unlink` (the kernel refuses to replace an existing name, so
nothing is overwritten even when racing another process; not fsynced: the data never moves). On
filesystems without hard links: claim the name with O_EXCL and rename over the claim. Across
filesystems: copy to a hidden temporary name in the destination folder, fsync, link it into
place (never overwriting), fsync the folder, then remove the source.

Errors: a taken name is `Conflict`; a missing file or folder `NotFound`; any other OSError a
`ConnectorError` with the system's reason. Every move is recorded in the `MovedLog`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat as stat_mod

from renamerd.connectors import Conflict, ConnectorError, NotFound, RemoteFile

from .moved_log import MovedLog
from .paths import remote

CHUNK = 1024 * 1024
#: link() errors meaning "no hard links here": claim the name instead
NO_LINK = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS}


def move_file(src: str, folder: str, name: str, moved: MovedLog) -> RemoteFile:
    """Move the regular file `src` into `folder` as `name` (all normalised); see
    `LocalConnector.move`. Raises Conflict, NotFound, ConnectorError."""
    dest = os.path.join(folder, name)
    src_st = stat_file(src)
    if src == dest:
        return remote(dest, src_st)
    try:  # the name is taken when the link fails: only then is the destination looked at
        os.link(src, dest, follow_symlinks=False)
    except FileExistsError:
        return _already_there(src, src_st, dest, name, folder, moved)
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.isdir(folder):
            raise NotFound(f"folder {folder} not found") from None
        raise NotFound(f"file {src} not found") from None
    except OSError as err:
        if err.errno == errno.EXDEV:
            return _move_across(src, folder, dest, moved)
        if err.errno in NO_LINK:
            _claim_and_replace(src, dest)
        else:
            raise ConnectorError(f"cannot move {src}: {err.strerror}") from err
    else:
        _unlink(src)
    # No fsync here: a move within one filesystem never puts the data at risk (same inode;
    # the journal orders the link before the unlink), and its directory entries reach the
    # disk with the filesystem's next commit, like the job database's own commits
    # (synchronous=NORMAL). It cost 4-10 ms per document. Copies across filesystems are
    # fsynced before the source goes (`_move_across`).
    moved.add(dest, src_st)
    return remote(dest, src_st)


def stat_file(path: str) -> os.stat_result:
    """The stat of the regular file at `path`; NotFound for anything else."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound(f"file {path} not found") from None
    if not stat_mod.S_ISREG(st.st_mode):
        raise NotFound(f"{path} is not a regular file")
    return st


def _already_there(src: str, src_st: os.stat_result, dest: str, name: str, folder: str,
                   moved: MovedLog) -> RemoteFile:
    """`dest` exists: this very file (a move stopped between link and unlink, or the same
    name in another case on a case-insensitive filesystem): finish the move; another file:
    Conflict."""
    try:
        dest_st = os.stat(dest, follow_symlinks=False)
    except FileNotFoundError:  # gone again meanwhile: let the caller try once more
        raise Conflict(f"{name!r} was taken in {folder}") from None
    if not os.path.samestat(src_st, dest_st):
        raise Conflict(f"{name!r} is taken in {folder}")
    if src_st.st_nlink >= 2:  # an earlier move stopped between link and unlink
        _unlink(src)
    else:  # one entry, other case, on a case-insensitive filesystem
        os.rename(src, dest)
    moved.add(dest, src_st)
    return remote(dest, src_st)


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _claim_and_replace(src: str, dest: str) -> None:
    """No hard links here: claim `dest` with O_EXCL, then rename over our own claim."""
    try:
        fd = os.open(dest, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        raise Conflict(f"{os.path.basename(dest)!r} is taken") from None
    os.close(fd)
    try:
        os.replace(src, dest)
    except OSError as err:
        _unlink(dest)
        if isinstance(err, FileNotFoundError):
            raise NotFound(f"file {src} not found") from None
        raise ConnectorError(f"cannot move {src}: {err.strerror}") from err


def _move_across(src: str, folder: str, dest: str, moved: MovedLog) -> RemoteFile:
    """Copy to a hidden temporary file beside `dest`, fsync, link into place, drop the source."""
    tmp = os.path.join(folder, f".renamerd-{secrets.token_hex(8)}.part")
    try:
        src_fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        with open(src_fd, "rb") as fin, open(tmp, "xb") as fout:
            shutil.copyfileobj(fin, fout, CHUNK)
            fout.flush()
            os.fsync(fout.fileno())
        shutil.copystat(src, tmp)
        try:
            os.link(tmp, dest)
        except FileExistsError:
            raise Conflict(f"{os.path.basename(dest)!r} is taken in {folder}") from None
        except OSError as err:
            if err.errno not in NO_LINK:
                raise
            _claim_and_replace(tmp, dest)
    except FileNotFoundError:
        raise NotFound(f"file {src} not found") from None
    except OSError as err:
        raise ConnectorError(f"cannot copy {src} to {folder}: {err.strerror}") from err
    finally:
        _unlink(tmp)
    _fsync_dir(folder)
    _unlink(src)
    st = os.stat(dest, follow_symlinks=False)
    moved.add(dest, st)
    return remote(dest, st)


def _fsync_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
