"""Receipt scans: OCR-garbled dates and legal forms, shop names, the closer second OCR pass."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from engine import docmaker as dm
from renamerd.engine.fields import extract
from renamerd.engine.fields.date_repair import ocr_date_tokens
from renamerd.engine.fields.dates import date_lines
from renamerd.engine.fields.document import Doc
from renamerd.engine.fields.issuer import issuer_candidates
from renamerd.engine.fields.names import fix_ocr_suffixes, mend_digits
from renamerd.engine.ocr.tesseract import OcrSession, PageImage
from renamerd.engine.text import open_text
from renamerd.engine.types import EngineConfig


@pytest.mark.parametrize(("garbled", "repaired"), [
    ("date: 2l/o3/2018 10:00", "date: 21/03/2018 10:00"),
    ("25/12/2ol8", "25/12/2018"),
    ("19/62/2018 16:45", "19/02/2018 16:45"),  # a round digit read for the month's 0
    ("1s-o1-2019", "15-01-2019"),
    ("date: 23103/2018 3:13", "date: 23/03/2018 3:13"),  # a slash read as "1"
    ("date: 11/0112019", "date: 11/01/2019"), ("02101/201b", "02/01/2018"),
    ("tarihi: 12:09.2024 istiklal", "tarihi: 12.09.2024 istiklal"),  # a dot read as ":"
    ("datum: 3.11:2023", "datum: 3.11.2023"),
    ("datum:.01.07.2023", "datum: 01.07.2023"),  # a speck read as a dot
    ("data: 17 gennaio .2023", "data: 17 gennaio  2023"),
])
def test_ocr_garbled_numeric_dates_are_repaired(garbled: str, repaired: str) -> None:
    out = ocr_date_tokens(garbled)
    assert out == repaired
    assert len(out) == len(garbled)  # offsets into the text stay valid


@pytest.mark.parametrize("text", [
    "total 12.50 so 1/1", "jalan 9/6", "a 1l/1l/11 b", "02/62/2018", "ss21/1a, damansara",
    "ss21/39 jalan", "45103/2018", "10113/2018", "no. 12/0113", "id 123103/2018",
    "at 12:30 on 1.2.2024", "time 12:09.2024x", "25:13.2024", "10:30:2024",
    "total: .2023", "x 1.01.07.2023", "price .2023,50",
])
def test_text_that_is_no_garbled_date_is_left_alone(text: str) -> None:
    assert ocr_date_tokens(text) == text


@pytest.mark.parametrize(("line", "date"), [
    ("Date : 22/12/201714:03", "2017-12-22"), ("14/03/20185:57:07PM", "2018-03-14"),
    ("01/03/1819:14 Slip No.: 0010104733", "2018-03-01"), ("12 Mar 201818:19", "2018-03-12"),
    ("I0 Mar 2018 18:24", "2018-03-10"), ("Doc No. CS00004040 Date: 11/0112019", "2019-01-11"),
    ("Date: 17/10/2024:18", "2024-10-17"),  # a year is kept whole before a colon
])
def test_a_receipts_date_with_a_time_fused_or_a_digit_misread_is_found(line: str,
                                                                        date: str) -> None:
    text = f"KEDAI RUNCIT ALIF\nNO 12, JALAN MAWAR\n{line}\nTOTAL 12.00\nCASH 20.00"
    assert str(extract([text]).values["date"]) == date


def test_garbled_receipt_date_is_extracted() -> None:
    text = "KEDAI RUNCIT ALIF\nNO 12, JALAN MAWAR\nDate: 2l/o3/2018 10:02:11\nTOTAL 12.00"
    assert extract([text]).values["date"] == "2018-03-21"


@pytest.mark.parametrize(("garbled", "fixed"), [
    ("MR O.T.Y. (M) SON BHD", "MR O.T.Y. (M) SDN BHD"),
    ("ACME 5DN 8HD", "ACME SDN BHD"),
    ("MR D.I.Y. (M) SOR BHO", "MR D.I.Y. (M) SDN BHD"),  # a JPEG squeezed to quality 15
    ("ACME S0N. BHD.", "ACME SDN. BHD."),
    ("Owner by Castle Blue $/B", "Owner by Castle Blue S/B"),
    ("99 SPEED MART S/D (519537-X)", "99 SPEED MART S/B (519537-X)"),
    ("99 SPEED MART S1B", "99 SPEED MART S/B"), ("ACME S|B", "ACME S/B"),  # the slash as 1
    ("99 SPEED MART S/0 (519537-X)", "99 SPEED MART S/B (519537-X)"),  # the B as a zero
    ("POPULAR BOOK CO.(M) SDN BHD", "POPULAR BOOK CO. (M) SDN BHD"),
    ("PETRODELI ENIERPRISE", "PETRODELI ENTERPRISE"),
    ("MR D.I.¥.", "MR D.I.Y."),
    ("MR O.1.Y. (JOHOR) SDN BHD", "MR O.I.Y. (JOHOR) SDN BHD"),  # a digit inside initials
    ("MARKET PUNKT 4PL 5p. z o.o. 5p. K.", "MARKET PUNKT 4PL Sp. z o.o. Sp. K."),
])
def test_misread_legal_forms_are_fixed(garbled: str, fixed: str) -> None:
    assert fix_ocr_suffixes(garbled) == fixed


@pytest.mark.parametrize("text", ["ACME SDN BHD", "ACME SDN. BHD.", "Johnson & Sons Ltd",
                                  "Version 1.2.3 GmbH", "NO.1.2 JALAN", "S.H.H. MOTOR",
                                  "Triple Six Point Enterprise 666", "SS 2/3",
                                  "KUMAR S/O RAMAN", "TOTAL $10", "SIZE 5/0", "S/0.5"])
def test_correct_names_are_left_alone(text: str) -> None:
    assert fix_ocr_suffixes(text) == text


@pytest.mark.parametrize(("garbled", "mended"), [
    ("SAM SAM TRAD1NG CO", "SAM SAM TRADING CO"), ("LI6HTR0OM GALLERY", "LIGHTROOM GALLERY"),
    ("AIK HUAT ENTERPRISE (5ETIA ALAM)", "AIK HUAT ENTERPRISE (SETIA ALAM)"),
    ("8anh Mi Cafe", "Banh Mi Cafe"), ("Ca5h & Carry", "Cash & Carry"),
    ("GEMILANG B00KS SDN BHD", "GEMILANG BOOKS SDN BHD"),
])
def test_digits_misread_inside_a_names_words_are_letters(garbled: str, mended: str) -> None:
    assert mend_digits(garbled) == mended


@pytest.mark.parametrize("name", ["B2B Supplies", "MP3 World", "Win10 Shop", "3M", "7-Eleven",
                                  "1&1 Internet SE", "99 SPEED MART S/B", "Studio 54", "K2 Sports",
                                  "Net4You GmbH", "Go2Market", "Route 66 Diner", "1STOP MART"])
def test_names_written_with_digits_keep_them(name: str) -> None:
    assert mend_digits(name) == name


def test_a_name_without_its_legal_form_loses_its_bracketed_registration_number() -> None:
    text = ("99 SPEED MART (519537-X)\nLOT P.T. 2811, JALAN ANGSA,\nTAMAN BERKELEY\n"
            "41150 KLANG, SELANGOR\nGST ID. NO : 000181747712\nINVOICE NO: 18299/102/T0230\n"
            "Total Sales (Inclusive GST) RM 141.50\nCASH RM 150.00")
    assert extract([text]).values["issuer"] == "99 SPEED MART"


def test_a_receipts_name_read_with_a_digit_for_a_letter_is_mended() -> None:
    text = ("SAM SAM TRAD1NG CO\n(742016-W)\n67,JLN MEWAH 25/63 TMN SRI MUDA\n"
            "40400 SHAH ALAM\nCASH BILL\nDate : 29/12/2017\nCashier: 01\nTOTAL 15.00\nCASH 20.00")
    assert extract([text]).values["issuer"] == "SAM SAM TRADING CO"


def test_issuer_with_misread_suffix_and_bracketed_registration() -> None:
    text = ("AEON CO. (M) BHD (126926-H)\nSRD FLR, AEON TAMAN MALURI SC\nJLN JEJAKA, TAMAN MALURI\n"
            "CHERAS, 56100 KUALA LUMPUR\nGST ID : 002017394688\nTOTAL 75.00\nCASH 100.00")
    assert extract([text]).values["issuer"] == "AEON CO. (M) BHD"
    text = "tan woon yann\nMR D.I.Y. (M) SON BHD\n(CO.REG : 860671-D)\nLOT 1851-A, JALAN KPB 6"
    assert extract([text]).values["issuer"] == "MR D.I.Y. (M) SDN BHD"


def test_kind_of_business_alone_does_not_beat_the_name_above() -> None:
    text = ("THREE STOOGES\nBISTRO & CAFE\n109, SS21/1A,\nDAMANSARA UTAMA\nGST ID ; 001661886464\n"
            "TABLE : BAR 7\nTOTAL 50.00")
    assert extract([text]).values["issuer"] == "THREE STOOGES"
    text = ("haat\nLIAN CHI VEGETARIAN\nRESTAURANT SDN BHD\n(1095514-X)\n54, JALAN SS23/11\n"
            "TOTAL 12.00")
    assert extract([text]).values["issuer"] == "LIAN CHI VEGETARIAN RESTAURANT SDN BHD"
    text = ("AADI PARASWANATH IMPORT\nEXPORT INC\n7F-708, Vihav Trade Centre,\nGSTIN:\n"
            "24CJKPJ7157C1Z9\nInvoice No.\nAP/SL/26-27/56")
    assert extract([text]).values["issuer"] == "AADI PARASWANATH IMPORT EXPORT INC"


def test_a_two_letter_form_inside_an_address_is_no_name() -> None:
    text = ("A MART\nNO.23 BATU 10, TAMAN SE\nJALAN KAPAR, 42200 KLANG\nGST ID : 001609584640\n"
            "TAX INVOICE\nTOTAL 32.70")
    assert extract([text]).values.get("issuer") == "A MART"  # two short words in capitals


def test_date_lines_finds_only_lines_with_dates() -> None:
    text = "SHOP\nDate: 25/12/2018 10:00\nTOTAL 12.00\n25 DEC 2018"
    assert date_lines(text) == ["Date: 25/12/2018 10:00", "25 DEC 2018"]
    assert date_lines("SHOP\nTOTAL 12.00") == []


def _receipt(lines: list[str], width: int = 300, px: int = 11) -> bytes:
    """A narrow low-resolution till slip (about 95 dpi): small print, as photographed."""
    font = dm._font(px, False)
    img = Image.new("L", (width, 30 + len(lines) * (px + 8)), 255)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((12, 15 + i * (px + 8)), line, fill=0, font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


RECEIPT = ["KEDAI RUNCIT ALIF SDN BHD", "NO 12, JALAN MAWAR", "TEL 03-1234 5678",
           "ROTI CANAI 2 3.00", "TEH TARIK 1 1.80", "TOTAL 4.80", "CASH 10.00", "CHANGE 5.20"]


@pytest.mark.slow
def test_closer_reading_enlarges_small_print() -> None:
    session = OcrSession(EngineConfig(ocr_languages=("eng",)))
    page = PageImage(lambda: Image.open(io.BytesIO(_receipt(RECEIPT))))
    first = session.read(page)
    closer = session.read_closer(page, first)
    assert 0 < first.word_height < 40
    assert closer.word_height >= 1.6 * first.word_height
    assert "TOTAL" in closer.text


@pytest.mark.slow
def test_second_pass_only_when_the_first_reading_has_no_date() -> None:
    """engine.ocr = "tesseract": tesseract's closer readings, as before PP-OCR."""
    config = EngineConfig(ocr="tesseract", ocr_languages=("eng",))
    dated = open_text(_receipt([*RECEIPT[:3], "DATE: 25/12/2018 10:02", *RECEIPT[3:]], 450, 24),
                      config)
    dated.page(0)
    assert dated.ocr_languages == "eng" and dated._ocr.tesseract_passes == 1  # one pass
    undated = open_text(_receipt(RECEIPT), config)
    text = undated.page(0)
    assert undated._ocr.tesseract_passes == 2  # small print: the enlarged reading, once
    assert "TOTAL" in text and not date_lines(text)  # nothing invented
    # normal print, no date: the closer one-block pass, then one sparse-text pass, no other
    plain = open_text(_receipt(RECEIPT, 450, 24), config)
    text = plain.page(0)
    assert plain._ocr.tesseract_passes == 3
    assert "TOTAL" in text and not date_lines(text)


def _scattered(words: list[tuple[int, int, str]], size: tuple[int, int], px: int) -> bytes:
    """A page of words standing apart at (x, y), in no column or block: a stamp, a date box."""
    font = dm._font(px, False)
    img = Image.new("L", size, 255)
    draw = ImageDraw.Draw(img)
    for x, y, word in words:
        draw.text((x, y), word, fill=0, font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.slow
def test_sparse_text_reading_finds_a_date_standing_apart() -> None:
    words = [(20, 20, "KEDAI"), (700, 60, "ALIF"), (60, 260, "TOTAL"), (420, 200, "4.80"),
             (520, 420, "25/12/2018"), (30, 520, "TERIMA"), (640, 600, "KASIH")]
    page = PageImage(lambda: Image.open(io.BytesIO(_scattered(words, (900, 680), 22))))
    session = OcrSession(EngineConfig(ocr_languages=("eng",)))
    first = session.read(page)
    sparse = session.read_closer(page, first, psm="11")
    assert any("25/12/2018" in line for line in date_lines(sparse.text))
    assert "TOTAL" in sparse.text


@pytest.mark.slow
def test_small_print_is_read_enlarged() -> None:
    config = EngineConfig(ocr="tesseract", ocr_languages=("eng",))
    doc = open_text(_receipt([*RECEIPT[:3], "DATE: 25/12/2018 10:02", *RECEIPT[3:]], px=9),
                    config)
    text = doc.page(0)
    assert doc._ocr.tesseract_passes == 2  # small print: the enlarged reading, once
    assert "25/12/2018" in text


def test_a_company_below_the_title_is_no_letterhead() -> None:
    text = ("PERNIAGAAN ZHENG HUI\nJM0325955-V\nNO.59 JALAN PERMAS 9/5\nBANDAR BARU PERMAS JAYA\n"
            "81750 JOHOR BAHRU\nGST NO ; 000800589824\nSIMPLIFIED TAX INVOICE\n"
            "GOGIANT ENGINEERING (M) SDN BHD\nReceipt# 05000846702\nDate: 09/03/2018\n"
            + "".join(f"{4000 + i} PAINT BRUSH {i} 1 5.00 5.00\n" for i in range(8))
            + "TOTAL 332.30\nCASH 332.30\nGOODS SOLD ARE NOT RETURNABLE")
    assert extract([text]).values["issuer"] == "PERNIAGAAN ZHENG HUI"


def test_debris_after_a_capitals_name_is_dropped() -> None:
    text = ("Leute\n99 SPEED MART $ mi\n1076-K\nGST ID. NO: 000181747712\nINVOICE NO : 18287\n"
            "TOTAL 12.00")
    assert extract([text]).values["issuer"] == "99 SPEED MART"
    # words that belong to the name stay, and so does a name not in capitals
    text = "ACME HARDWARE & CO\nJALAN BESAR 12\nTOTAL 5.00"
    assert extract([text]).values["issuer"] == "ACME HARDWARE & CO"


def test_a_line_going_on_after_a_comma_is_an_address() -> None:
    text = ("YHM Aeon Tebrau City\nS117, Second Floor,\nAeon Tebrau City,\n1, Jalan Desa Tebrau,\n"
            "Taman Desa Tebrau,\n81100 Johor Bahru, Johor.\n* TAX INVOICE *\nTotal 12.00")
    assert extract([text]).values["issuer"] == "YHM Aeon Tebrau City"


def test_a_till_slip_without_a_type_word_is_a_receipt() -> None:
    text = ("KEDAI RUNCIT ALIF\nNO 12, JALAN MAWAR\n25/12/2018 10:02\nROTI CANAI 3.00\n"
            "TOTAL 3.00\nCASH 10.00\nCHANGE 7.00\nTHANK YOU")
    assert extract([text]).values["document_type"] == "receipt"


@pytest.mark.parametrize("text", [
    # a till's words with its register numbers printed onto them, and a clock time
    "RESTAURANT SIN DU\n80300 JOHOR BAHRU\n09/03/2018 21:26 0001\n000000#7259 CASHIER01\n"
    "DPT.05 RM 149.00\nCASH\nRM 170.00",
    # a petrol station's slip with an "Invoice number" on it
    "PETRODELI ENTERPRISE\nGST No: 000145047552\nInvoice number: 60000152273\n"
    "39.42 litre Pump # 09\nTotal RM 85.54\nVisa RM 85.54\n26/02/18 08:28 10886 09\n"
    "Thank you\nPlease come again",
    # the same with its time and its farewell misread: the pump and the loyalty card remain
    "Shell ISNI PETRO TRADING\nGST No: 0010 9010 5344\nInvoice number 60000053668\n"
    "35.10 litre Pump # 02\nTotal RM 86.00\nVisa RM 86.00\nShell Loyalty Card\n"
    "Points Awarded 35\n18/03/18 15 17 06051 02\nThank You\nPleasae Cone Again",
    # a hardware shop's slip titled "TAX INVOICE", its time misread: the count of its items
    "LIM SENG THO HARDWARE TRADING\nTAX INVOICE\nCS 24198\n03/02/2018 15°2€\n"
    "BEG GUNI 10.00 NOS 0.70 7.00\nTotal Item(s): 10\nTHANK YOU\nPLEASE COME AGAIN",
    # a restaurant's check, stamped with its time: no type word, no cash, a take-out order
    "The Curry Leaf - Irvine\n2401 Main Street\nIrvine, CA 92614\nTake Out\nCheck #14\n"
    "Ordered: 8/8/26 2:29 PM\n2 Paneer Tikka $25.98\nSubtotal $25.98\nTax $2.01\n"
    "Total $27.99\nCredit Card Keyed",
    # a golf house's slip: its time and a gratuity line
    "PINE RIDGE GOLF HOUSE\n1103 RIDGE RD\n06/05/11 10:16AM\n2 CLUB SANDWICH 24.00\n"
    "Subtotal 24.00\nTax 1.92\nGratuity ______",
])
def test_a_till_slip_is_a_receipt(text: str) -> None:
    assert extract([text]).values["document_type"] == "receipt"


def test_a_letter_naming_a_time_and_a_table_is_no_receipt() -> None:
    text = ("Anna Berg\nSeestraße 4\n10115 Berlin\nAn\nHerrn Jonas Weber\nParkweg 2\n"
            "20095 Hamburg\nTreffen am 12.03.2024 um 10:30 Uhr\nBitte reservieren Sie einen "
            "Tisch für sechs Personen am table 4.\nMit freundlichen Grüßen")
    assert extract([text]).values["document_type"] != "receipt"


@pytest.mark.parametrize(("text", "date"), [
    # a US till slip: the state and ZIP without a comma, a month-first date, a check number
    ("Walmart\n123 MAIN ST\nSPRINGFIELD IL 62701\nBREAD 2.48 N\nSUBTOTAL 2.48\nTOTAL 2.65\n"
     "CASH TEND 10.00\nCHANGE DUE 7.35\n03/05/24 14:22:10", "2024-03-05"),
    ("STARBUCKS\nStore #12345\n500 Pine St\nSeattle, WA 98101\nCHK 7241\n03/05/2024 08:12 AM\n"
     "Grande Latte 5.25\nTotal $5.78\nVisa $5.78\nThank you!", "2024-03-05"),
])
def test_a_us_till_slip(text: str, date: str) -> None:
    found = extract([text]).values
    assert found["document_type"] == "receipt" and str(found["date"]) == date


@pytest.mark.parametrize(("line", "date"), [
    ("Fri 04/07/2017 11:36 AM", "2017-04-07"),  # 4 July 2017 was a Tuesday
    ("Tue 04/07/2017 11:36 AM", "2017-07-04"),
    ("Sa., 03.02.2018 14:10", "2018-02-03"), ("vendredi 07/04/2017", "2017-04-07"),
])
def test_a_weekday_before_a_date_decides_its_order(line: str, date: str) -> None:
    text = f"Main Street Restaurant\n{line}\nSub Total 25.23\nTOTAL 29.01"
    assert str(extract([text]).values["date"]) == date


def test_a_us_state_written_out_makes_numeric_dates_month_first() -> None:
    text = ("Main Street Restaurant\n6332 Business Drive\nPalo Alto California 94301\n"
            "04/07/2017 11:36 AM\nTOTAL 29.01")
    assert str(extract([text]).values["date"]) == "2017-04-07"


def test_a_card_terminals_slip_is_a_receipt() -> None:
    text = ("Main Street Restaurant\nPalo Alto California 94301\nFri 04/07/2017 11:36 AM\n"
            "Merchant ID: 9hqjxvufdr\nTerminal ID: 11111\nType: CREDIT\nPURCHASE\n"
            "Entry Mode: Swiped\nCard Type: DISCOVER\nApproval Code: 819543\nUSD$ 29.01")
    assert extract([text]).values["document_type"] == "receipt"


def test_a_till_slip_whose_only_type_word_is_in_its_body_is_a_receipt() -> None:
    text = ("Walgreens\n#03296 191 E 3RD AVE\nSAN MATEO, CA 94401\n05/24/2022 1:10 PM\n"
            "COCA COLA MINICAN 7.5Z 6PK 4.99\nSUBTOTAL 27.60\nTOTAL 29.53\nCHANGE .00\n"
            "THANK YOU FOR SHOPPING AT WALGREENS\nmyWalgreens ACCT # ********0053\n"
            "OPENING BALANCE $1.14\nCLOSING BALANCE $0.26")
    assert extract([text]).values["document_type"] == "receipt"


def test_a_sentence_to_the_customer_is_no_name() -> None:
    text = ("YOUR GUEST NUMBER IS\n98\nIN-N-OUT BURGER\n2004-10-31 8:21 PM\nCashier: SAM\n"
            "TAX 7.50% 97.66\nCASH TENDER $97.66\nChange $.00\nTHANK YOU!")
    assert extract([text]).values["issuer"] == "IN-N-OUT BURGER"


@pytest.mark.parametrize("banner", ["Welcome", "DUPLICATE", "*** COPY ***", "CUSTOMER COPY",
                                    "Selamat Datang", "Lim Siew Mei"])
def test_a_line_above_a_one_word_name_with_its_form_is_not_part_of_it(banner: str) -> None:
    text = (f"{banner}\nAEON CO. (M) BHD (126926-H)\n3RD FLR, AEON TAMAN MALURI SC\n"
            "JLN JEJAKA, TAMAN MALURI\nGST ID : 002017394688\nTOTAL 75.00\nCASH 100.00")
    assert extract([text]).values["issuer"] == "AEON CO. (M) BHD"


@pytest.mark.parametrize("banner", ["Welcome", "DUPLICATE", "*** COPY ***"])
def test_a_banner_on_top_is_no_name(banner: str) -> None:
    text = (f"{banner}\nTHREE STOOGES\n109, SS21/1A,\nDAMANSARA UTAMA\nCashier: 01\n"
            "TOTAL 50.00\nCASH 50.00\nCHANGE 0.00")
    assert extract([text]).values["issuer"] == "THREE STOOGES"


@pytest.mark.parametrize(("line", "date"), [
    ("27032018 | No.CS-20242", "2018-03-27"), ("Date 20180327", "2018-03-27"),
    ("25122019 12:01", "2019-12-25"),
])
def test_a_date_without_separators_is_taken_when_no_other_date_is_printed(line: str,
                                                                         date: str) -> None:
    text = f"KEDAI RUNCIT MAJU\nJALAN SR1/9 SEKSYEN 9\n{line}\nTOTAL RM 79.50\nCASH 100.00\n"
    result = extract([text])
    assert result.values.get("date") == date
    labelled = extract([text.replace(line, "Date: 27/03/2018")])
    assert result.confidence["date"] < labelled.confidence["date"]  # eight digits: a guess


@pytest.mark.parametrize(("text", "date"), [
    ("MAJU TRADING\nDate: 25/01/2018\nMember 20171225 points\nTOTAL 9.00", "2018-01-25"),
    ("MAJU TRADING\nAccount 12345678\nTOTAL 9.00", None),  # no date of eight digits
    ("MAJU TRADING\nRef 27032018-01\nTOTAL 9.00", None),  # part of a longer reference
])
def test_eight_digits_are_no_date_beside_a_printed_one_or_when_no_date(text: str,
                                                                       date: str | None) -> None:
    assert extract([text]).values.get("date") == date


@pytest.mark.parametrize("word", ["CASH", "ROUNDING", "Rückgeld", "TOTAL", "CHANGE", "CODE", "DISC"])
def test_a_till_slips_word_alone_is_no_name(word: str) -> None:
    # the shop's name printed as a logo that OCR could not read: nothing is better than this
    text = f"uspsel | shat\n{word}\nRM 6.60\nDate: 04/12/2017\n"
    assert extract([text]).values.get("issuer") is None


def test_a_simplified_tax_invoice_is_a_receipt() -> None:
    # a retailer's till slip under GST/VAT rules (Malaysia, Singapore, Australia): no buyer
    text = ("KEDAI PAPAN YEW SENG SDN BHD\n(1093213-P)\nLOT 276, JALAN BANTING\n"
            "SIMPLIFIED TAX INVOICE\nDATE: 12/01/2018\nPAKU 3\" | 2 KG | 9.00\nTOTAL: 9.00\n")
    assert extract([text]).values["document_type"] == "receipt"


def test_a_tax_invoice_with_a_salesperson_a_card_and_a_time_is_a_till_slip() -> None:
    text = ("POPULAR BOOK CO. (M) SDN BHD\nTax Invoice\n20/03/18 19:42 | Salesperson: 023\n"
            "PILOT G2 0.5 BLK | 1 | 6.90\nTOTAL RM | 6.90\nVISA | 6.90\n")
    assert extract([text]).values["document_type"] == "receipt"


def test_a_brand_written_with_its_number_is_a_name_not_a_postcode() -> None:
    text = ("REMA 1000\nGrünerløkka\nThorvald Meyers gate 60, 0552 Oslo\nOrg.nr 987 654 321\n"
            "KVITTERING\nMELK | 21,90\nSUM | 36,80\nBANK | 36,80\nDato: 02.05.2024 Tid: 18:44\n")
    assert extract([text]).values["issuer"] == "REMA 1000"


@pytest.mark.parametrize(("text", "language"), [
    ("Frischmarkt Nord oHG\nHafenstr. 12, 20459 Hamburg\nROGGENBROT 2,49 B\nSUMME EUR 2,49\n"
     "12.02.2025 18:22 Bon-Nr.:4471\nVielen Dank für Ihren Einkauf", "de"),
    ("Boulangerie Martin\n12 rue de la Paix, 75002 Paris\nBaguette 1,20\nTOTAL 1,20 EUR\n"
     "12/02/2025\nMerci pour votre achat", "fr"),
])
def test_a_shops_thanks_for_the_purchase_marks_a_receipt(text: str, language: str) -> None:
    found = extract([text])
    assert found.language == language
    assert found.values["document_type"] == "receipt"


def test_thanks_for_the_business_on_an_invoice_keeps_it_an_invoice() -> None:
    # Norwegian invoices close with "Takk for handelen" (thanks for the trade)
    text = ("Faktura\nLarsen Data ASA · Karl Johans gate 6 · 0102 Oslo\nFakturanummer 48374\n"
            "Fakturadato 28. juni 2023\nÅ betale 2 719,07 kr\nTakk for handelen.")
    assert extract([text]).values["document_type"] == "invoice"


TILL_SLIP_TITLED_INVOICE = """TESCO STORES (MALAYSIA) SDN BHD
(Co. Reg. No. 270329-U)
GST Reg. No: 000866508800
TAX INVOICE
KLEENEX TISSUE | 8.99 SR
TOTAL | 8.99
VISA | 8.99
15/04/2018 18:32 0043 012 4571 2019"""


def test_a_slip_titled_tax_invoice_stamped_with_its_time_and_paid_by_card_is_a_receipt() -> None:
    assert extract([TILL_SLIP_TITLED_INVOICE]).values["document_type"] == "receipt"


def test_an_invoice_addressed_to_its_customer_needs_more_till_cues() -> None:
    text = ("Northwind Traders Ltd\nTAX INVOICE\nBill to: Fabrikam Ltd, 5 High Street, London\n"
            "Invoice no: 1047\nIssued 15/04/2018 18:32\nConsulting | 800.00\nTOTAL | 800.00\n"
            "Paid by VISA")
    assert extract([text]).values["document_type"] == "invoice"


@pytest.mark.parametrize(("text", "issuer"), [
    # a Spanish supermarket's slip: "KG" heads a column (and "€/KG" is a unit), no legal form;
    # the cooperative's name is in the footer
    ("12 - Av. del Puerto\nTlf.963553980\nC:0012 02/000027 07.01.2026 11:20\nUND PVP\n"
     "KG ARTICULO €/KG TOTAL\n1 PASTEL CREMA 3U 1,29\n2 RED BULL 0,25L 1,59 3,18\n"
     "Total factura: 4,47\nTarj. Crédito 4,47\nFACTURA SIMPLIFICADA\nHORTA VERDA, S.COOP.V.",
     "HORTA VERDA, S.COOP.V."),
    # a table's heading row over the items is no name either
    ("Buy at CL DELS LLEONS 48\n17/01/2026 11:51\nSimplified invoice No. 0103203-00196912\n"
     "DESCRIPTION QUANTITY KG PRICE TOTAL\nNAPOLITANA 2 ud €0,55 €1,10\nTotal to pay €1,10\n"
     "MERCAT NOU RETAIL, S.A.U. A80782519", "MERCAT NOU RETAIL, S.A.U."),
])
def test_a_column_heading_kg_is_a_unit_not_a_legal_form(text: str, issuer: str) -> None:
    assert extract([text]).values["issuer"] == issuer


@pytest.mark.parametrize(("text", "issuer"), [
    # the name shares its line with the document's title and number
    ("Harbor Dental Lab INVOICE #5371\n501 Club ave DATE: 07/20/2025\n"
     "Roseburg, OR, 97470, United States\nBill To\nPacific Smiles\nTotal $120.00",
     "Harbor Dental Lab"),
    # legal forms written with blanks or in two parts, and as OCR misreads them
    ("Sklep 3218 TARGOWA 4\nNowak Polska S. A.\nul. Zniwna 5, 62-025 Kostrzyn\n"
     "NIP 779-10-11-327\n18.11.2025 16:34\nSuma PLN 12,00", "Nowak Polska S. A."),
    ("Kasia sp. z.o. 0. sp. k.\nPoznanska 48, Jankowice\n62-080 Tarnowo\n2025-05-26\n"
     "Suma 4,63", "Kasia sp. z o.o. sp. k."),
    # a province's code after a comma is no Swedish "AB"
    ("Your Guest # is 697\nSakura Grill\nUnit 4 205 - 19th Avenue\nEdmonton, AB\n"
     "(780) 437-3363\nGST # 803689020\nDine-IN\nTotal 12.00", "Sakura Grill"),
    ("UNICOOP TIRRENO SOC. COOPERATIVA\nVIA DI GELLO, 17\nPORTA A LUCCA\n"
     "PORTA A LUCCA (PI), P.IVA 00407780485\nTOTALE 12,00", "UNICOOP TIRRENO SOC. COOPERATIVA"),
])
def test_names_beside_a_title_and_legal_forms_as_printed(text: str, issuer: str) -> None:
    assert extract([text]).values["issuer"] == issuer


@pytest.mark.parametrize(("word", "language"), [
    ("TAX INUOICE", "en"), ("PAID", "en"), ("SGST", "en"), ("BEZAHLT", "de"),
    ("TRANSAKTIONSBELEG", "de"), ("Wertpapierabrechnung", "de"),  # a type's compound
])
def test_stamps_tax_words_and_misread_titles_are_no_names(word: str, language: str) -> None:
    text = f"Token No : 1\n{word}\n{word}\nBill No : 10 Date : 29-10-2025\nTotal 120.00\n{word}"
    names = [c.value for c in issuer_candidates(Doc.from_pages([text]), language)]
    assert word not in names, names


@pytest.mark.parametrize(("text", "number"), [
    # a charging session's receipt: labels and values alternate, one a line
    ("Voltline Charging Ltd\nCharge Session Receipt\nReceipt Date: 7th Aug. 2026\nUser\n"
     "anna@example.com\nEVSE\n3ti-RBH1-06\nReceipt\n8846915\nProvider\nFuuse", "8846915"),
    ("PERNIAGAAN MAJU\nSIMPLIFIED TAX INVOICE\nReceipt# 05000846702\nDate: 09/03/2018\n"
     "TOTAL 5.00\nCASH 5.00", "05000846702"),
])
def test_a_receipts_number_after_the_word_receipt(text: str, number: str) -> None:
    assert extract([text]).values["invoice_number"] == number


@pytest.mark.parametrize(("text", "number", "date"), [
    # a restaurant till's check number, and its date with an apostrophe's two-digit year
    ("Trattoria Lucca\n177 Main Street\nServer 7 KURT B\nTbl 44/1\nChk 1527\n"
     "Dec27'16 08:46PM\n1 LASAGNA 26.00\nTotal 26.00", "1527", "2016-12-27"),
    ("HOTEL MIRADOR\nAvda. del Mar 1\nCHK 2104178 TBL 39/1\n10 Mar 19 14:01 PM\n"
     "1 Agua 4,50\nTotal 4,50", "2104178", "2019-03-10"),
    # a German till's "Beleg:" (its slip's number)
    ("Jack Wolfskin\nVorburg 1\n38440 Wolfsburg\nBeleg: 012345\nDatum: 25.08.2026 17:04:56\n"
     "Summe 84,00\nBar 100,00", "012345", "2026-08-25"),
    # a till's transaction number
    ("Sakura Grill\nEdmonton, AB\nTrans#: 16597    Serv: 100\n01/24/2015 4:36 PM\n"
     "Total 4.00\nCash 5.00", "16597", "2015-01-24"),
])
def test_a_restaurant_tills_check_number_and_date(text: str, number: str, date: str) -> None:
    got = extract([text]).values
    assert (got["invoice_number"], str(got["date"])) == (number, date)


def test_two_letters_under_ocr_debris_open_no_addressees_block() -> None:
    # "AN" (German "to") under "OP": noise atop a photo, not a recipient label; the shop's
    # legal name below it is the issuer and its card-terminal words make the slip a receipt
    text = ("OP\nAN\nGLOBUS\nGLOBUS Handelshof Wendel GmbH & Co.KG\nRiemker Str. 13 - 44809 Bochum\n"
            "Steuer-Nr. 040 154 09776\nSumme 40,92\nKartenzahlung\nTerminal-ID : 66078359\n"
            "Genehmigungs-Nr 4556\n12:31 Uhr\nDatum 16.08.24")
    got = extract([text]).values
    assert got["issuer"] in ("GLOBUS", "GLOBUS Handelshof Wendel GmbH & Co.KG")
    assert got["document_type"] == "receipt"
    letter = "An\nGLOBUS Handelshof Wendel GmbH & Co.KG\nRiemker Str. 13\n44809 Bochum\n"
    assert "GLOBUS Handelshof Wendel GmbH & Co.KG" not in [
        c.value for c in issuer_candidates(Doc.from_pages([letter + "Rechnung"]), "de")]


def test_a_german_tills_date_after_its_label_and_a_dot_and_its_change_in_ascii() -> None:
    text = ("Kaiser's Tengelmann GmbH\nLorettostraße 26\n40219 Düsseldorf\nZwischensumme EUR 15,95\n"
            "RUECKGELD EUR 4,05\nKasse 001/0010\nDat.31.08.2015 Zeit 19:22:02")
    got = extract([text]).values
    assert (str(got["date"]), got["document_type"]) == ("2015-08-31", "receipt")


def test_a_bill_with_a_due_date_is_no_till_receipt() -> None:
    # a power and phone bill: "Thank you" and a call list's times are a till's cues, but a
    # till's slip is paid when printed and names no date its payment is due
    bill = ("Tax Invoice 5000000001\nTax Invoice Date 29 July 2026\n"
            "Hi there, here's your latest bill due 17 August 2026.\nElectricity $395.18\n"
            "Payment - Thank you $329.07\nDate Time Call type Number Total\n"
            "21 Jun 26 7:28 am Message 04183 $0.00\nAmount due $414.18\n")
    assert extract([bill]).values["document_type"] == "invoice"


def test_a_cash_discount_is_no_payment_in_cash() -> None:
    counter = ("Invoice\nSOLD TO:\nE.T. ELECTRIC\nINVOICE NO.\n8802-1101363\nINVOICE DATE\n"
               "06/15/2026\nSALESPERSON\n6710 DH\nQTY ORDERED 2\nTOTAL DUE 162.45\n"
               "CASH DISCOUNT 1.38 OFF TOTAL DUE IF PAID BY THE 10TH\n")
    assert extract([counter]).values["document_type"] == "invoice"


def test_a_slip_with_no_type_word_its_time_and_a_subtotal_is_a_receipt() -> None:
    slip = ("Circle K\nDate: 2/18/2019 Time: 10:09:02 AM\n2 BIG CHIEF JERKY $6.98\n"
            "1 FANTA ORANGE SODA $2.69\nS-Total $19.39\nGST $0.61\nTotal $20.00\n")
    assert extract([slip]).values["document_type"] == "receipt"
    # a letter stamped with its time, without a subtotal, stays what it is
    note = "Circle K\nDate: 2/18/2019 Time: 10:09:02 AM\nPlease call us back.\n"
    assert extract([note]).values["document_type"] == "other"


def test_a_till_printers_version_is_no_date() -> None:
    slip = ("SDB COMERCIO DE ALIMENTOS LTDA\nCNPJ: 09.477.652/0095-76\nCUPOM FISCAL\n"
            "001 COMPOSTO LACT 400G 2 UN X 11,90 23,80\nTOTAL R$ 23,80\nMARCA: EPSON\n"
            "ECF-IF VERSAO:01.02.01 ECF:004\n20/09/2024 15:26:01\n")
    assert str(extract([slip]).values["date"]) == "2024-09-20"


def test_ocrs_date_line_with_its_blank_dropped_is_the_letters_date() -> None:
    # PP-OCR drops blanks: "Wien,11.08.2026" is a place and a date, not "1,11.08"
    letter = ("ATTENSAM\nAndieHausinhabungdesHauses\n1120Wien,Schallergasse35\n"
              "IhrStandort,Datum\nWien,11.08.2026\nKundennummer/Vertragsnummer\n"
              "Gesamtsumme\n156,53\nZahlungsbedingung:\nOhne Abzugbis 25.08.2026\n")
    assert str(extract([letter]).values["date"]) == "2026-08-11"
    # after a digit and its comma it is part of a number
    assert "date" not in extract(["Preis 1,11.08.2026"]).values


def test_a_title_with_its_number_run_into_it_names_the_type() -> None:
    page = ("ATTENSAM\nWien,11.08.2026\nKundennummer/Vertragsnummer\n1001371/ATT500347000\n"
            "RECHNUNG25777/10013710826KST606/4410\nNettowert 130,44\nGesamtsumme 156,53\n")
    assert extract([page]).values["document_type"] == "invoice"


@pytest.mark.parametrize("slip", [
    # a Finnish till roll: its loyalty card, a bottle deposit and the card terminal's heading
    ("K-market Töölöntori\nTykistönkatu 7, 00260 Helsinki\nY-tunnus: 3454352-1\n"
     "K002 M062265/8023 18.37\n1.1.2026\nFanta Sitruuna Zero 0,51\n2,19\n"
     "Pullopantti KMP 0,20\n0,20\nYHTEENSÄ\n2,39\nKANTA-ASIAKAS\nKORTTI: 7674\n"
     "CARD TRANSACTION\nVisa Credit\n"),
    # an Italian butcher's slip: cash and a time
    ("MACELLERIA\nLA IMPERIALE SNC\nVIA MARSALA, 97\nMANCIANO (GR)\nREPARTO_1\nTOTALE EURO\n"
     "CONTANTE\nGRAZIE\n50,00\n03-05-2018\n21:28\n"),
    # a French restaurant's bill: its covers and its thanks for the visit
    ("THÔLE . 14\n1 COUV. CEDRIC\nHOEGAARDEN 25CL 4.30\nTOTAL 19.40\nTANTE LUCIE\n"
     "38 QUAI DUPERRE\n17000 - LA ROCHELLE\nDIMANCHE 10-03-2019 13:34:28\n"
     "PRIX NETS en EURO - MERCI DE VOTRE VISITE\n"),
    # a fuel station's card slip: its small print's "agreement" is no contract
    ("SPEEDWAY\nLouisville KY\nTRAN# : 7723159\n3/2/2020\n9:47 AM\nRegular Unleaded\n"
     "TOTAL\n$18.62\nDebit\nTERM: 01\nTRANS TYPE:\nENTRY METHOD: Chip\n"
     "Cardholder agrees to\npay to issuer total\ncharges per the\nagreement between\n"
     "cardholder & issuer\n"),
])
def test_a_till_slip_without_a_type_word_is_a_receipt_by_its_till_words(slip: str) -> None:
    assert extract([slip]).values["document_type"] == "receipt"


def test_a_savings_banks_name_is_no_till() -> None:
    page = ("Banque et Caisse d'Epargne de l'Etat\nDécompte\nOpération du 12/03/2025 14:05\n"
            "Montant 1.250,00 EUR\n")
    assert extract([page]).values["document_type"] != "receipt"


@pytest.mark.parametrize(("line", "number"), [
    ("TRAN# : 7723159", "7723159"),
    ("REG#11 TRN#3591 CSHR#0000096", "3591"),
    ("Kvitt: 151860", "151860"),
])
def test_a_till_transactions_number_is_the_receipts(line: str, number: str) -> None:
    slip = (f"KIWI 277 Holt Vestvollen\nSalgskvittering\nORG.NR. 937 846 231 MVA\n"
            f"Foretaksregisteret\n05.09.18 19:23\n{line}\nKasse: 002\nSum 2 varer\n34,41\n"
            "Mva% Grunnlag Mva Totalt\nVELKOMMEN TILBAKE\n")
    assert extract([slip]).values["invoice_number"] == number


def test_due_on_receipt_is_a_payment_term_not_a_receipt() -> None:
    page = ("SPEEDOBITS INTERNET PRIVATE LIMITED\nRajkot Gujarat 360007\nGSTIN 24ABDCS7989K1ZK\n"
            "Invoice Date : 06/04/2026\nTerms : Due on Receipt\nDue Date : 06/04/2026\n"
            "Balance Due 6,254.00\n")
    assert extract([page]).values["document_type"] == "invoice"


def test_an_invoices_qty_column_and_printing_time_make_no_till_slip() -> None:
    page = ("Viridian International Ltd\nUnit 15 - 17 High March\nDaventry\n"
            "Customer Name & Address Delivery Address INVOICE COPY\nBeanfreaks Ltd\n"
            "Invoice Date: 27/11/2025\nInvoice No: 455863\n"
            "Qty Code Description Trade Price Line Total VAT%\n"
            "1.00 0310 Calcium & Vitamin D3 12.69 12.69 20.00\n"
            "VAT Registration No: GB738632315 Printed: Tuesday, 27/01/2026 (13:06)\n")
    assert extract([page]).values["document_type"] == "invoice"


@pytest.mark.parametrize("text", ["$ 18.79", "518 Main Street"])
def test_a_price_or_a_number_is_no_misread_sdn_bhd(text: str) -> None:
    # "S/B" (Sdn Bhd) misread as "$/B" or "5/B", not "$ 18" of a price
    assert fix_ocr_suffixes(text) == text


@pytest.mark.parametrize("slip", [
    # a drugstore's slip: a subtotal, paying by card and what is to pay
    ("MH Müller Handels GmbH\nHauptstr. 25\n76571 Gaggenau\n19.09.2026\n"
     "KS TREND STEINCHEN 2,79 2,79a\nZwischensumme 0,00 3,98\nZU BEZAHLEN 1,98\n"
     "Kartenzahlung EUR 1,98\n"),
    # a café's slip: its total and the time
    ("NEW CHAT CAFE'\nDI MERENDA MICHELE\nPARTITA IVA 61468000898\nVIA E.GAUDIOSO N 16\n"
     "TOTALE COMPLESSIVO ~~ 1.28\n02-09-2026 07:27\nDOCUMENTO N. 2319-0004\n"),
    # a Finnish till: the time written with a dot before the date
    ("K-Market Kuusamo\nKitkantie 1\n93600 Kuusamo\nKO01 M078134/1243 13.24 1.8.2026\n"
     "Pirkka appelsiini 7,53\nYHTEENSÄ 7,53\nY-tunnus 3207393-3\n"),
])
def test_a_total_line_is_a_till_cue_when_nothing_names_the_type(slip: str) -> None:
    assert extract([slip]).values["document_type"] == "receipt"


def test_a_total_label_above_its_amount_is_no_till_cue() -> None:
    # a securities settlement: "Gesamt" over its amount, a time in a sentence
    page = ("Trade Republic Bank GmbH\nMarket-Order Verkauf am 30.12.2020, um 13:54 Uhr.\n"
            "Position\nBetrag\nAdvanced Micro Devices Inc.\nGesamt\n517,58 EUR\n")
    assert extract([page]).values["document_type"] != "receipt"


def test_a_long_card_statements_cash_and_thanks_make_no_till_slip() -> None:
    rows = "\n".join(f"09/{day % 28 + 1:02d}/23 MERCHANT {day} ${day}.00" for day in range(210))
    page = ("Blue Cash® from American Express\nClosing Date 09/27/23\nCash Advance Limit $500\n"
            "Available Cash $500\n09/22/23* MOBILE PAYMENT - THANK YOU -$6,583.67\n"
            f"{rows}\nDeposited upon receipt by 5 p.m. 17:00\n")
    assert extract([page]).values["document_type"] != "receipt"


def test_a_returns_deadline_thru_a_date_is_not_the_slips_date() -> None:
    slip = ("Longs Drugs\n4211 WAIALAE AVE\nHONOLULU, HI 96816\nREG#11 TRN#3591 CSHR#0000096\n"
            "1 HLMRK EVERYDY CARD ASST\n4.99T\nSUBTOTAL\n17.36\nTOTAL\n18.18\nCHARGE\n18.18\n"
            "VISA DEBIT\nAPPROVED# 031652\nTRAN TYPE: SALE\nNO SIGNATURE REQUIRED\nCHANGE\n.00\n"
            "Returns with receipt, subject to\nCVS Return Policy, thru 08/07/2023\n"
            "Refund amount is based on price\nJUNE 8, 2023\n6:17 PM\n")
    assert extract([slip]).values["date"] == "2023-06-08"


def test_a_till_slips_bare_transaction_label_numbers_it() -> None:
    slip = ("EURO CAFE & BAKERY\n6917 SOUTHSIDE DR\nLOUISVILLE, KY 40214\nTransaction 117816\n"
            "Total\n$7.00\nDEBIT CARD SALE\n$7.00\n01-Mar-2020 9:23:18A\n"
            "$7.00 | Method: CONTACTLESS\nAuth #: 082309\n")
    assert extract([slip]).values["invoice_number"] == "117816"


def test_a_loyalty_accounts_closing_balance_on_a_till_slip_leaves_it_a_receipt() -> None:
    """"CLOSING BALANCE" (a rewards account) ties with "THANK YOU FOR SHOPPING": the till's
    cues decide, and the total paid is the total, not what was saved."""
    slip = ("Walgreens\n#03296 191 E 3RD AVE\nSAN MATEO, CA 94401\n"
            "117 | 47820022 05/24/2022 1:10 PM\nRED BULL ENRGY DRNK CNS 8.4OZ 6PK\n"
            "61126943157 | 8.79 SALE\nSUBTOTAL | 27.60\nSALES TAX A=9.625% | 1.93\n"
            "TOTAL | 29.53\nVISA ACCT 1850 | 29.53\nAUTH CODE | 798553\nCHANGE | .00\n"
            "THANK YOU FOR SHOPPING AT WALGREENS\nTOTAL SAVINGS | $1.20\n"
            "myWalgreens ACCT # ********0053\nEARNED THIS VISIT | $1.14\n"
            "CLOSING BALANCE | $1.40\n")
    values = extract([slip]).values
    assert values["document_type"] == "receipt"
    assert values["amount"] == "29.53"


def test_a_thanks_broken_over_two_lines_names_nobody() -> None:
    """"THANK YOU FOR" / "SHOPPING" opening a fuel slip: the second line ends the sentence,
    the station's name follows (its store number cut); a thanks naming the shop on its
    second line names it."""
    slip = ("THANK YOU FOR\nSHOPPING\nDAILY'S # 6607\n101 GALLATIN RD. NORTH\n"
            "MADISON TN 37115\nFUEL AUTH FOR PUMP #09\nSub Total 10.00\nTOTAL\n10.00\n"
            "INVOICE: 828285\n08/14/2019 10:52:11\n")
    assert extract([slip]).values["issuer"] == "DAILY'S"
    thanks = ("23 MAIN ST\nSPRINGFIELD IL 62701\nTOTAL 4.20\nCASH 5.00\nCHANGE 0.80\n"
              "08/14/2019 10:52\nTHANK YOU FOR SHOPPING AT\nWALMART\n")
    assert extract([thanks]).values["issuer"] == "WALMART"


def test_ocrs_stutter_of_a_letter_is_no_name() -> None:
    """A smudge read as "LEESEEEEEEE IChk Copy 31 SRL" ends in a legal form, yet the bar's
    name at the top is the issuer."""
    bill = ("RAFFLES\n287 King's Road\nLondon. SW3 5EW\nTEL: 020 7351 4964\nCheck 30001\n"
            "THU\n1/11/12\nLEESEEEEEEE IChk Copy 31 SRL\n3 OP MATH\n240.00\n10 ZOMBIE\n"
            "300.00\nTotal Due\n540.00\n")
    assert extract([bill]).values["issuer"] == "RAFFLES"


@pytest.mark.parametrize("text, issuer", [
    ("Kahvila Äimä\nMannerheimintie 17\n00100 Helsinki\nKUITTI\n24.10.2024 10:40\n"
     "Kassa 1 Kuitti 8047\nMyyjä: Anna\nKorvapuusti 8,59\nYHTEENSÄ 14,35\nKäteinen 20,00\n"
     "Takaisin 5,65\nKiitos käynnistä!", "Kahvila Äimä"),
    ("Getränke Rößler\nHauptstraße 11\n80331 München\n14.04.2024 12:35\nVerkäufer: Tom\n"
     "Apfelschorle 7,30\nSUMME EUR 7,30\nBar 10,00\nRückgeld 2,70", "Getränke Rößler"),
])
def test_a_first_name_after_a_seller_label_on_a_till_slip_served(text: str,
                                                                  issuer: str) -> None:
    assert extract([text]).values["issuer"] == issuer


def test_a_one_word_seller_on_an_invoice_is_still_the_seller() -> None:
    text = ("Order summary\nSold by: Zalando\nInvoice number: 2024-118\n"
            "Invoice date: 14 March 2024\nBill to:\nJane Doe\n1 Main Street\nTotal: 59.90 EUR")
    assert extract([text]).values["issuer"] == "Zalando"


@pytest.mark.parametrize("line, name", [
    ("avenida Cafés, Lda.", "avenida Cafés, Lda."),  # PP-OCR lost the name's capital
    ("bei Müller Druck GmbH", "Müller Druck GmbH"),
    ("operated by Kingsley Software Inc.", "Kingsley Software Inc."),
])
def test_a_single_long_small_letter_word_opening_a_name_is_the_names(line: str,
                                                                      name: str) -> None:
    from renamerd.engine.fields.issuer_extent import after_lower_case_words

    end = len(line)
    assert line[after_lower_case_words(line, 0, end):end] == name


def test_a_shop_in_capitals_after_a_merchant_label_on_a_card_slip_is_the_shop() -> None:
    text = ("CARD RECEIPT\nMERCHANT: WALMART\n04/14/2024 12:35\nCASHIER 12\nTOTAL 7.30\n"
            "CASH 10.00\nCHANGE 2.70")
    assert extract([text]).values["issuer"] == "WALMART"


@pytest.mark.parametrize("address", ["Edmonton. AB", "10768 - 99 Street, Edmonton AB T5H 1N7",
                                     "Calgary, AB"])
def test_albertas_code_in_an_address_is_no_swedish_company_form(address: str) -> None:
    from renamerd.engine.fields.names import legal_suffix

    assert legal_suffix(address) is None
    assert legal_suffix("Ängsgårdens Bröd AB") is not None
    text = (f"COSTCO WHOLESALE\n{address}\nMember 111822301\n05/14/2024 14:32\n"
            "KIRKLAND WATER 4.99\nSUBTOTAL 4.99\nTOTAL 5.24\nCASH 10.00\nCHANGE 4.76")
    assert extract([text]).values["issuer"] == "COSTCO WHOLESALE"


@pytest.mark.parametrize(("text", "issuer"), [
    # a pharmacy's sign over two lines, its pharmacist's line below it
    ("FARMACIA\nSAN ROCCO\ndella Dott.ssa Lucia Ferretti\nVia Garibaldi 27\n40124 Bologna (BO)\n"
     "Tel. 051 644 2190\nP.IVA 03148820371\nDOCUMENTO COMMERCIALE\nTACHIPIRINA 500MG | 5,90\n"
     "TOTALE COMPLESSIVO | 26,50\nPagamento elettronico | 26,50", "FARMACIA SAN ROCCO"),
    # a wordmark whose "O" OCR read as a zero, over a street with no house number
    ("HOLLYBRO0K\nFOODS\nStation Parade, Harrogate\nHG1 1TT Tel 01423 508 114\n"
     "VAT Reg No GB 318 4476 21\nSEMI SKIMMED MILK 4PT | 1.65\nBALANCE DUE | 18.27\n"
     "CONTACTLESS | 18.27\nCHANGE | 0.00\nReturn by 14/04/26\nHollybrook Foods is operated by\n"
     "Kestrel Retail Ltd, Reg. in England\nTHANK YOU FOR SHOPPING WITH US", "HOLLYBROOK FOODS"),
    # a fuel station's brand, its branch under it, its operating company in the footer
    ("FLINK Tank\nStation Hamm-Süd\nWerler Straße 211\n59063 Hamm\nBeleg-Nr. 7731 | Kasse 01\n"
     "Datum 09.03.26 | Zeit 07:48\nSumme EUR | 79,73\nGirocard | 79,73\n"
     "Betreiber: Mineralölhandel Kröger GmbH", "FLINK Tank"),
    # a franchise supermarket: the brand on top, the franchisee under it
    ("BUURTMARKT\nLombok - Kanaalstraat 88\n3531 CJ Utrecht\nTel 030-294 11 73\n"
     "Franchisenemer: Supermarkt De Vries\nB.V.\nHALFVOLLE MELK 1L | 1,29\nTOTAAL | 41,37\n"
     "PIN | 41,37", "BUURTMARKT"),
])
def test_a_shops_sign_over_its_branch_owner_or_franchisee(text: str, issuer: str) -> None:
    assert extract([text]).values["issuer"] == issuer


def test_a_portuguese_simplified_invoice_is_a_till_slip() -> None:
    text = ("Padaria\nEstrela do Norte\nEstrela do Norte - Panificação, Lda.\n"
            "Rua de Cedofeita, 302\n4050-174 Porto\nContribuinte: 514 228 907\n"
            "FATURA SIMPLIFICADA\nFS 2026A/1182\nData: 2026-03-02 | Hora: 07:31\n"
            "Pão de Água x6 | 1,50 6%\nTOTAL | 9,90 €\nMultibanco | 9,90\n"
            "Obrigado pela preferência!")
    assert extract([text]).values["document_type"] == "receipt"


def test_a_car_parks_receipt_is_dated_when_paid_not_when_the_car_came_in() -> None:
    text = ("CityPark\nMerrion Street Car Park\nLeeds LS2 8JE\nPAY ON FOOT - VAT RECEIPT\n"
            "Ticket No | 0044817226\nEntry | 16 MAR 2026 21:36\nExit paid | 17 MAR 2026 09:14\n"
            "Duration | 11h 38m\nAmount Paid | £14.50\nPayment | Contactless VISA")
    assert extract([text]).values["date"] == "2026-03-17"


def test_an_australian_chemists_tax_invoice_paid_by_eftpos_is_a_till_slip() -> None:
    text = ("CareWell\nCHEMIST\nFitzroy\n301 Brunswick St, Fitzroy VIC\n3065\nPh (03) 9417 3321\n"
            "ABN 61 142 880 537\nTAX INVOICE\nDate: 05/02/2026 | Time: 10:14\n"
            "Panadol Rapid 20 | 6.49\nHand Cream 75ml | 9.95*\nTOTAL | $16.44\nEFTPOS | 16.44\n"
            "Incl GST (*) | 0.90")
    assert extract([text]).values["document_type"] == "receipt"


def test_a_florists_delivery_date_is_not_the_slips() -> None:
    text = ("Fleurs de Lune\nArtisan fleuriste\n8 rue Mercière, 69002 Lyon\n"
            "Ticket n° 000318 Caisse 1\nLe 14/02/2026 à 10:32\nVendeuse: Amandine\n"
            "Bouquet roses rouges x12 | 48,00\nTOTAL TTC | 89,40 €\nCB | 89,40\n"
            "Livraison prévue le 15/02/2026\nentre 9h et 12h\nMerci de votre visite!")
    assert extract([text]).values["date"] == "2026-02-14"


def test_a_bakerys_branch_and_owner_lines_under_its_brand() -> None:
    text = ("Backstube Kröger\nFiliale Lüneburg Am Sande\nInh. Jürgen Meißner e.K.\n"
            "Am Sande 14, 21335 Lüneburg\nUSt-IdNr.: DE 294 817 553\nBon-Nr.4471 | Kasse 2\n"
            "Bed.: FrauSchäfer\n2 × Roggenbrötchen à 0,45 | 0,90 A\n1 x Mohnschnecke | 1,95 A\n"
            "1 x Bauernbrot 1000g | 4,20 A\n1 x Kaffee groß | 2,80 B\nSUMME EUR | 9,85\n"
            "Gegeben BAR | 20,00\nRückgeld | 10,15\nMwSt. Netto Steuer Brutto\n"
            "A 7% 6,59 0,46 7,05\nB 19% 2,35 0,45 2,80\n03.02.2021 07:42 Beleg 4471\n"
            "TSE-Start: 2021-02-03T07:41:58\nTSE-Ende:2021-02-03T07:42:31\n"
            "Vielen Dank für Ihren Einkauf!")
    assert extract([text]).values["issuer"] == "Backstube Kröger"


def test_a_spanish_fuel_slips_car_wash_offer_is_no_quote() -> None:
    text = ("PETROLUZ\nE.S. PETROLUZ ALCALÁ\nGasóleos del Henares S.L.\nCtra. N-II km 33,5\n"
            "28805 Alcalá de Henares (Madrid)\nCIF: B-86412395\nFecha: 23-05-2023 Hora: 18:05\n"
            "Surtidor: 6 Empleado: Rocío\nGASÓLEO A 41,32 Lx 1,589 65,66\nTOTAL EUR 75,16\n"
            "TARJETA 75,16\nPago con tarjeta ****3390\nGracias por su visita. Buen viaje.\n"
            "Oferta lavado válida hasta 30/06/2023")
    assert extract([text]).values["document_type"] == "receipt"
