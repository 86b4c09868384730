"""The engine's caps on work, case by case (fast; the attacks themselves: tests/security/).

Text per page and per document (every reader), the Office reader's structural caps, and
the PDF reader's content budget (readers/pdf_cost.py), each with the clear refusal or the
truncation it promises, and ordinary documents read as before.
"""

from __future__ import annotations

import pytest

from engine import docmaker as dm
from renamerd.config import load_settings
from renamerd.engine import rename
from renamerd.engine.readers import office
from renamerd.engine.readers.pdf import PdfPages
from renamerd.engine.text import open_text
from renamerd.engine.types import DocumentTooLarge, EngineConfig, UnreadableDocument
from security import hostile as h

# --- text caps (DocumentText) ---------------------------------------------------------------


def test_page_and_document_text_caps_apply_to_pdf_text() -> None:
    lines = [f"Line {i} of the invoice text, long enough to count" for i in range(40)]
    data = dm.make_pdf_pages([lines, lines, lines])
    config = EngineConfig(max_page_chars=1000, max_document_chars=1500, ocr_max_pages=0)
    doc = open_text(data, config)
    first, second, third = doc.page(0), doc.page(1), doc.page(2)
    assert len(first) == 1000 and first.startswith("Line 0")
    assert len(second) == 500
    assert third == ""  # the document's share is used up: not read at all


def test_text_caps_apply_to_office_text() -> None:
    data = dm.make_xlsx([[[f"Item {r}", r] for r in range(500)]])
    doc = open_text(data, EngineConfig(max_page_chars=1000))
    text = doc.page(0)
    assert text.startswith("Item 0\t0") and len(text) <= 1000


def test_office_reading_stops_at_the_document_cap() -> None:
    sheets = [[[f"Sheet {s} row {r}"] for r in range(200)] for s in range(3)]
    pages = office.OfficePages(dm.make_xlsx(sheets), "xlsx",
                               EngineConfig(max_document_chars=2000, max_page_chars=1500))
    assert pages.pages[0].startswith("Sheet 0 row 0")
    assert len(pages.pages[0]) < 1600  # the sheet stops at its page's share (a row over)
    assert pages.budget.size <= 2000
    assert pages.pages[2] == ""  # never parsed: the document's share was used up


def test_defaults_leave_an_ordinary_document_whole() -> None:
    lines = ["ACME GmbH", "Rechnung Nr. 2024-17", "Rechnungsdatum: 03.04.2024",
             "Summe: 119,00 EUR"]
    result = rename(dm.make_pdf(lines), "x.pdf")
    assert result.extracted_info["date"] == "2024-04-03"
    assert result.extracted_info["invoice_number"] == "2024-17"


# --- Office structural caps -----------------------------------------------------------------


def _sheet_with_row(cells: int) -> bytes:
    row = "".join(f'<c t="inlineStr"><is><t>c{i}</t></is></c>' for i in range(cells))
    xml = (f'<worksheet xmlns="{dm._S}"><sheetData><row r="1">{row}</row>'
           '<row r="2"><c t="inlineStr"><is><t>second row</t></is></c></row>'
           "</sheetData></worksheet>")
    return dm._zip({"[Content_Types].xml": dm._CT.format(""),
                    "xl/workbook.xml": f'<workbook xmlns="{dm._S}"><sheets/></workbook>',
                    "xl/worksheets/sheet1.xml": xml})


def test_xlsx_row_stops_at_the_cell_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(office, "MAX_CELLS_PER_ROW", 50)
    text = open_text(_sheet_with_row(80), EngineConfig()).page(0)
    assert text.startswith("c0\tc1") and "c49" in text
    assert "c50" not in text and "second row" not in text  # the sheet stops there


def test_docx_paragraph_stops_at_the_run_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(office, "MAX_RUNS_PER_PARAGRAPH", 100)
    runs = "".join(f"<w:r><w:t>r{i} </w:t></w:r>" for i in range(300))
    xml = (f'<w:document xmlns:w="{dm._W}"><w:body><w:p><w:r><w:t>Invoice </w:t></w:r>{runs}'
           "</w:p><w:p><w:r><w:t>after</w:t></w:r></w:p></w:body></w:document>")
    text = open_text(dm._docx_with_document(xml.encode()), EngineConfig()).page(0)
    assert text.startswith("Invoice r0 r1") and "r98" in text
    assert "r200" not in text and "after" not in text


def test_office_part_stops_at_the_element_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(office, "MAX_PART_ELEMENTS", 200)
    data = dm.make_docx([f"Paragraph {i}" for i in range(300)])
    text = open_text(data, EngineConfig()).page(0)
    assert text.startswith("Paragraph 0\nParagraph 1")
    assert "Paragraph 299" not in text


def test_office_reader_keeps_no_ended_element() -> None:
    """The streamed parse drops each element from its parent once handled: the body never
    holds more than one parser batch of paragraphs, and nothing is left at the end."""
    data = dm.make_docx([f"Paragraph {i}" for i in range(5000)])
    zf = office.check_zip(data)
    root = body = None
    most = 0
    for event, elem in office._events(zf, "word/document.xml"):
        tag = office._local(elem.tag)
        if root is None:
            root = elem
        if event == "start" and tag == "body":
            body = elem
        if event == "end" and tag == "p" and body is not None:
            most = max(most, len(body))
    assert root is not None and len(root) == 0
    assert 0 < most < 1000


# --- PDF content budget ---------------------------------------------------------------------


def test_pdf_page_over_the_content_limit_is_refused_by_name() -> None:
    data = h.pdf_dates_line(10_000)  # about 280 KB of content
    with pytest.raises(DocumentTooLarge, match=r"page 1 of the PDF .* the limit is 0.1 MB"):
        PdfPages(data, EngineConfig(max_page_content_bytes=100 * 1024)).text(0)
    assert "Datum 01.03.2021" in PdfPages(data, EngineConfig()).text(0)


def test_pdf_form_drawn_a_few_times_is_read() -> None:
    data = h.pdf_form_fanout(draws=3, form_kb=1)
    pages = PdfPages(data, EngineConfig())
    assert pages.content_cost(0).content_bytes > 3 * 1024
    assert pages.text(0).count("Invoice 2024") > 3 * 70


def test_pdf_form_drawing_itself_is_refused() -> None:
    form = h.flate_stream(b"/Fm0 Do", b"/Type /XObject /Subtype /Form /BBox [0 0 9 9] "
                          b"/Resources << /XObject << /Fm0 5 0 R >> >>")
    data = h.raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /XObject << /Fm0 5 0 R >> >> >>",
        h.flate_stream(b"/Fm0 Do"), form])
    with pytest.raises(UnreadableDocument, match="draws itself"):
        PdfPages(data, EngineConfig()).text(0)


def test_pdf_forms_nested_too_deep_are_refused() -> None:
    depth = 14
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               b"/Resources << /XObject << /F 5 0 R >> >> >>",
               h.flate_stream(b"/F Do")]
    for level in range(depth):
        inner = f"/Resources << /XObject << /F {6 + level} 0 R >> >>".encode()
        objects.append(h.flate_stream(b"/F Do", b"/Type /XObject /Subtype /Form "
                                      b"/BBox [0 0 9 9] " + inner))
    with pytest.raises(UnreadableDocument, match="more than 12 deep"):
        PdfPages(h.raw_pdf(objects), EngineConfig()).text(0)


def test_pdf_name_escapes_do_not_hide_a_drawn_form() -> None:
    """`/F#6d0 Do` draws /Fm0 too: it counts."""
    text = b"BT /F1 9 Tf (" + b"x" * 20_000 + b") Tj ET"
    form = h.flate_stream(text, b"/Type /XObject /Subtype /Form /BBox [0 0 9 9] "
                          b"/Resources << /Font << /F1 6 0 R >> >>")
    data = h.raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /XObject << /Fm0 5 0 R >> >> >>",
        h.flate_stream(b"/F#6d0 Do\n" * 200), form,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"])
    with pytest.raises(DocumentTooLarge, match="counting each form"):
        PdfPages(data, EngineConfig(max_page_content_bytes=1024 * 1024)).text(0)


def test_pdf_page_tree_limits_are_named_for_pages() -> None:
    with pytest.raises(DocumentTooLarge, match="page tree holds more pages"):
        PdfPages(h.pdf_lying_page_tree(2000), EngineConfig(max_pages=100))


# --- configuration --------------------------------------------------------------------------


def test_engine_section_sets_the_caps(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[engine]\nmax_page_chars = 5000\nmax_document_chars = 9000\n"
                    "max_page_content_bytes = 1048576\n")
    config = load_settings(path).engine_config()
    assert (config.max_page_chars, config.max_document_chars,
            config.max_page_content_bytes) == (5000, 9000, 1048576)
    defaults = EngineConfig()
    assert (defaults.max_page_chars, defaults.max_document_chars,
            defaults.max_page_content_bytes) == (100_000, 300_000, 2 * 1024 * 1024)
