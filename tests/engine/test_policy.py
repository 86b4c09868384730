"""The confidence policy (keep / review / rename) at engine level, and the meaningful part of
an original file name that an unread field never replaces."""

from __future__ import annotations

import pytest

from engine.docmaker import make_pdf
from renamerd.engine import EngineConfig, RenameOptions, rename
from renamerd.engine.policy import meaningful_stem

INVOICE = ["Schneider Logistik GmbH", "Hauptstraße 5 · 10115 Berlin", "", "Rechnung",
           "Rechnungsnummer: RE-2024-0815", "Rechnungsdatum: 05.03.2024",
           "Gesamtbetrag: 1.190,00 €", "", "Schneider Logistik GmbH · USt-IdNr. DE123456789"]


@pytest.fixture(scope="module")
def notes() -> bytes:
    """A document nothing can be read from (no date, no type, no company)."""
    return make_pdf(["plant tomatoes after the frost", "water the roses twice a week"])


@pytest.fixture(scope="module")
def invoice() -> bytes:
    return make_pdf(INVOICE)


@pytest.mark.parametrize("name, meaningful", [
    ("Garden notes May.pdf", True), ("Rechnung Telekom März.pdf", True),
    ("Steuer 2023 Belege.pdf", True), ("家計簿メモ.pdf", True),
    ("scan_0001.pdf", False), ("IMG_2024.jpg", False), ("document(3).pdf", False),
    ("Scan 12 Jan 2024.pdf", False), ("Screenshot 2024-05-03 at 10.12.33.png", False),
    ("PXL_20240503_101233.jpg", False), ("3fa85f64-5717-4562-b3fc-2c963f66afa6.pdf", False),
    ("invoice.pdf", False), ("Untitled.pdf", False), ("WhatsApp Image 2024-05-03.jpeg", False),
    ("", False), ("\u202eexe.pdf", True),
])
def test_meaningful_names(name: str, meaningful: bool) -> None:
    assert (meaningful_stem(name) is not None) is meaningful


def test_review_is_the_default_and_costs_nothing(notes: bytes) -> None:
    r = rename(notes, "Garden notes May.pdf", RenameOptions(strategy="by_date_issuer"))
    assert r.confidence < 0.5
    assert (r.suggested_filename, r.folder_path, r.renamed) == ("Garden notes May.pdf",
                                                                 "Review", False)
    body = r.to_api()
    assert body["renamed"] is False
    assert body["kept"]["reason"] == "below_confidence" and body["kept"]["policy"] == "review"
    assert body["kept"]["threshold"] == 0.5 and "date" in body["kept"]["fields"]
    assert "review folder" in body["kept"]["message"]
    assert body["extractedInfo"]["document_type"] == "other"  # what was read is still said


def test_keep_leaves_the_document_where_it_is(notes: bytes) -> None:
    r = rename(notes, "scan_0001.pdf", RenameOptions(strategy="by_all", below_confidence="keep"))
    assert (r.suggested_filename, r.folder_path, r.renamed) == ("scan_0001.pdf", "", False)
    assert r.kept is not None and r.kept.policy == "keep"


def test_rename_renames_anyway_but_keeps_a_meaningful_name(notes: bytes) -> None:
    options = RenameOptions(strategy="by_date", below_confidence="rename")
    r = rename(notes, "Garden notes May.pdf", options)
    assert r.renamed is False  # nothing better than the name it had
    assert r.suggested_filename == "Garden notes May.pdf" and r.folder_path == "undated"
    assert r.kept is not None and r.kept.reason == "unread_fields"
    assert set(r.kept.fields) >= {"date", "document_type"}
    scanned = rename(notes, "scan_0001.pdf", options)
    assert scanned.suggested_filename == "other.pdf" and scanned.renamed
    assert scanned.kept is None  # a scanner name is not worth keeping


def test_a_confident_document_is_renamed_whatever_the_policy(invoice: bytes) -> None:
    for policy in ("keep", "review", "rename"):
        r = rename(invoice, "scan_0001.pdf", RenameOptions(below_confidence=policy))
        assert r.renamed and r.kept is None and r.confidence >= 0.5
        assert r.suggested_filename == "2024-03-05_Schneider-Logistik-GmbH_invoice_RE-2024-0815.pdf"


def test_an_unread_field_takes_the_meaningful_name_not_the_type_word() -> None:
    no_company = make_pdf(["Rechnung", "Rechnungsnummer: RE-2024-0815",
                           "Rechnungsdatum: 05.03.2024", "Gesamtbetrag: 1.190,00 €"])
    r = rename(no_company, "Telekom Festnetz März.pdf", RenameOptions(below_confidence="rename"))
    assert "issuer" not in r.extracted_info
    assert r.suggested_filename == "2024-03-05_Telekom Festnetz März_invoice_RE-2024-0815.pdf"
    assert r.kept is not None and r.kept.fields == ("issuer",) and r.renamed


def test_the_threshold_comes_from_the_options_then_the_config(invoice: bytes) -> None:
    strict = RenameOptions(confidence_threshold=0.99, below_confidence="review")
    r = rename(invoice, "a.pdf", strict)
    assert not r.renamed and r.folder_path == "Review"
    config = EngineConfig(confidence_threshold=0.99, below_confidence="keep",
                          review_folder="Zu prüfen")
    r = rename(invoice, "a.pdf", RenameOptions(), config)
    assert not r.renamed and r.folder_path == "" and r.kept and r.kept.policy == "keep"
    r = rename(invoice, "a.pdf", RenameOptions(below_confidence="review"), config)
    assert r.folder_path == "Zu prüfen"
    r = rename(invoice, "a.pdf", RenameOptions(confidence_threshold=0.0), config)
    assert r.renamed


@pytest.mark.parametrize("options, field", [
    (RenameOptions(below_confidence="skip"), "belowConfidence"),
    (RenameOptions(confidence_threshold=1.5), "confidenceThreshold"),
    (RenameOptions(confidence_threshold=-0.1), "confidenceThreshold"),
])
def test_bad_policy_options_name_the_field(invoice: bytes, options: RenameOptions,
                                           field: str) -> None:
    with pytest.raises(ValueError, match=field):
        rename(invoice, "a.pdf", options)


def test_the_kept_name_is_cleaned(notes: bytes) -> None:
    r = rename(notes, "bad\u202e/../name\u200b.pdf", RenameOptions())
    assert r.suggested_filename == "bad-.-name.pdf"  # safe: no ".." run in a name
    assert r.original_filename == "bad-..-name.pdf"
    assert not r.renamed
