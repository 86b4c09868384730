"""Labels a text layer ran into their values, or split from them (engine/fields/glued.py)."""

from __future__ import annotations

import pytest

from renamerd.engine.fields import extract
from renamerd.engine.fields.glued import camel_parted, rejoined, spaced_out, unglued


@pytest.mark.parametrize(("row", "expected"), [
    ("Rechnungsdatum08 Oktober 2025", "Rechnungsdatum 08 Oktober 2025"),
    ("RechnungsnummerES51NKNMSAEUS", "Rechnungsnummer ES51NKNMSAEUS"),
    ("Zahlbetrag891,66 €", "Zahlbetrag 891,66 €"),
    ("Invoice number:INV-7", "Invoice number:INV-7"),  # a colon already parts them
    ("Date de facture12/03/2024", "Date de facture 12/03/2024"),
    # a value running into the next label
    ("Rechnung #: 67389368Datum: 31/08/2022Fällig am: 31/08/2022",
     "Rechnung #: 67389368 Datum: 31/08/2022 Fällig am: 31/08/2022"),
    # a title drawn twice, then its label
    ("RechnungRechnung #: 67389368Datum: 31/08/2022",
     "Rechnung Rechnung #: 67389368 Datum: 31/08/2022"),
])
def test_a_label_run_into_its_value_gets_its_blank_back(row: str, expected: str) -> None:
    assert unglued(row) == expected


@pytest.mark.parametrize("row", [
    "TotalEnergies SE",  # one capital after the label's letters: a name
    "Gesamtpreis891,66 €",  # "Gesamt" begins a longer word, not a known label
    "Rechnungsnummern und Daten",  # a longer word
    "Telekom Deutschland GmbH",
    "iPhone15 Pro",  # no label
    "Rechnung Nr. 2024-17",  # already apart
    "Lot 5B Road", "Model 3Datumsanzeige",  # no label after the digit, or a longer word
    "BonBon Shop", "Rechnungsrechnung",  # a short word twice, a word and its lower-case twin
])
def test_words_that_only_begin_with_a_label_are_left_alone(row: str) -> None:
    assert unglued(row) == row


def test_a_slash_joined_label_broken_over_two_lines_is_one_line() -> None:
    assert rejoined(["Rechnungsdatum", "/Lieferdatum 29 Dezember 2025", "/ 12"]) == [
        "Rechnungsdatum/Lieferdatum 29 Dezember 2025", "/ 12"]
    assert rejoined(["Total 12.00", "/month"]) == ["Total 12.00", "/month"]


SPACED_OUT = """I n v o i c e  n u m b e r  7 6 2 5 3 8 1 5
D a t e  o f  i s s u e  A p r i l  1 3 ,  2 0 2 3
L u m e n  S o f t w a r e  G m b H
P e t e r - B e h r e n s - P l a t z  2
A   4 0 2 0  L i n z
B i l l  t o
N o r d w i n d  T r a d e r s  L t d
T o t a l  € 9 9 . 0 0"""


def test_a_page_drawn_one_letter_at_a_time_gets_its_words_back() -> None:
    assert spaced_out(SPACED_OUT).splitlines()[:3] == [
        "Invoice  number  76253815", "Date  of  issue  April  13,  2023", "Lumen  Software  GmbH"]
    found = extract([SPACED_OUT]).values
    assert (found["issuer"], found["date"], found["invoice_number"]) == (
        "Lumen Software GmbH", "2023-04-13", "76253815")


def test_a_page_with_a_few_single_letters_is_left_alone() -> None:
    page = "Invoice a 1 b 2\nTable: 1 x 2 B 3 C\n" + "Lumen Software GmbH bills you\n" * 10
    assert spaced_out(page) == page


MARKETPLACE_INVOICE = """Rechnung
Verkauft von Nordlicht Handel GmbH
USt-IDNr. DE123456789
Bestelldatum08 Oktober 2025
Bestellnummer302-1725553-0374723
Rechnungsdatum
/Lieferdatum09 Oktober 2025
RechnungsnummerDE51NKNMSAEUS
Zahlbetrag891,66 €
"""


def test_a_marketplace_invoice_with_its_labels_run_in_is_read() -> None:
    found = extract([MARKETPLACE_INVOICE]).values
    assert found["date"] == "2025-10-09"  # the invoice's date, not the order's
    assert found["invoice_number"] == "DE51NKNMSAEUS"
    assert found["issuer"] == "Nordlicht Handel GmbH"


def test_one_label_for_a_number_and_its_date_is_read_as_two() -> None:
    assert rejoined(["Rechnungsnr./-datum 0000000002 / 27.11.2025"]) == [
        "Rechnungsnr. 0000000002", "Rechnungsdatum 27.11.2025"]
    assert rejoined(["Invoice No./Date: 118 / 14.08.2026"]) == [
        "Invoice No. 118", "Invoice Date 14.08.2026"]
    page = ("Rechnung\nMöbelhaus Krone GmbH | Am Markt 5 | 01099 Dresden\n"
            "Ihre Referenznr. 0000000001 / 25.11.2025\nKunde 0000001\n"
            "Rechnungsnr./-datum 7741205 / 27.11.2025\n"
            "Lieferscheinnr./-datum 0000000003 / 26.11.2025\nGesamtbetrag 2.849,00 EUR\n")
    values = extract([page]).values
    assert values["invoice_number"] == "7741205"
    assert str(values["date"]) == "2025-11-27"


def test_bold_type_read_with_each_character_doubled_is_read_once() -> None:
    assert unglued("EElleeccttrriicc KKiiwwii LLiimmiitteedd Electric Kiwi will") == (
        "Electric Kiwi Limited Electric Kiwi will")
    assert unglued("IInnvvooiiccee ##:: 1600000001") == "Invoice #: 1600000001"
    # words that merely hold doubled letters, and numbers, stay as they are
    assert unglued("Bookkeeper 1100 Mississippi") == "Bookkeeper 1100 Mississippi"
    # drawn three times over
    assert unglued("IIInnnvvvoooiiiccceee::: 333777333222999444") == "Invoice: 373294"


@pytest.mark.parametrize(("row", "expected"), [
    ("BETALINGDatum22/08/2025 12:55", "BETALING Datum 22/08/2025 12:55"),
    ("INVOICEDate: 12.03.2024", "INVOICE Date: 12.03.2024"),
    ("TOTALEnergies SE", "TOTALEnergies SE"),  # no label after the capitals
    ("Rechnungsdatum 12.03.2024", "Rechnungsdatum 12.03.2024"),  # a compound's own label
])
def test_a_word_in_capitals_run_into_a_label_is_parted(row: str, expected: str) -> None:
    assert unglued(row) == expected


def test_a_colon_and_value_read_as_the_next_line_join_their_label() -> None:
    assert rejoined(["Jenar Kopi", "No", ": JKK01202512250148", "Mode", ": DINE IN"]) == [
        "Jenar Kopi", "No : JKK01202512250148", "Mode : DINE IN"]
    slip = "Jenar Kopi\nNo\n: JKK01202512250148\nTanggal\n: 25-12-2025 11:43\nTotal 40.000\n"
    values = extract([slip]).values
    assert values["invoice_number"] == "JKK01202512250148"
    assert str(values["date"]) == "2025-12-25"


def test_a_german_slips_bon_number_is_its_number() -> None:
    slip = ("MODEHAUS KRONE\nGarstedter Weg 14\n22453 Hamburg\n1 Jeans 49,99\n"
            "gegeben : Bar 50,00\nRückgeld: 0,01\nBon: 79535 05.01.17 13:45:30\nKasse: 01\n")
    assert extract([slip]).values["invoice_number"] == "79535"


def test_a_page_written_without_blanks_gets_its_words_parted() -> None:
    page = ("TAX INVOICE InvoiceDate ScottFPSLimited\n9Apr2026\nUnit1,AtlanticPoint\n"
            "InvoiceNumber TradingEstate\nBeanfreaksLtd\nINV-10289 AtlanticPoint\nHeadOffice\n"
            "Description Quantity UnitPrice VAT AmountGBP\n"
            "AnnualExtinguisherMaintenance 1.00 31.00\nGaugeGlassPressureTest 3.00 1.25\n"
            "SealingKits 4.00 1.95\nTOTALGBP 52.56\nDueDate: 9May2026\nPaymentinstructions\n"
            "BankDetails:Barclays.SortCode20-18-27\nCompanyRegistrationnumber-08288743\n"
            "PAYMENTADVICE\nCustomer BeanfreaksLtd\nInvoiceNumber INV-10289\n")
    parted = camel_parted(page)
    assert "Scott FPS Limited" in parted and "Invoice Number" in parted
    assert extract([page]).values["invoice_number"] == "INV-10289"


def test_a_brand_run_together_on_a_page_with_blanks_stays() -> None:
    page = ("TotalEnergies Marketing Deutschland GmbH\nRechnung Nr. 4711 vom 03.04.2026\n"
            "Bitte überweisen Sie den Betrag bis zum 17.04.2026 auf unser Konto bei der Bank.\n")
    assert camel_parted(page) == page


def test_a_two_letter_label_runs_into_a_digit_only() -> None:
    # Italian "li" (a date's label) is no label inside "LIMITED"
    assert unglued("LIMITED Unit2.") == "LIMITED Unit2."


def test_a_heading_cell_wrapped_before_its_sign_is_joined() -> None:
    # "INVOICE #" too wide for its cell: "INVOICE" / "# DATE" over the values' row
    assert rejoined(["INVOICE", "# DATE", "1087 05/14/2025"]) == ["INVOICE # DATE",
                                                                  "1087 05/14/2025"]
    assert rejoined(["Total 12.00", "# 2 Widget"]) == ["Total 12.00", "# 2 Widget"]
    text = ("Redwood & Pine Cabinetry LLC\n1480 Industrial Way\nEugene, OR 97402\nINVOICE\n"
            "# DATE\n1087 05/14/2025\nBILL TO\nJonathan Alvarez\nTOTAL DUE $3,830.00")
    assert extract([text]).values["invoice_number"] == "1087"
