"""The OCR layer: lines laid out as text, PP-OCR's orientation and bands, the "auto" choice."""

from __future__ import annotations

import io
import math
import socket
import threading

import pytest
from PIL import Image

from engine import docmaker as dm
from renamerd.engine import rename
from renamerd.engine.ocr import rapid
from renamerd.engine.ocr.lines import OcrLine, OcrPage, layout_text, rows, skew_angle
from renamerd.engine.ocr.reader import OcrReader
from renamerd.engine.ocr.tesseract import OcrReading, OcrSession, PageImage, parse_tsv_full
from renamerd.engine.text import open_text
from renamerd.engine.types import EngineConfig, RenameOptions

INVOICE = [
    dm.TextAt(20, 20, "Northwind Traders Ltd", 16, bold=True),
    dm.TextAt(20, 28, "12 High Street, London", 10),
    dm.TextAt(130, 20, "INVOICE", 16, bold=True),
    dm.TextAt(130, 30, "Invoice number: INV-2024-0042", 10),
    dm.TextAt(130, 36, "Invoice date: 14 March 2024", 10),
    dm.TextAt(20, 60, "Consulting services   1,200.00", 10),
    dm.TextAt(20, 70, "Total amount due: 1,440.00 GBP", 10),
]


def _line(text: str, x: float, y: float, w: float, h: float = 20.0,
          angle: float = 0.0) -> OcrLine:
    return OcrLine(text, (x, y, x + w, y + h), 0.95, angle)


def test_boxes_on_one_row_are_joined_and_wide_gaps_kept_as_columns() -> None:
    lines = [_line("12.50", 600, 101, 80), _line("Total", 20, 100, 80),
             _line("ACME", 20, 10, 100), _line("Sdn Bhd", 130, 12, 120),
             _line("Thank you", 20, 300, 150)]
    assert layout_text(lines) == "ACME Sdn Bhd\n\nTotal | 12.50\n\nThank you"


def test_skewed_rows_are_grouped_after_the_skew_is_undone() -> None:
    # a page photographed 5 degrees off: each row's right end sits ~60 px lower than its left
    lines = []
    for row in range(6):
        y = 100 + 60 * row
        lines += [_line(f"left{row}", 20, y, 300, 24, 5.0),
                  _line(f"right{row}", 700, y + 60, 300, 24, 5.0)]
    assert abs(skew_angle(lines) - 5.0) < 0.01
    grouped = rows(lines)
    assert [[ln.text for ln in row] for row in grouped][:2] == [["left0", "right0"],
                                                               ["left1", "right1"]]


def test_page_confidence_weighs_lines_by_their_characters() -> None:
    page = OcrPage([OcrLine("ABCDEFGH", (0, 0, 1, 1), 1.0), OcrLine("x", (0, 0, 1, 1), 0.0)],
                   100, 100, "rapidocr")
    assert page.characters == 9 and page.confidence == pytest.approx(8 / 9)
    assert OcrPage([], 1, 1, "rapidocr").confidence == 0.0


def _page(rotate: int = 0, dpi: int = 150) -> Image.Image:
    img = Image.open(io.BytesIO(dm.make_scan(INVOICE, dpi=dpi, rotate=rotate)))
    img.load()
    return img


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("OCR tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.slow
def test_pp_ocr_reads_a_page_with_the_models_of_the_wheel(no_network: None) -> None:
    page = rapid.read(_page())
    text = page.text
    assert page.backend == "rapidocr" and page.rotation == 0
    assert text.splitlines()[0].startswith("Northwind Traders Ltd")
    assert "Northwind Traders Ltd | INVOICE" in text  # one row, two columns
    assert "Invoice number: INV-2024-0042" in text
    assert page.confidence > 0.9


@pytest.mark.slow
@pytest.mark.parametrize("turned", [90, 180, 270])
def test_pp_ocr_turns_sideways_and_upside_down_pages_upright(turned: int) -> None:
    page = rapid.read(_page(rotate=turned))
    assert (page.rotation + turned) % 360 == 0
    assert page.text.splitlines()[0].startswith("Northwind Traders Ltd")


@pytest.mark.slow
def test_detection_in_bands_finds_every_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = rapid.read(_page(dpi=200)).text
    monkeypatch.setattr(rapid, "BAND_PIXELS", 250_000)  # many bands on this page
    banded = rapid.read(_page(dpi=200)).text
    assert banded == whole


@pytest.mark.slow
def test_auto_reads_a_clean_scan_with_one_tesseract_pass() -> None:
    reader = OcrReader(EngineConfig())
    text = reader.read(PageImage(lambda: _page(dpi=200)))
    assert "INV-2024-0042" in text
    assert reader.backends_used == ["tesseract"] and reader.tesseract_passes == 1


@pytest.mark.slow
def test_auto_hands_a_poor_reading_to_pp_ocr() -> None:
    """A blurred, speckled photo of small print: tesseract's reading is weak, PP-OCR's kept."""
    img = dm.render_page(INVOICE, dpi=110, noise=0.3, seed=3)
    reader = OcrReader(EngineConfig())
    text = reader.read(PageImage(lambda: img))
    assert reader.backends_used == ["rapidocr"]
    assert "14 March 2024" in text


@pytest.mark.slow
def test_auto_compares_pp_ocr_with_a_doubtful_reading_in_another_script(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """OSD named Arabic for a faint French invoice (a real scan), and tesseract's Arabic reading
    (mean confidence 34, noise) was kept unread by PP-OCR, whose models know no Arabic. A
    doubtful reading in such a script is now compared with PP-OCR's like any other: here
    tesseract is made to give that Arabic reading of a Latin page."""
    img = _page(dpi=200)
    noise = OcrReading("ل الس\nلمانا\nسوك اج 22 1 1 00011", "ara", 34.0, 177, 0, 21.0)
    monkeypatch.setattr(OcrSession, "read", lambda self, page: noise)
    reader = OcrReader(EngineConfig())
    text = reader.read(PageImage(lambda: img))
    assert reader.backends_used == ["rapidocr"]
    assert "Northwind" in text and "INV-2024-0042" in text


def _auto_reads(monkeypatch: pytest.MonkeyPatch, tesseract: OcrReading,
                pp_ocr: list[str]) -> tuple[OcrReader, str]:
    """`auto`'s reader and its text of a page that tesseract reads as `tesseract` and PP-OCR
    as the lines `pp_ocr` (both backends faked: which one `auto` keeps is the question)."""
    page = dm.render_page(INVOICE, dpi=100)
    monkeypatch.setattr(OcrSession, "read", lambda self, page: tesseract)
    whole = OcrPage([OcrLine(line, (0, 40 * i, 600, 40 * i + 30), 0.96)
                     for i, line in enumerate(pp_ocr)], 800, 600, "rapidocr")
    monkeypatch.setattr(rapid, "read", lambda image, word_height=0.0: whole)
    reader = OcrReader(EngineConfig())
    return reader, reader.read(PageImage(lambda: page))


def test_auto_reads_again_a_bills_confident_reading_that_lost_its_total(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A receipt photographed on a table (a wide page): tesseract read its letterhead, title
    and date confidently but lost the blurred items and totals; PP-OCR reads it as well."""
    header = OcrReading("LIM SENG THO HARDWARE TRADING\nTAX INVOICE\nCS 24198\n"
                        "03/02/2018 15°2€\nTHANK YOU", "eng", 90.0, 14, 0, 25.0)
    reader, text = _auto_reads(monkeypatch, header, [
        "LIM SENG THO HARDWARE TRADING", "TAX INVOICE", "CS 24198", "03/02/2018 15:28",
        "Total Incl of GST 7.00", "Cash 10.00", "Change Due 3.00", "THANK YOU"])
    assert reader.backends_used == ["rapidocr"] and "Total Incl of GST 7.00" in text


def test_auto_reads_again_a_confident_reading_that_names_no_kind_of_paper(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bakery's slip photographed with a shadow across its top: tesseract read the middle
    of its left column confidently (a date, the cashier, the items) but lost the shop's name,
    the title "FATURA SIMPLIFICADA" and every price; PP-OCR reads the whole slip."""
    middle = OcrReading("Original\nData: 2026-03-02\nOperador: Conceição\nPão de Água x6\n"
                        "Broa de Milho\nGalão", "por", 90.9, 14, 0, 19.0)
    reader, text = _auto_reads(monkeypatch, middle, [
        "Padaria", "Estrela do Norte", "FATURA SIMPLIFICADA", "Data: 2026-03-02 | Hora: 07:31",
        "Pão de Água x6 | 1,50", "TOTAL | 9,90 €", "Obrigado pela preferência!"])
    assert reader.backends_used == ["rapidocr"] and "Padaria" in text


def test_auto_reads_again_a_page_its_languages_pass_read_less_of(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A taxi's slip photographed in a shadow: read again with the pack of the language its
    text shows, tesseract kept half of what its first pass read (the name and the fare
    lost): a page tesseract is unsure of goes to PP-OCR too."""
    first = OcrReading("Vastkustens Taxi AB\nOrg.nr 556677-1204\nKVITTO\nForare Jorgen L\n"
                       "Datum 2026-02-20\nAtt betala SEK 412,00\nTack for resan!",
                       "eng", 88.0, 14, 0, 22.0)
    again = OcrReading("Jörgen L\nPL4471\n2026-02-20\nTack för resan!", "swe", 90.0, 14, 0,
                       22.0)
    monkeypatch.setattr(OcrReader, "_in_document_language",
                        staticmethod(lambda session, page, reading: again))
    reader, text = _auto_reads(monkeypatch, first, [
        "TAXI", "VÄSTKUST", "Västkustens Taxi AB", "KVITTO", "Datum | 2026-02-20",
        "Att betala | SEK 412,00"])
    assert reader.backends_used == ["rapidocr"] and "Västkustens Taxi AB" in text


def test_a_letters_confident_reading_without_a_total_is_kept() -> None:
    """No bill, no total expected: a clean letter is read by one tesseract pass."""
    letter = [dm.TextAt(20, 20, "Northwind Traders Ltd", 16, bold=True),
              dm.TextAt(20, 40, "London, 14 March 2024", 11),
              dm.TextAt(20, 55, "Dear Ms Smith,", 11),
              dm.TextAt(20, 62, "we are pleased to confirm our meeting next week.", 11),
              dm.TextAt(20, 75, "Yours sincerely, Anna Berg", 11)]
    reader = OcrReader(EngineConfig())
    reader.read(PageImage(lambda: dm.render_page(letter, dpi=200)))
    assert reader.backends_used == ["tesseract"] and reader.tesseract_passes == 1


def test_unknown_ocr_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="ocr: 'bogus' is not one of auto, rapidocr, tesseract"):
        OcrReader(EngineConfig(ocr="bogus"))


@pytest.mark.slow
def test_rapidocr_mode_never_runs_tesseract(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RENAMERD_TESSERACT", "/nonexistent/tesseract")
    doc = open_text(dm.make_scan(INVOICE), EngineConfig(ocr="rapidocr"))
    assert "Northwind" in doc.page(0)
    assert doc.ocr_backends == ["rapidocr"] and doc.ocr_languages is None


RECEIPT = [dm.TextAt(8, 10, "99 SPEED MART S/B", 14, bold=True),
           dm.TextAt(8, 18, "LOT 12, JALAN KLANG", 9), dm.TextAt(8, 24, "DATE: 24-01-2018 10:43", 9),
           dm.TextAt(8, 30, "GARBAGE BAG 2 RM2.50", 9), dm.TextAt(8, 36, "TOTAL RM 2.50", 9),
           dm.TextAt(8, 42, "CASH RM 5.00  CHANGE RM 2.50", 9)]


@pytest.mark.slow
def test_auto_reads_a_till_roll_with_pp_ocr_first() -> None:
    """A receipt-shaped page (much longer than wide) goes to PP-OCR without a tesseract pass."""
    page = dm.render_page(RECEIPT, dpi=200).crop((0, 0, 700, 1300))
    reader = OcrReader(EngineConfig())
    text = reader.read(PageImage(lambda: page))
    assert reader.backends_used == ["rapidocr"] and reader.tesseract_passes == 0
    assert "99 SPEED MART S/B" in text and "24-01-2018" in text


@pytest.mark.parametrize(("read", "fixed"), [
    ("14/03/20185:57:07PM", "14/03/2018 5:57:07PM"),
    ("Date | 03/02/201815:28", "Date | 03/02/2018 15:28"),
    ("19/02/2018 16:45", "19/02/2018 16:45"),
    ("12/03/2024", "12/03/2024"),
])
def test_a_time_fused_to_the_year_is_split_off(read: str, fixed: str) -> None:
    from renamerd.engine.ocr.lines import split_fused_times

    assert split_fused_times(read) == fixed


def test_a_line_detected_twice_is_kept_once() -> None:
    lines = [OcrLine("GIN KEE", (10, 10, 200, 30), 0.9), OcrLine("GIN KEE", (12, 11, 205, 31), 0.97),
             OcrLine("12.50", (400, 10, 460, 30), 0.99)]
    assert layout_text(lines) == "GIN KEE | 12.50"


@pytest.mark.slow
@pytest.mark.parametrize("size", [(3, 3), (1, 900), (2000, 2)])
def test_degenerate_pages_read_as_no_text(size: tuple[int, int]) -> None:
    page = rapid.read(Image.new("L", size, 255))
    assert page.text == ""


def test_the_engine_pool_loads_one_engine_at_a_time_and_lends_it_to_a_waiting_caller(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan arriving while a worker loads its models at start waits for that engine
    instead of loading a second copy beside it; a failed load leaves no caller waiting."""
    loading, release = threading.Event(), threading.Event()
    made: list[object] = []

    def make() -> object:
        loading.set()
        release.wait(5)
        if not made:
            made.append(object())
            return made[-1]
        raise rapid.RapidUnavailable("second load fails")

    monkeypatch.setattr(rapid, "_make_engine", make)
    monkeypatch.setattr(rapid, "POOL_SIZE", 2)
    pool = rapid._Pool()
    got: list[object] = []

    def use() -> None:
        with pool.engine() as engine:
            got.append(engine)

    first = threading.Thread(target=use)
    first.start()
    assert loading.wait(5)
    second = threading.Thread(target=use)
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the engine being made, not making one
    release.set()
    first.join(5)
    second.join(5)
    assert got == [made[0], made[0]] and len(made) == 1

    # the one engine in use, the next caller makes one, which fails and is not counted
    with pool.engine() as engine, pytest.raises(rapid.RapidUnavailable), pool.engine():
        pass
    assert engine is made[0]
    assert pool._made == 1


def test_the_slant_of_a_page_is_the_median_slope_of_its_long_boxes() -> None:
    def quad(x: float, y: float, w: float, h: float, deg: float) -> rapid.Quad:
        dx, dy = w * math.cos(math.radians(deg)), w * math.sin(math.radians(deg))
        return [(x, y), (x + dx, y + dy), (x + dx - h * 0.07, y + dy + h), (x, y + h)]

    tilted = [quad(10, 10 + 40 * i, 400, 30, -4.0) for i in range(5)] + [quad(5, 5, 20, 30, 40)]
    assert rapid._slant(tilted) == pytest.approx(-4.0, abs=0.01)
    assert rapid._slant(tilted[:2]) == 0.0  # too few long boxes to tell


@pytest.mark.slow
def test_pp_ocr_straightens_a_tilted_photo_and_reads_every_line() -> None:
    upright = rapid.read(_page()).text.splitlines()
    tilted = _page().convert("L").rotate(4, resample=Image.Resampling.BICUBIC, expand=True,
                                         fillcolor=255)
    page = rapid.read(tilted)
    assert all(abs(line.angle) < 1.0 for line in page.lines)  # read on the straightened page
    assert page.text.splitlines()[:3] == upright[:3]


def test_a_faint_page_has_its_levels_stretched_and_a_clear_one_is_left_alone() -> None:
    clear = _page().convert("L")
    assert rapid._stretched(clear) is clear
    faint = clear.point(lambda v: 110 + v * 85 // 255)  # ink at 110, paper at 195
    stretched = rapid._stretched(faint)
    assert stretched.getextrema() == (0, 255)


@pytest.mark.slow
def test_pp_ocr_reads_a_dim_photo_like_a_clear_one() -> None:
    upright = rapid.read(_page()).text.splitlines()
    faint = _page().convert("L").point(lambda v: 110 + v * 85 // 255)
    assert rapid.read(faint).text.splitlines()[:4] == upright[:4]


@pytest.mark.slow
def test_pp_ocr_enlarges_small_print_and_reads_it() -> None:
    small = _page().convert("L")
    small = small.resize((small.width * 2 // 5, small.height * 2 // 5), Image.Resampling.BOX)
    page = rapid.read(small)
    assert page.width > small.width  # read enlarged
    for line in ("Northwind Traders Ltd", "Invoice number: INV-2024-0042",
                 "Invoice date: 14 March 2024", "Total amount due: 1,440.00 GBP"):
        assert line in page.text


@pytest.mark.slow
def test_large_print_is_detected_on_a_reduced_page_and_read_from_the_whole_one() -> None:
    page = _page(dpi=300)
    fitted = rapid.fit(page)
    with rapid._POOL.engine() as engine:
        assert rapid._detection_scale(engine, fitted) < 0.7  # boxes ~40 px: detected at ~22
    read = rapid.read(page)
    assert (read.width, read.height) == fitted.size  # boxes in the whole page's pixels
    for line in ("Northwind Traders Ltd | INVOICE", "Invoice number: INV-2024-0042",
                 "Invoice date: 14 March 2024", "Total amount due: 1,440.00 GBP"):
        assert line in read.text


def test_a_page_near_the_probes_size_is_detected_at_its_own_size() -> None:
    assert rapid._detection_scale(None, Image.new("L", (600, 900), 255)) == 1.0


def test_a_line_on_the_cut_between_two_bands_is_kept_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # each band's detector sees the line on the cut a pixel apart: both centres were kept
    def detect_in(_engine: object, image: Image.Image, top: int) -> list[rapid.Quad]:
        shift = -1.0 if top == 0 else 1.0
        y0, y1 = 149.0 + shift, 186.0 + shift
        boxes = [[(10.0, y0), (90.0, y0), (90.0, y1), (10.0, y1)]]
        return [q for q in boxes if top <= q[0][1] and q[2][1] <= top + image.height]

    monkeypatch.setattr(rapid, "_detect_in", detect_in)
    monkeypatch.setattr(rapid, "BAND_PIXELS", 200 * 100)
    quads, cut = rapid._detect_across(None, Image.new("L", (100, 400), 255))
    assert len(quads) == 1 and cut == 0


@pytest.mark.slow
def test_a_till_roll_whose_pp_ocr_reading_shows_no_date_gets_tesseracts_date_lines(
        monkeypatch: pytest.MonkeyPatch) -> None:
    page = dm.render_page(RECEIPT, dpi=200).crop((0, 0, 700, 1300))
    dated = OcrReading("DATE: 04/12/2017 10:43", "eng", 90.0, 20, 0, 20.0)
    monkeypatch.setattr(OcrSession, "read", lambda self, page: dated)
    undated = OcrPage([OcrLine("99 SPEED MART S/B LOT 12 JALAN KLANG TOTAL RM 2.50 CASH",
                               (0, 0, 600, 30), 0.97)], 700, 1300, "rapidocr")
    monkeypatch.setattr(rapid, "read", lambda image, word_height=0.0: undated)
    text = OcrReader(EngineConfig()).read(PageImage(lambda: page))
    assert text.startswith("99 SPEED MART") and "DATE: 04/12/2017 10:43" in text


def _tsv(words: list[tuple[int, int, int, str, int, int]]) -> str:
    """A tesseract TSV of words: (block, line, left, text, top, width), all 20 px high."""
    head = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight"
            "\tconf\ttext")
    rows = [f"5\t1\t{b}\t1\t{ln}\t1\t{x}\t{y}\t{w}\t20\t95\t{t}" for b, ln, x, t, y, w in words]
    return "\n".join([head, *rows])


def test_tesseracts_blocks_side_by_side_share_their_rows() -> None:
    # a column of labels and the column of their values are two blocks to tesseract
    tsv = _tsv([(1, 1, 100, "Rechnungs-Nr.", 100, 200), (1, 2, 100, "Rechnungsdatum", 140, 220),
                (2, 1, 600, "RE-2024-0387", 100, 180), (2, 2, 600, "14.03.2024", 140, 150)])
    blocks = parse_tsv_full(tsv)[0]
    assert blocks == "Rechnungs-Nr.\nRechnungsdatum\n\nRE-2024-0387\n14.03.2024"
    by_rows = parse_tsv_full(tsv, rows=True)[0]
    assert by_rows == "Rechnungs-Nr. | RE-2024-0387\nRechnungsdatum | 14.03.2024"


def test_a_scanned_letters_information_block_pairs_its_labels_and_values() -> None:
    # a DIN 5008 letter: the address window and a block of labels beside their values
    lines: list[dm.Line] = [
        dm.TextAt(20, 15, "Schreinerei Köhler GmbH", 14, True),
        dm.TextAt(20, 22, "Hauptstraße 41 · 79098 Freiburg"),
        dm.TextAt(20, 50, "Familie Vogelsang"), dm.TextAt(20, 56, "Lorettostraße 17a"),
        dm.TextAt(20, 62, "79100 Freiburg im Breisgau"),
        dm.TextAt(125, 50, "Rechnungs-Nr."), dm.TextAt(125, 56, "Rechnungsdatum"),
        dm.TextAt(125, 62, "Kunden-Nr."), dm.TextAt(125, 68, "Auftrag vom"),
        dm.TextAt(165, 50, "RE-2024-0387"), dm.TextAt(165, 56, "14.03.2024"),
        dm.TextAt(165, 62, "10452"), dm.TextAt(165, 68, "05.02.2024"),
        dm.TextAt(20, 90, "Rechnung", 14, True),
        dm.TextAt(20, 100, "Einbauschrank Eiche massiv 1 Stk 3.480,00"),
        dm.TextAt(20, 110, "Rechnungsbetrag 4.141,20 €"),
    ]
    result = rename(dm.make_scan(lines, dpi=200, rotate=0), "scan.png",
                    RenameOptions(), EngineConfig(ocr="tesseract"))
    assert result.extracted_info["invoice_number"] == "RE-2024-0387"
    assert result.extracted_info["date"] == "2024-03-14"
