"""detect(): formats recognised by their bytes, never by their name."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from engine import docmaker as dm
from renamerd.engine.formats import FORMATS, detect, zip_entry_count
from renamerd.engine.types import (
    DocumentTooLarge,
    EngineConfig,
    UnreadableDocument,
    UnsupportedDocument,
)

CFG = EngineConfig()
LINES = ["ACME GmbH", "Rechnung 2024-17", "Datum: 01.02.2024"]

SAMPLES = {
    "pdf": lambda: dm.make_pdf(LINES),
    "jpeg": lambda: dm.make_scan(LINES, fmt="jpeg", dpi=50),
    "png": lambda: dm.make_scan(LINES, fmt="png", dpi=50),
    "tiff": lambda: dm.make_tiff([LINES, LINES], dpi=50),
    "docx": lambda: dm.make_docx(LINES),
    "xlsx": lambda: dm.make_xlsx([[["a", 1]]]),
    "pptx": lambda: dm.make_pptx([LINES]),
    "doc": lambda: dm.make_ole("doc"),
    "xls": lambda: dm.make_ole("xls"),
    "ppt": lambda: dm.make_ole("ppt"),
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_format_is_recognised_by_its_bytes(kind: str) -> None:
    fmt = detect(SAMPLES[kind](), CFG)
    assert fmt == FORMATS[kind]
    assert fmt.extension.startswith(".")
    assert "/" in fmt.mime


def test_misnamed_file_is_judged_by_content(tmp_path: Path) -> None:
    misnamed = tmp_path / "invoice.pdf"
    misnamed.write_bytes(dm.make_scan(LINES, fmt="png", dpi=50))
    fmt = detect(misnamed.read_bytes(), CFG)
    assert (fmt.kind, fmt.extension, fmt.mime) == ("png", ".png", "image/png")


def test_pdf_header_after_leading_junk() -> None:
    assert detect(b"\r\n%junk\n" + dm.make_pdf(LINES), CFG).kind == "pdf"


@pytest.mark.parametrize(
    "data",
    [
        b"plain text, not a document",
        b"GIF89a" + b"\x00" * 100,
        b"\x00\x01\x02",
        dm._zip({"hello.txt": "not office"}),
    ],
    ids=["text", "gif", "binary", "plain-zip"],
)
def test_unsupported_bytes(data: bytes) -> None:
    with pytest.raises(UnsupportedDocument, match="unsupported document type"):
        detect(data, CFG)


def test_empty_file() -> None:
    with pytest.raises(UnsupportedDocument, match="empty"):
        detect(b"", CFG)


def test_over_max_bytes() -> None:
    data = dm.make_pdf(LINES)
    with pytest.raises(DocumentTooLarge, match="limit"):
        detect(data, EngineConfig(max_bytes=len(data) - 1))
    assert detect(data, EngineConfig(max_bytes=len(data))).kind == "pdf"


def test_password_protected_office_file() -> None:
    with pytest.raises(UnreadableDocument, match="password"):
        detect(dm.make_ole("encrypted"), CFG)


def test_ole_name_must_be_a_directory_entry() -> None:
    """The stream name only counts at a 128-byte aligned directory slot with its length."""
    data = bytearray(dm.make_ole("doc"))
    name = "WordDocument".encode("utf-16-le")
    pos = bytes(data).find(name)
    data[pos: pos + len(name)] = "WordXocument".encode("utf-16-le")  # no real entry now
    data += b"\x00\x00" + name + b"\x00\x00"  # the name in content, unaligned
    with pytest.raises(UnsupportedDocument):
        detect(bytes(data), CFG)


def test_zip_entry_count_read_from_end_record() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(7):
            zf.writestr(f"f{i}", b"x")
    assert zip_entry_count(buf.getvalue()) == 7
    with pytest.raises(UnreadableDocument):
        zip_entry_count(b"PK\x03\x04 no end record")


def test_zip_without_end_record_is_broken() -> None:
    with pytest.raises(UnreadableDocument, match="broken ZIP"):
        detect(dm.make_docx(LINES)[:200], CFG)
