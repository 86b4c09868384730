"""A real legacy Word file (.doc) through the engine with the real LibreOffice.

The .doc is made here from a generated .docx by LibreOffice itself; skipped where LibreOffice is
not installed (scripts/system-deps test installs it). The stand-in converter tests in
test_text.py cover the failure paths (timeout, crash, missing binary).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engine import docmaker as dm
from renamerd.engine import rename
from renamerd.engine.formats import detect
from renamerd.engine.readers.legacy import find_soffice
from renamerd.engine.types import EngineConfig, RenameOptions

pytestmark = pytest.mark.slow

LINES = ["Northwind Traders Ltd", "12 High Street, London EC1A 1BB", "INVOICE",
         "Invoice number: INV-2024-0042", "Invoice date: 14 March 2024",
         "Consulting services 1,200.00", "Total amount due 1,728.00 GBP"]


def _to_doc(soffice: str, tmp_path: Path) -> bytes:
    source = tmp_path / "invoice.docx"
    source.write_bytes(dm.make_docx(LINES))
    profile = (tmp_path / "profile").as_uri()
    subprocess.run([soffice, f"-env:UserInstallation={profile}", "--headless", "--norestore",
                    "--convert-to", "doc", "--outdir", str(tmp_path / "out"), str(source)],
                   check=True, capture_output=True, timeout=120)
    return (tmp_path / "out" / "invoice.doc").read_bytes()


def test_a_real_doc_file_is_renamed(tmp_path: Path) -> None:
    soffice = find_soffice()
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    data = _to_doc(soffice, tmp_path)
    assert data[:8] == bytes.fromhex("d0cf11e0a1b11ae1")  # an OLE2 compound file
    assert detect(data, EngineConfig()).kind == "doc"

    result = rename(data, "scan0001.doc", RenameOptions(), EngineConfig(ocr_timeout_s=120))
    assert result.extension == ".doc" and result.mime_type == "application/msword"
    info = result.extracted_info
    assert info["date"] == "2024-03-14"
    assert info["issuer"] == "Northwind Traders Ltd"
    assert info["invoice_number"] == "INV-2024-0042"
    assert info["document_type"] == "invoice"
    assert result.suggested_filename.endswith(".doc")
    assert "Northwind" in result.suggested_filename
