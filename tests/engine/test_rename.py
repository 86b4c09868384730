"""rename(): bytes in, RenameResult out; options, formats, pages read, safe names."""

from __future__ import annotations

import pytest

from engine.docmaker import make_docx, make_pdf, make_pdf_pages, make_scan
from renamerd.engine import (
    EngineConfig,
    RenameOptions,
    UnsupportedDocument,
    rename,
)

LINES = ["Schneider Logistik GmbH", "Hauptstraße 5 · 10115 Berlin", "",
         "Rechnungsempfänger:", "Müller Bau AG", "Gartenweg 3", "20095 Hamburg", "",
         "Rechnung", "Rechnungsnummer: RE-2024-0815", "Rechnungsdatum: 05.03.2024",
         "Zahlbar bis: 19.03.2024", "Gesamtbetrag: 1.190,00 €", "",
         "Schneider Logistik GmbH · USt-IdNr. DE123456789 · Deutsche Bank AG"]


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return make_pdf(LINES)


def test_result_shape_and_values(pdf: bytes) -> None:
    r = rename(pdf, "scan 7.pdf", RenameOptions(strategy="by_date_issuer"))
    body = r.to_api()
    assert body["originalFilename"] == "scan 7.pdf"
    assert body["extractedInfo"] == {"date": "2024-03-05", "issuer": "Schneider Logistik GmbH",
                                     "invoice_number": "RE-2024-0815",
                                     "document_type": "invoice", "amount": "1190.00",
                                     "currency": "EUR"}
    assert body["folderPath"] == "2024/Schneider Logistik GmbH"
    assert body["suggestedFilename"] == \
        "2024-03-05_Schneider-Logistik-GmbH_invoice_RE-2024-0815.pdf"
    assert body["organizationStrategy"] == "by_date_issuer" and body["templateUsed"] == "auto"
    assert 0.8 < body["confidence"] <= 1
    assert r.detected_language == "de" and r.mime_type == "application/pdf"
    assert {e.field for e in r.evidence} >= {"date", "issuer", "invoice_number"}


def test_predefined_standard_and_custom_templates(pdf: bytes) -> None:
    r = rename(pdf, "a.pdf", RenameOptions(template_mode="predefined", template_id="standard"))
    assert r.suggested_filename == "2024-03-05_Schneider-Logistik-GmbH_RE-2024-0815.pdf"
    r = rename(pdf, "a.pdf", RenameOptions(
        strategy="follow_custom_prompt", template_mode="custom",
        custom_template="Rechnungen von Schneider in Logistik/Rechnungen. "
                        "Dateiname: Firma, Datum, getrennt durch Bindestriche, "
                        "Kleinbuchstaben. Und bitte schön machen"))
    assert r.folder_path == "Logistik/Rechnungen"
    assert r.suggested_filename == "schneider-logistik-gmbh-2024-03-05.pdf"
    assert r.not_understood == ["Und bitte schön machen"]
    assert r.to_api()["instructions"]["notUnderstood"] == ["Und bitte schön machen"]


def test_options_are_validated(pdf: bytes) -> None:
    with pytest.raises(ValueError, match="strategy"):
        rename(pdf, "a.pdf", RenameOptions(strategy="by_colour"))
    with pytest.raises(ValueError, match="language"):
        rename(pdf, "a.pdf", RenameOptions(language="xx"))
    with pytest.raises(ValueError, match="customTemplate"):
        rename(pdf, "a.pdf", RenameOptions(template_mode="custom"))


def test_extension_follows_the_real_type_not_the_name(pdf: bytes) -> None:
    r = rename(pdf, "photo.jpg", RenameOptions())
    assert r.suggested_filename.endswith(".pdf")
    docx = make_docx(LINES)
    r = rename(docx, "invoice.pdf", RenameOptions())
    assert r.suggested_filename.endswith(".docx")
    assert r.extracted_info["issuer"] == "Schneider Logistik GmbH"
    with pytest.raises(UnsupportedDocument):
        rename(b"just some text, not a document", "a.pdf", RenameOptions())


def test_more_pages_are_read_only_when_fields_are_missing() -> None:
    complete = make_pdf_pages([LINES, ["Seite 2", "Positionen"], ["Seite 3"]])
    assert rename(complete, "a.pdf").pages_read == 1
    # the first page is a cover sheet without any field: page 2 is needed
    covered = make_pdf_pages([["Deckblatt"], LINES, ["Seite 3"]])
    r = rename(covered, "a.pdf")
    assert r.pages_read == 2 and r.extracted_info["invoice_number"] == "RE-2024-0815"


def test_language_changes_words_not_types(pdf: bytes) -> None:
    bare = make_pdf(["Lorem ipsum dolor sit amet"])
    r = rename(bare, "a.pdf", RenameOptions(strategy="by_date_issuer", language="fr",
                                            below_confidence="rename"))
    assert r.folder_path == "sans-date/Inconnu"
    assert r.extracted_info == {"document_type": "other"}
    assert r.suggested_filename == "other.pdf"
    assert r.confidence < 0.3
    r = rename(pdf, "a.pdf", RenameOptions(strategy="by_type", language="de"))
    assert r.folder_path == "invoice"


@pytest.mark.slow
def test_a_scan_is_read_by_ocr() -> None:
    r = rename(make_scan(LINES, noise=0.02), "scan.png", RenameOptions(), EngineConfig())
    assert r.ocr_used and r.suggested_filename.endswith(".png")
    assert r.extracted_info["date"] == "2024-03-05"
    assert r.extracted_info["invoice_number"] == "RE-2024-0815"
