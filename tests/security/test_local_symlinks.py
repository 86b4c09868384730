"""The local connector reads regular files only: a symbolic link put where a document was (after
the folder was listed) is not followed, so it cannot make renamerd read and file another file."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from renamerd.connectors import NotFound
from renamerd_connectors.local import LocalConnector


def _connector(tmp_path: Path) -> LocalConnector:
    return LocalConnector({}, name="inbox", state_dir=str(tmp_path / "state"))


def test_a_link_swapped_in_for_a_listed_file_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for renaming")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    doc = inbox / "scan.pdf"
    doc.write_bytes(b"%PDF-1.4 a document")
    conn = _connector(tmp_path)
    listed = conn.stat(str(doc))
    assert listed is not None
    doc.unlink()  # between the listing and the download, the file becomes a link
    os.symlink(secret, doc)
    out = io.BytesIO()
    with pytest.raises(NotFound, match="symbolic link"):
        conn.download(listed.id, out, 1 << 20)
    assert out.getvalue() == b""
    assert conn.stat(str(doc)) is None  # and it is not listed as a file


def test_a_fifo_is_not_a_document(tmp_path: Path) -> None:
    """A named pipe would block the worker's read forever: refused without opening for long."""
    fifo = tmp_path / "pipe.pdf"
    os.mkfifo(fifo)
    with pytest.raises(NotFound, match="not a regular file"):
        _connector(tmp_path).download(str(fifo), io.BytesIO(), 1 << 20)
