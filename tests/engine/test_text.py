"""open_text(): lazy page texts from every format, OCR only where and when needed."""

from __future__ import annotations

import datetime as dt
import io
import stat
import tempfile
import time
from pathlib import Path

import pypdf
import pytest
from PIL import Image

from engine import docmaker as dm
from renamerd.engine.readers.images import ImagePages, ocr_scale
from renamerd.engine.readers.langid import guess_language
from renamerd.engine.readers.legacy import convert_command
from renamerd.engine.text import open_text
from renamerd.engine.types import EngineConfig, UnreadableDocument, UnsupportedDocument

CFG = EngineConfig()
INVOICE = [
    "Northwind Traders Ltd",
    "12 High Street, London",
    "",
    "INVOICE",
    "Invoice number: INV-2024-0042",
    "Invoice date: 14 March 2024",
    "Total amount due: 1,440.00 GBP",
]
RECHNUNG = [
    "Müller & Söhne GmbH",
    "Hauptstraße 5, 80331 München",
    "",
    "Rechnung Nr. 4711",
    "Rechnungsdatum: 03.04.2024",
    "Sehr geehrte Damen und Herren, wir bedanken uns für Ihren Auftrag.",
    "Bitte überweisen Sie den Betrag von 120,00 EUR bis zum 17.04.2024.",
    "Die Lieferung erfolgte gemäß unseren Bedingungen und der Vereinbarung mit Ihnen.",
]


def _words(text: str) -> str:
    return " ".join(text.split())


def test_text_pdf_reads_layer_without_ocr() -> None:
    doc = open_text(dm.make_pdf(INVOICE), CFG)
    assert doc.format.kind == "pdf" and doc.page_count == 1
    assert doc.pages_read == 0
    text = doc.page(0)
    assert "Invoice number: INV-2024-0042" in text
    assert (doc.pages_read, doc.ocr_used, doc.ocr_pages, doc.ocr_languages) == (1, False, 0, None)
    assert doc.page(0) is text  # cached


def test_pages_are_read_lazily_and_index_checked() -> None:
    doc = open_text(dm.make_pdf_pages([["page one"] * 3, ["page two"] * 3, ["page three"]]), CFG)
    assert doc.page_count == 3
    assert "page two" in doc.page(1)
    assert doc.pages_read == 1
    with pytest.raises(IndexError):
        doc.page(3)
    with pytest.raises(IndexError):
        doc.page(-1)
    assert doc.text().count("\f") == 2 and doc.pages_read == 3


def test_scanned_pdf_ocrs_only_the_page_asked_for() -> None:
    data = dm.make_scanned_pdf([INVOICE, ["Page two", "Terms and conditions apply"]])
    doc = open_text(data, CFG)
    assert doc.page_count == 2 and not doc.ocr_used
    assert "INV-2024-0042" in doc.page(0)
    assert doc.ocr_used and doc.ocr_pages == 1 and doc.pages_read == 1
    assert doc.ocr_languages == "eng"
    assert "Terms and conditions" in doc.page(1)
    assert doc.ocr_pages == 2


def test_mixed_pdf_ocrs_only_scanned_pages() -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for part in (dm.make_pdf(INVOICE), dm.make_scanned_pdf([["Scanned appendix page"]])):
        for page in PdfReader(io.BytesIO(part)).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    doc = open_text(out.getvalue(), CFG)
    assert "Northwind" in doc.page(0) and not doc.ocr_used
    assert "Scanned appendix" in doc.page(1) and doc.ocr_pages == 1


@pytest.mark.parametrize("fmt", ["png", "jpeg", "tiff"])
def test_image_formats_are_ocrd(fmt: str) -> None:
    doc = open_text(dm.make_scan(INVOICE, fmt=fmt, noise=0.02), CFG)
    assert doc.format.kind == fmt and doc.page_count == 1
    text = _words(doc.page(0))
    assert "Invoice number: INV-2024-0042" in text and "14 March 2024" in text
    assert doc.ocr_used


def test_multi_page_tiff_has_a_page_per_frame() -> None:
    pages = [["Frame one", "Alpha"], ["Frame two", "Bravo"], ["Frame three", "Charlie"]]
    doc = open_text(dm.make_tiff(pages), CFG)
    assert doc.page_count == 3
    assert "Charlie" in doc.page(2) and doc.ocr_pages == 1
    assert "Alpha" in doc.page(0) and "Bravo" not in doc.page(0)


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_rotated_scan_is_read_upright(rotate: int) -> None:
    doc = open_text(dm.make_scan(INVOICE, rotate=rotate), CFG)
    text = _words(doc.page(0))
    assert "Invoice number: INV-2024-0042" in text
    assert "Northwind Traders" in text


def test_pdf_page_rotation_is_applied() -> None:
    doc = open_text(dm.make_scanned_pdf([INVOICE], rotate=90, page_rotation=270), CFG)
    assert "INV-2024-0042" in doc.page(0)


def test_second_language_is_chosen_from_the_text() -> None:
    doc = open_text(dm.make_scan(RECHNUNG), CFG)
    text = doc.page(0)
    assert doc.ocr_languages == "eng,deu"
    assert "Müller & Söhne GmbH" in text and "München" in text


def test_configured_language_is_used_first() -> None:
    doc = open_text(dm.make_scan(RECHNUNG), EngineConfig(ocr_languages=("de",)))
    assert "Müller" in doc.page(0)
    assert doc.ocr_languages == "deu"


def test_ocr_budget_stops_at_ocr_max_pages() -> None:
    doc = open_text(dm.make_tiff([["First page text"], ["Second page text"]]),
                    EngineConfig(ocr_max_pages=1))
    assert "First page" in doc.page(0)
    assert doc.page(1) == "" and doc.ocr_pages == 1


def test_ocr_timeout_is_enforced() -> None:
    doc = open_text(dm.make_scan(INVOICE), EngineConfig(ocr_timeout_s=0.001))
    with pytest.raises(UnreadableDocument, match="OCR took longer"):
        doc.page(0)


def test_missing_tesseract_is_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RENAMERD_TESSERACT", "/nonexistent/tesseract")
    doc = open_text(dm.make_scan(INVOICE), EngineConfig(ocr="tesseract"))
    with pytest.raises(UnsupportedDocument, match="tesseract is not installed"):
        doc.page(0)


def test_without_tesseract_auto_reads_with_pp_ocr_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RENAMERD_TESSERACT", "/nonexistent/tesseract")
    doc = open_text(dm.make_scan(INVOICE), CFG)
    assert "INV-2024-0042" in doc.page(0).replace(" ", "")
    assert doc.ocr_backends == ["rapidocr"]


def test_docx_header_body_footer_and_page_breaks() -> None:
    data = dm.make_docx(["Invoice INV-9", "Date\t2024-01-31", "Page two body"],
                        header=["Contoso Ltd letterhead"], footer=["VAT GB 123 4567 89"],
                        page_break_before=[2])
    doc = open_text(data, CFG)
    assert doc.page_count == 2
    first = doc.page(0).splitlines()
    assert first == ["Contoso Ltd letterhead", "Invoice INV-9", "Date\t2024-01-31",
                     "VAT GB 123 4567 89"]
    assert doc.page(1) == "Page two body"


def test_xlsx_sheets_strings_numbers_and_dates() -> None:
    data = dm.make_xlsx([
        [["Invoice", "INV-77"], ["Date", dt.date(2024, 2, 29)], ["Total", 99.5]],
        [["Second sheet"]],
    ])
    doc = open_text(data, CFG)
    assert doc.page_count == 2
    assert doc.page(0).splitlines() == ["Invoice\tINV-77", "Date\t2024-02-29", "Total\t99.5"]
    assert doc.page(1) == "Second sheet"


def test_pptx_one_page_per_slide() -> None:
    doc = open_text(dm.make_pptx([["Quarterly report", "Fabrikam"], ["Thanks"]]), CFG)
    assert doc.page_count == 2
    assert doc.page(0) == "Quarterly report\nFabrikam" and doc.page(1) == "Thanks"


def test_legacy_office_without_libreoffice(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no soffice on an empty PATH
    monkeypatch.delenv("RENAMERD_SOFFICE", raising=False)
    for kind in ("doc", "xls", "ppt"):
        with pytest.raises(UnsupportedDocument, match="LibreOffice"):
            open_text(dm.make_ole(kind), CFG)


def test_convert_command_isolates_profile_and_output(tmp_path: Path) -> None:
    cmd = convert_command("/usr/bin/soffice", tmp_path / "document.doc", tmp_path)
    assert cmd[0] == "/usr/bin/soffice"
    assert f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}" in cmd
    assert cmd[cmd.index("--convert-to") + 1] == "pdf"
    assert cmd[cmd.index("--outdir") + 1] == str(tmp_path / "out")
    assert "--headless" in cmd and cmd[-1] == str(tmp_path / "document.doc")


def _fake_soffice(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "soffice"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_legacy_conversion_with_a_stand_in_converter(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """A script speaking soffice's command line: checks the arguments, writes the PDF."""
    pdf = tmp_path / "converted.pdf"
    pdf.write_bytes(dm.make_pdf(["Converted from DOC", "Invoice 31337"]))
    script = _fake_soffice(tmp_path, f"""
case "$1" in -env:UserInstallation=file://*) ;; *) exit 3;; esac
[ "$2" = --headless ] || exit 4
for last; do :; done
outdir=""; prev=""
for a in "$@"; do [ "$prev" = --outdir ] && outdir="$a"; prev="$a"; done
mkdir -p "$outdir" && cp {pdf} "$outdir/$(basename "${{last%.*}}").pdf"
""")
    monkeypatch.setenv("RENAMERD_SOFFICE", str(script))
    doc = open_text(dm.make_ole("doc"), CFG)
    assert doc.format.kind == "doc" and doc.format.extension == ".doc"
    assert "Invoice 31337" in doc.page(0)


def test_legacy_conversion_timeout_kills_converter(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    script = _fake_soffice(tmp_path, "sleep 30\n")
    monkeypatch.setenv("RENAMERD_SOFFICE", str(script))
    with pytest.raises(UnreadableDocument, match="longer than"):
        open_text(dm.make_ole("xls"), EngineConfig(ocr_timeout_s=0.5))


def test_legacy_conversion_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RENAMERD_SOFFICE", str(_fake_soffice(tmp_path, "exit 1\n")))
    with pytest.raises(UnreadableDocument, match="could not convert"):
        open_text(dm.make_ole("ppt"), CFG)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Rechnung fur Ihre Bestellung, bitte zahlen Sie den Betrag mit der Uberweisung", "deu"),
        ("Facture pour votre commande, le montant est du avec les frais et des taxes", "fra"),
        ("Invoice for your order, please pay the amount due with the reference", "eng"),
        ("Factuur voor uw bestelling, het bedrag is voor de betaling van een", "nld"),
        ("ok", None),
    ],
)
def test_guess_language(text: str, lang: str | None) -> None:
    assert guess_language(text) == lang


def test_no_stray_files_left_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    open_text(dm.make_scan(["Short text"], dpi=100), CFG).page(0)
    assert list(tmp_path.iterdir()) == []


def test_converter_timeout_leaves_no_process(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    """The converter's own children (here: sleep) die with it: its process group is killed."""
    pidfile = tmp_path / "child.pid"
    script = _fake_soffice(tmp_path, f"sleep 30 & echo $! > {pidfile}\nwait\n")
    monkeypatch.setenv("RENAMERD_SOFFICE", str(script))
    with pytest.raises(UnreadableDocument):
        open_text(dm.make_ole("doc"), EngineConfig(ocr_timeout_s=0.5))
    stat_file = Path(f"/proc/{int(pidfile.read_text())}/stat")

    def gone() -> bool:  # SIGKILLed processes take a moment to finish exiting
        try:
            return stat_file.read_text().split()[2] in ("Z", "X")
        except (FileNotFoundError, ProcessLookupError):
            return True

    deadline = time.monotonic() + 3
    while not gone() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone()


def test_ocr_scale_keeps_about_300_dpi() -> None:
    assert ocr_scale(2480, 3508) == 1  # A4 at 300 dpi
    assert ocr_scale(4960, 7016) == 2  # 600 dpi
    assert ocr_scale(9920, 14032) == 4  # 1200 dpi
    assert ocr_scale(4032, 3024) == 1  # phone photo


def test_big_jpeg_is_decoded_grey_at_reduced_size() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (4960, 7016), "white").save(buf, format="JPEG")
    pages = ImagePages(buf.getvalue(), CFG)
    page = pages.image_of(0)
    assert page.mode == "L" and page.size == (2480, 3508)


def _encoded(mode: str, fmt: str, **kwargs: object) -> bytes:
    page = dm.render_page(["Invoice number INV-77", "Contoso Ltd"], dpi=150)
    wide = page.convert("I").point(lambda v: v * 256)
    img = wide.convert("I;16") if mode == "I;16" else page.convert(mode)
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("mode", "fmt", "kwargs"),
    [("I;16", "PNG", {}), ("CMYK", "JPEG", {}), ("RGBA", "PNG", {}),
     ("1", "TIFF", {"compression": "group4"})],
    ids=["png-16bit", "jpeg-cmyk", "png-alpha", "tiff-g4"],
)
def test_image_modes_are_normalised_for_ocr(mode: str, fmt: str,
                                            kwargs: dict[str, object]) -> None:
    doc = open_text(_encoded(mode, fmt, **kwargs), CFG)
    assert "Invoice number INV-77" in doc.page(0)


def test_scan_under_a_short_text_stamp_is_ocrd() -> None:
    stamp = "Received 2024-03-20 by the mail room, scanned batch 77"
    doc = open_text(dm.make_scanned_pdf([INVOICE], stamp=stamp), CFG)
    text = doc.page(0)
    assert doc.ocr_used
    assert text.startswith(stamp)
    assert "INV-2024-0042" in text


def test_short_born_digital_page_with_a_logo_is_not_ocrd() -> None:
    doc = open_text(dm.make_pdf_pages([["Thank you", "for your order"]], logo_px=(300, 100)), CFG)
    assert "Thank you" in doc.page(0)
    assert not doc.ocr_used


def test_exif_orientation_is_applied() -> None:
    page = Image.open(io.BytesIO(dm.make_scan(INVOICE, rotate=90, fmt="jpeg")))
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to view": what a phone writes for this picture
    buf = io.BytesIO()
    page.save(buf, format="JPEG", exif=exif.tobytes())
    pages = ImagePages(buf.getvalue(), CFG)
    upright = pages.image_of(0)
    assert upright.height > upright.width
    assert "INV-2024-0042" in open_text(buf.getvalue(), CFG).page(0)


def test_plain_image_goes_to_tesseract_undecoded() -> None:
    from renamerd.engine.ocr.tesseract import OcrSession, PageImage

    def must_not_decode() -> Image.Image:
        raise AssertionError("decoded although tesseract reads the file as is")

    data = dm.make_scan(INVOICE, fmt="png")
    assert ImagePages(data, CFG).native_file() == (data, ".png")
    reading = OcrSession(CFG).read(PageImage(must_not_decode, (data, ".png")))
    assert "INV-2024-0042" in reading.text


def test_file_tesseract_cannot_read_is_decoded_instead() -> None:
    from renamerd.engine.ocr.tesseract import OcrSession, PageImage

    page = dm.render_page(INVOICE)
    reading = OcrSession(CFG).read(PageImage(lambda: page, (b"not an image", ".png")))
    assert "INV-2024-0042" in reading.text


def test_images_needing_conversion_are_not_passed_as_is() -> None:
    big = io.BytesIO()
    Image.new("L", (4960, 7016), 255).save(big, format="PNG")
    assert ImagePages(big.getvalue(), CFG).native_file() is None  # 600 dpi: reduced first
    assert ImagePages(_encoded("RGBA", "PNG"), CFG).native_file() is None
    assert ImagePages(dm.make_tiff([["a"], ["b"]], dpi=30), CFG).native_file() is None


def _word_by_word(rows: list[tuple[float, str]]) -> bytes:
    """A PDF whose producer placed every word on its own, as some report engines do."""
    words = []
    for y, row in rows:
        x = 20.0
        for word in row.split():
            words.append(dm.TextAt(x, y, word, 10))
            x += 2.2 * len(word) + 2.5
    return dm.make_pdf(words)


def test_a_text_layer_written_word_by_word_is_read_in_rows() -> None:
    rows = [(20, "TECNATIVA SOLUCIONES"), (26, "Calle Mayor 12"), (32, "28013 Madrid"),
            (44, "FACTURA"), (50, "Factura número INV/2024/00005"), (56, "Fecha 05/07/2024"),
            (68, "Cliente: Anita Oliver"), (74, "4557 De Silva St"), (80, "Fremont CA 94538")]
    rows += [(92 + 6 * i, f"Artículo de oficina número {i} 5 1.20 6.00") for i in range(12)]
    data = _word_by_word(rows)
    plain = pypdf.PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert sum(1 for line in plain.splitlines() if " " not in line.strip()) > 50  # the case
    text = " ".join(open_text(data, EngineConfig()).page(0).split(" "))
    rows_read = [" ".join(line.split()) for line in text.splitlines()]
    assert "Factura número INV/2024/00005" in rows_read and "TECNATIVA SOLUCIONES" in rows_read


def test_an_ordinary_text_layer_is_not_read_again() -> None:
    from renamerd.engine.readers.pdf import PdfPages

    assert not PdfPages.words_apart("ACME Ltd\nInvoice 5\nTotal 12.00\n" * 20)
    assert PdfPages.words_apart("ACME\nLtd\nInvoice\n5\nTotal\n12.00\n" * 10)
