"""Labels a text layer ran into their values, or split from them (engine/fields/glued.py)."""

from __future__ import annotations

import pytest

from renamerd.engine.fields import extract
from renamerd.engine.fields.glued import rejoined, unglued


@pytest.mark.parametrize(("row", "expected"), [
    ("Rechnungsdatum08 Oktober 2025", "Rechnungsdatum 08 Oktober 2025"),
    ("RechnungsnummerES51NKNMSAEUS", "Rechnungsnummer ES51NKNMSAEUS"),
    ("Zahlbetrag891,66 €", "Zahlbetrag 891,66 €"),
    ("Invoice number:INV-7", "Invoice number:INV-7"),  # a colon already parts them
    ("Date de facture12/03/2024", "Date de facture 12/03/2024"),
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
])
def test_words_that_only_begin_with_a_label_are_left_alone(row: str) -> None:
    assert unglued(row) == row


def test_a_slash_joined_label_broken_over_two_lines_is_one_line() -> None:
    assert rejoined(["Rechnungsdatum", "/Lieferdatum 29 Dezember 2025", "/ 12"]) == [
        "Rechnungsdatum/Lieferdatum 29 Dezember 2025", "/ 12"]
    assert rejoined(["Total 12.00", "/month"]) == ["Total 12.00", "/month"]


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
