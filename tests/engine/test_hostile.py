"""Hostile input is refused quickly, with a clear error and bounded memory.

Each case runs under tracemalloc and a wall clock; the bounds are far above what the refusal
costs (measured: well under a second and ~100 MB for the worst, the PDF flate bomb) and far
below what reading the bomb would cost (a GiB of output, or minutes).
"""

from __future__ import annotations

import io
import re
import struct
import time
import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import docmaker as dm
from renamerd.engine import rename
from renamerd.engine.text import open_text
from renamerd.engine.types import (
    DocumentTooLarge,
    EngineConfig,
    EngineError,
    UnreadableDocument,
)

CFG = EngineConfig()


def _refused(data: bytes, error: type[EngineError], match: str, *, config: EngineConfig = CFG,
             seconds: float = 3.0, megabytes: float = 200.0) -> None:
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(error, match=match):
            doc = open_text(data, config)
            for index in range(doc.page_count):
                doc.page(index)
    finally:
        elapsed = time.monotonic() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.2f} s"
    assert peak < megabytes * 1024 * 1024, f"peak {peak / 1e6:.0f} MB"


def test_pdf_flate_bomb() -> None:
    bomb = dm.pdf_flate_bomb(1024)  # 1 GiB of zeros in ~1 MB
    assert len(bomb) < 2 * 1024 * 1024
    _refused(bomb, UnreadableDocument, "decompression bomb")


def test_zip_bomb_by_ratio() -> None:
    _refused(dm.zip_bomb_ratio(32), UnreadableDocument, "zip bomb", megabytes=20)


def test_zip_bomb_by_entry_count() -> None:
    _refused(dm.zip_bomb_entries(20_000), UnreadableDocument, "20001 entries", megabytes=20)


def test_zip_part_larger_than_declared() -> None:
    _refused(dm.zip_lying_size(32), UnreadableDocument, "word/document.xml", megabytes=40)


def test_png_with_huge_header_is_refused_before_decoding() -> None:
    _refused(dm.png_huge_header(100_000, 100_000), DocumentTooLarge, "pixel limit",
             seconds=1.0, megabytes=5)


def test_png_over_configured_pixels() -> None:
    scan = dm.make_scan(["x"], dpi=50)  # 413 x 584
    _refused(scan, DocumentTooLarge, r"413x584 pixels", config=EngineConfig(max_pixels=200_000),
             megabytes=5)


def test_jpeg_with_huge_frame_header() -> None:
    data = bytearray(dm.make_scan(["x"], fmt="jpeg", dpi=50))
    sof = data.find(b"\xff\xc0")
    struct.pack_into(">HH", data, sof + 5, 60_000, 60_000)  # height, width
    _refused(bytes(data), DocumentTooLarge, "pixel", seconds=1.0, megabytes=5)


def test_tiff_frame_over_limit() -> None:
    data = dm.make_tiff([["a"], ["b"]], dpi=50)
    _refused(data, DocumentTooLarge, "pixels", config=EngineConfig(max_pixels=100_000),
             megabytes=5)


def test_pdf_image_checked_from_its_dictionary() -> None:
    """A scanned page whose image declares 100000 x 100000 pixels: refused, never decoded."""
    image = dm.flate_zeros(1)
    pdf = dm._raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /XObject << /Im0 5 0 R >> >> >>",
        b"<< /Length 27 >>\nstream\nq 595 0 0 842 0 0 cm /Im0 Do Q\nendstream",
        f"<< /Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace "
        f"/DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length {len(image)} >>\n"
        f"stream\n".encode() + image + b"\nendstream",
    ])
    _refused(pdf, DocumentTooLarge, "100000x100000", seconds=1.0, megabytes=20)


def test_too_many_pdf_pages() -> None:
    _refused(dm.pdf_many_pages(30), DocumentTooLarge, "30 pages; the limit is 20",
             config=EngineConfig(max_pages=20), megabytes=20)


def test_too_many_tiff_pages() -> None:
    data = dm.make_tiff([["p"]] * 4, dpi=30)
    _refused(data, DocumentTooLarge, "more than 3 pages", config=EngineConfig(max_pages=3))


def test_encrypted_pdf() -> None:
    _refused(dm.make_encrypted_pdf(["secret"]), UnreadableDocument, "password-protected")


def test_empty_password_pdf_is_read() -> None:
    doc = open_text(dm.make_encrypted_pdf(["Open to everyone"], password=""), CFG)
    assert "Open to everyone" in doc.page(0)


@pytest.mark.parametrize("cut", [0.25, 0.5, 0.9])
def test_truncated_pdf(cut: float) -> None:
    data = dm.make_pdf(["Invoice"] * 40)
    _refused(data[: int(len(data) * cut)], UnreadableDocument, "truncated")


def test_pdf_garbage_body() -> None:
    _refused(b"%PDF-1.7\n" + b"\x8f garbage " * 500 + b"\n%%EOF\n", UnreadableDocument,
             "broken PDF|no pages")


def test_a_broken_pdf_is_named_in_words_not_by_the_parsers_exception() -> None:
    """The user reads what failed; the parser's exception class goes to the log only."""
    data = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages"
            b"/Kids[3 0 R]/Count 1>>endobj\n3 0 obj 5 endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
    with pytest.raises(UnreadableDocument) as refused:
        rename(data, "x.pdf")
    message = str(refused.value)
    assert message.startswith("broken PDF: its structure is damaged (")
    assert not re.search(r"[A-Z][a-z]+Error|Exception", message), message


def test_truncated_png() -> None:
    data = dm.make_scan(["Invoice 12"], dpi=60)
    _refused(data[: len(data) // 2], UnreadableDocument, "broken image")


def test_xml_entities_are_refused() -> None:
    """Billion laughs in document.xml: defusedxml refuses entity declarations."""
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
              b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/'
              b'main"><w:body><w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>')
    data = dm._docx_with_document(laughs)
    _refused(data, UnreadableDocument, "broken Office part")


SEEDS: dict[str, Callable[[], bytes]] = {
    "pdf": lambda: dm.make_pdf(["Invoice 1", "Date 2024-01-02"]),
    "docx": lambda: dm.make_docx(["Invoice 1"], header=["Head"]),
    "xlsx": lambda: dm.make_xlsx([[["Invoice", 1]]]),
    "png": lambda: dm.make_scan(["I"], dpi=20),
}
_SEED_BYTES = {name: make() for name, make in SEEDS.items()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(SEEDS)),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
                   min_size=1, max_size=8),
)
def test_corrupted_files_raise_only_engine_errors(kind: str,
                                                  flips: list[tuple[float, int]]) -> None:
    """Random byte damage never escapes as anything but an EngineError, and never hangs.

    (Pages are read with OCR off, to keep the run short; OCR input is an image already checked.)
    """
    data = bytearray(_SEED_BYTES[kind])
    for where, value in flips:
        data[int(where * len(data))] = value
    start = time.monotonic()
    try:
        doc = open_text(bytes(data), EngineConfig(ocr_max_pages=0))
        for index in range(doc.page_count):
            doc.page(index)
    except EngineError:
        pass
    assert time.monotonic() - start < 5


def test_reader_does_not_touch_the_caller_bytes() -> None:
    data = dm.make_docx(["x"])
    copy = bytes(data)
    open_text(data, CFG).page(0)
    assert data == copy and isinstance(io.BytesIO(data).read(), bytes)
