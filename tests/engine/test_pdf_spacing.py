"""Letter-spaced and small-capital words a PDF's text layer parts with blanks, written whole."""

from __future__ import annotations

import io

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from renamerd.engine import rename
from renamerd.engine.readers.pdf import PdfPages
from renamerd.engine.readers.pdf_spacing import joined_words, tabs_as_blanks
from renamerd.engine.text import open_text
from renamerd.engine.types import EngineConfig, RenameOptions


@pytest.mark.parametrize(("line", "whole"), [
    # CSS letter-spacing, as pypdf reads Chromium's PDF: blanks between glyphs, two between words
    ("H Ô T E L  L E  M A R A I S  É T O I L E", "HÔTEL LE MARAIS ÉTOILE"),
    ("★ ★ ★ ★  ·  P A R I S", "★ ★ ★ ★ · PARIS"),
    # font-variant: small-caps, a large capital drawn apart from the small ones
    ("R EDWOOD  & P INE  C ABINETRY", "REDWOOD & PINE CABINETRY"),
    ("O FFICINA  G RAFICA  B ELLÙ  S. R . L .", "OFFICINA GRAFICA BELLÙ S.R.L."),
])
def test_parted_words_are_written_whole(line: str, whole: str) -> None:
    assert joined_words(f"Invoice\n{line}\nTotal 12.00") == f"Invoice\n{whole}\nTotal 12.00"


@pytest.mark.parametrize("line", [
    "Qty  Price  Amount",  # columns two blanks apart
    "A MART  KAJANG",  # one capital before a word: a name may be so ("A MART")
    "J P  MORGAN  CHASE",  # initials stay initials
    "1 X  2 X  3",  # digits are never glyphs spaced apart
    "I N V O I C E",  # one blank between letters only: a title the type rules read as one
    "P A Y",  # too short to be sure on its own
])
def test_other_lines_stay_as_they_are(line: str) -> None:
    assert joined_words(line) == line


def _letter_spaced_pdf() -> bytes:
    """A page whose shop name is drawn one glyph at a time, 6 pt apart (as a browser draws
    `letter-spacing`: a text position before each glyph), then an invoice's lines."""
    out = io.BytesIO()
    page = canvas.Canvas(out)
    text = page.beginText(50, 780)
    text.setFont("Helvetica-Bold", 18)
    for glyph in "HÔTEL LE MARAIS ÉTOILE":
        text.textOut(glyph)
        text.moveCursor(stringWidth(glyph, "Helvetica-Bold", 18) + 6, 0)
    page.drawText(text)
    page.setFont("Helvetica", 11)
    for i, line in enumerate(["27 rue Vieille-du-Temple, 75004 Paris", "Facture N° 88214",
                              "Date 16/03/2025", "Total TTC 892,20 EUR"]):
        page.drawString(50, 740 - 16 * i, line)
    page.showPage()
    page.save()
    return out.getvalue()


def test_a_letter_spaced_name_is_read_whole_and_names_the_file() -> None:
    data = _letter_spaced_pdf()
    assert open_text(data, EngineConfig()).page(0).splitlines()[0] == "HÔTEL LE MARAIS ÉTOILE"
    result = rename(data, "folio.pdf", RenameOptions())
    assert result.extracted_info["issuer"] == "HÔTEL LE MARAIS ÉTOILE"


def test_blanks_drawn_as_tabs_are_blanks_and_the_page_is_read_in_visual_order() -> None:
    # Debian's wkhtmltopdf (Odoo's invoices) draws each glyph on its own and a blank as a tab
    page = "Harrowgate\tJoinery\tLtd\n12\tMill\tLane\tHarrogate\nInvoice\tINV/2025/00042"
    assert tabs_as_blanks(page) == ("Harrowgate Joinery Ltd\n12 Mill Lane Harrogate\n"
                                    "Invoice INV/2025/00042")
    assert PdfPages.words_apart(page)
    # a tab between columns of a page written with blanks stays
    columns = "Invoice number\tINV-42\nInvoice date\t14 March 2024\nTotal due 1,440.00 GBP"
    assert tabs_as_blanks(columns) == columns and not PdfPages.words_apart(columns)
