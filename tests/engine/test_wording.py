"""Output language without an LLM: every word the engine writes follows the output language
(CLDR through babel where CLDR has the word), document-type words stay English, issuer names
are written as in the document."""

from __future__ import annotations

import pytest
from babel.dates import get_month_names

from engine.docmaker import make_pdf
from renamerd.engine import LANGUAGES, RenameOptions, rename
from renamerd.engine.instructions import compile_template
from renamerd.engine.naming import (
    folder_for,
    format_date,
    render_folder_template,
    render_name,
    render_pattern,
)
from renamerd.engine.wording import amount_text, locale, month_name, quarter_name, word

CODES = [code for code in LANGUAGES if code not in ("auto", "source")]
VALUES = {"date": "2024-05-03", "issuer": "Schneider Logistik GmbH", "document_type": "invoice",
          "invoice_number": "RE-17", "amount": "1234.56", "currency": "EUR"}
BARE = {"document_type": "invoice"}


def test_all_output_languages_are_covered() -> None:
    assert len(CODES) == 22 and {"pt-BR", "zh-Hans", "zh-Hant", "ja", "ko", "ar", "hi",
                                 "id"} <= set(CODES)


@pytest.mark.parametrize("code", CODES)
def test_words_of_every_output_language(code: str) -> None:
    undated, unknown = word("undated", code), word("unknown", code)
    if code != "en":
        assert undated != "undated" and unknown != "unknown"
    # folders of a document without date or issuer
    assert folder_for("by_date_issuer", BARE, code) == \
        f"{undated}/{unknown.capitalize()}"
    # document-type words stay English in every language
    assert folder_for("by_type", VALUES, code) == "invoice"
    assert render_name(("date", "document_type"), VALUES, "pdf", language=code) == \
        "2024-05-03_invoice.pdf"
    # month names come from CLDR (babel), not from a table of ours
    cldr = get_month_names("wide", "format", locale(code))[5]
    assert month_name(5, code) == cldr
    assert cldr in format_date("2024-05-03", "DD MMMM YYYY", code)
    # the issuer is written as in the document
    assert folder_for("by_issuer", VALUES, code) == "Schneider Logistik GmbH"
    assert quarter_name(2, code)


@pytest.mark.parametrize("code, month, quarter, amount", [
    ("en", "May", "Q2", "1234.56"), ("de", "Mai", "Q2", "1234,56"),
    ("fr", "mai", "T2", "1234,56"), ("pt-BR", "maio", "T2", "1234,56"),
    ("ja", "5月", "Q2", "1234.56"), ("zh-Hans", "五月", "2季度", "1234.56"),
    ("ko", "5월", "2분기", "1234.56"), ("ar", "مايو", "الربع الثاني", "1234.56"),
    ("hi", "मई", "ति2", "1234.56"), ("id", "Mei", "K2", "1234,56"),
])
def test_known_cldr_words(code: str, month: str, quarter: str, amount: str) -> None:
    assert month_name(5, code) == month
    assert quarter_name(2, code) == quarter
    assert amount_text("1234.56", code) == amount


def test_month_names_stand_alone_without_a_day() -> None:
    assert format_date("2024-05-03", "MMMM YYYY", "pl") == "maj 2024"
    assert format_date("2024-05-03", "DD MMMM YYYY", "pl") == "03 maja 2024"
    assert format_date("2024-05-03", "DD.MM.YY", "de") == "03.05.24"


def test_words_instructions_add_follow_the_language() -> None:
    rules = compile_template("Format: DD MMMM YYYY - Company - Amount. Sort by quarter")
    parts = rules.name_parts()
    assert parts is not None
    assert render_pattern(parts, VALUES, "pdf", language="fr") == \
        "03 mai 2024 - Schneider Logistik GmbH - 1234,56.pdf"
    assert render_pattern(parts, VALUES, "pdf", language="ja") == \
        "03 5月 2024 - Schneider Logistik GmbH - 1234.56.pdf"
    folder = rules.folder_for(VALUES)
    assert folder is not None
    assert render_folder_template(folder, VALUES, "fr") == "2024/T2"
    assert render_folder_template(folder, BARE, "de") == "ohne-datum/ohne-datum"


def test_auto_and_source_follow_the_document() -> None:
    pdf = make_pdf(["Schneider Logistik GmbH", "Rechnung", "Rechnungsnummer: RE-17",
                    "Rechnungsdatum: 03.05.2024", "Gesamtbetrag: 1.234,56 €"])
    for language in ("auto", "source"):
        r = rename(pdf, "a.pdf", RenameOptions(strategy="by_type", language=language))
        assert r.output_language == "de" and r.folder_path == "invoice"
    r = rename(pdf, "a.pdf", RenameOptions(strategy="by_issuer", language="ja"))
    body = r.to_api()
    assert body["outputLanguage"] == {"code": "ja", "issuer": "as_written"}
    assert r.folder_path == "Schneider Logistik GmbH"
    assert r.extracted_info["document_type"] == "invoice"
