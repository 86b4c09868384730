"""Recognise a document's real type from its bytes, never from its name.

`detect(data, config)` looks at magic bytes and, for containers, at their directory:

* ``%PDF-`` in the first KiB                         -> pdf
* ``FF D8 FF``                                        -> jpeg
* the PNG signature                                   -> png
* ``II*\\0`` / ``MM\\0*`` (and BigTIFF)                 -> tiff
* a ZIP holding ``word/`` / ``xl/`` / ``ppt/`` parts  -> docx / xlsx / pptx
* an OLE2 compound file with a ``WordDocument`` /
  ``Workbook`` / ``PowerPoint Document`` stream       -> doc / xls / ppt

ZIP containers are checked against bombs here already (entry count from the end-of-central-
directory record, before Python's zipfile parses the directory), because detecting an Office
file means reading that directory.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from renamerd.engine.types import (
    DocumentTooLarge,
    EngineConfig,
    UnreadableDocument,
    UnsupportedDocument,
)


@dataclass(frozen=True)
class DocumentFormat:
    """A recognised document type.

    kind: "pdf" | "jpeg" | "png" | "tiff" | "docx" | "xlsx" | "pptx" | "doc" | "xls" | "ppt"
    mime: its media type, e.g. "application/pdf"
    extension: the extension a renamed file gets, e.g. ".pdf"
    """

    kind: str
    mime: str
    extension: str


PDF = DocumentFormat("pdf", "application/pdf", ".pdf")
JPEG = DocumentFormat("jpeg", "image/jpeg", ".jpg")
PNG = DocumentFormat("png", "image/png", ".png")
TIFF = DocumentFormat("tiff", "image/tiff", ".tiff")
DOCX = DocumentFormat(
    "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx"
)
XLSX = DocumentFormat(
    "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"
)
PPTX = DocumentFormat(
    "pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx"
)
DOC = DocumentFormat("doc", "application/msword", ".doc")
XLS = DocumentFormat("xls", "application/vnd.ms-excel", ".xls")
PPT = DocumentFormat("ppt", "application/vnd.ms-powerpoint", ".ppt")

FORMATS: dict[str, DocumentFormat] = {
    f.kind: f for f in (PDF, JPEG, PNG, TIFF, DOCX, XLSX, PPTX, DOC, XLS, PPT)
}
IMAGE_KINDS = frozenset({"jpeg", "png", "tiff"})
OFFICE_XML_KINDS = frozenset({"docx", "xlsx", "pptx"})
LEGACY_OFFICE_KINDS = frozenset({"doc", "xls", "ppt"})

#: ZIP limits (Office XML): more entries than this is a bomb, not a document
MAX_ZIP_ENTRIES = 10_000

_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_TIFF_SIGS = (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")
_OLE_SIG = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_SIGS = (b"PK\x03\x04", b"PK\x05\x06")
_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"

_UNSUPPORTED = (
    "unsupported document type; renamerd reads PDF, JPEG, PNG, TIFF, DOCX, XLSX, PPTX "
    "(and DOC, XLS, PPT where LibreOffice is installed)"
)


def detect(data: bytes, config: EngineConfig) -> DocumentFormat:
    """Return the format of `data`, judged by its content only.

    Raises DocumentTooLarge (more than `config.max_bytes`), UnsupportedDocument (no format we
    read), UnreadableDocument (a ZIP/OLE container that is broken, encrypted, or a bomb).
    Pure and cheap (reads headers and directories only); safe to repeat.
    """
    check_size(len(data), config)
    if not data:
        raise UnsupportedDocument("the document is empty")
    if b"%PDF-" in data[:1024]:
        return PDF
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data.startswith(_PNG_SIG):
        return PNG
    if data[:4] in _TIFF_SIGS:
        return TIFF
    if data[:4] in _ZIP_SIGS:
        return _zip_kind(data)
    if data.startswith(_OLE_SIG):
        return _ole_kind(data)
    raise UnsupportedDocument(_UNSUPPORTED)


def check_size(size: int, config: EngineConfig) -> None:
    """Raise DocumentTooLarge when `size` bytes exceed `config.max_bytes`."""
    if size > config.max_bytes:
        raise DocumentTooLarge(
            f"the document is {_mb(size)} MB; the limit is {_mb(config.max_bytes)} MB"
        )


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}".rstrip("0").rstrip(".")


def zip_entry_count(data: bytes) -> int:
    """Number of entries the ZIP's end-of-central-directory record declares.

    Read straight from the record (ZIP64 aware) so a directory of millions of entries is refused
    before anything parses it. Raises UnreadableDocument when no valid record is found.
    """
    tail_start = max(0, len(data) - (22 + 65535))
    pos = data.rfind(_EOCD, tail_start)
    if pos < 0 or pos + 22 > len(data):
        raise UnreadableDocument("broken ZIP container (no end of central directory)")
    (_sig, _disk, _cd_disk, _n_disk, total, _cd_size, _cd_off, _clen) = struct.unpack(
        "<4sHHHHIIH", data[pos : pos + 22]
    )
    if total != 0xFFFF:
        return int(total)
    loc = pos - 20
    if loc < 0 or data[loc : loc + 4] != _EOCD64_LOCATOR:
        return int(total)
    (eocd64_off,) = struct.unpack("<Q", data[loc + 8 : loc + 16])
    if eocd64_off + 56 > len(data) or data[eocd64_off : eocd64_off + 4] != _EOCD64:
        raise UnreadableDocument("broken ZIP64 container")
    (total64,) = struct.unpack("<Q", data[eocd64_off + 32 : eocd64_off + 40])
    return int(total64)


def _zip_kind(data: bytes) -> DocumentFormat:
    import io
    import zipfile

    count = zip_entry_count(data)
    if count > MAX_ZIP_ENTRIES:
        raise UnreadableDocument(
            f"refused: the ZIP container declares {count} entries (limit {MAX_ZIP_ENTRIES}); "
            "this looks like a zip bomb"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error,
            NotImplementedError) as exc:
        raise UnreadableDocument(f"broken ZIP container: {exc}") from None
    if "word/document.xml" in names:
        return DOCX
    if "xl/workbook.xml" in names:
        return XLSX
    if "ppt/presentation.xml" in names:
        return PPTX
    raise UnsupportedDocument(_UNSUPPORTED)


def _ole_stream(data: bytes, name: str) -> bool:
    """True when an OLE2 directory entry named `name` exists.

    Directory entries are 128-byte records aligned to 128 bytes in the file, starting with the
    UTF-16LE name and holding its byte length (with terminator) at offset 64; requiring both
    the alignment and the length keeps text that merely contains the word from matching.
    """
    needle = name.encode("utf-16-le") + b"\x00\x00"
    length = struct.pack("<H", len(needle))
    start = 512
    while True:
        pos = data.find(needle, start)
        if pos < 0:
            return False
        if pos % 128 == 0 and data[pos + 64 : pos + 66] == length:
            return True
        start = pos + 1


def _ole_kind(data: bytes) -> DocumentFormat:
    if _ole_stream(data, "EncryptedPackage"):
        raise UnreadableDocument("the Office document is password-protected (encrypted)")
    if _ole_stream(data, "WordDocument"):
        return DOC
    if _ole_stream(data, "Workbook") or _ole_stream(data, "Book"):
        return XLS
    if _ole_stream(data, "PowerPoint Document"):
        return PPT
    raise UnsupportedDocument(_UNSUPPORTED)
