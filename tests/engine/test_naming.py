"""Folder paths and file names: strategies, templates, and names safe on every target."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pathvalidate import is_valid_filename

from renamerd.engine.naming import (
    folder_for,
    format_date,
    render_folder_template,
    render_name,
    safe_component,
)

VALUES = {"date": "2024-03-05", "issuer": "Deutsche Telekom AG", "document_type": "invoice",
          "invoice_number": "R-2024/17"}


@pytest.mark.parametrize("strategy, expected", [
    ("root", ""),
    ("by_date", "2024"),
    ("by_issuer", "Deutsche Telekom AG"),
    ("by_type", "invoice"),
    ("by_date_issuer", "2024/Deutsche Telekom AG"),
    ("by_date_type", "2024/invoice"),
    ("by_issuer_type", "Deutsche Telekom AG/invoice"),
    ("by_all", "2024/Deutsche Telekom AG/invoice"),
])
def test_strategies(strategy: str, expected: str) -> None:
    assert folder_for(strategy, VALUES, "de") == expected


def test_missing_fields_in_folders_use_the_output_language() -> None:
    bare = {"document_type": "receipt"}
    assert folder_for("by_date_issuer", bare, "de") == "ohne-datum/Unbekannt"
    assert folder_for("by_date_issuer", bare, "fr") == "sans-date/Inconnu"
    assert folder_for("by_issuer", bare, "ja") == "不明"
    assert folder_for("by_type", bare, "de") == "receipt"  # type words stay English


def test_auto_standard_and_custom_names() -> None:
    assert render_name(("date", "issuer", "document_type", "invoice_number"), VALUES, "pdf") == \
        "2024-03-05_Deutsche-Telekom-AG_invoice_R-2024-17.pdf"
    assert render_name(("date", "issuer", "invoice_number"), VALUES, "png") == \
        "2024-03-05_Deutsche-Telekom-AG_R-2024-17.png"
    assert render_name(("issuer", "date"), VALUES, "pdf", separator="-", case="lower",
                       date_format="DD.MM.YYYY") == "deutsche-telekom-ag-05.03.2024.pdf"
    assert render_name(("date", "issuer"), {"document_type": "other"}, "pdf") == "other.pdf"


def test_month_pattern_and_date_formats() -> None:
    assert render_name(("month", "issuer"), VALUES, "pdf") == "2024-03_Deutsche-Telekom-AG.pdf"
    assert format_date("2024-03-05", "YYYYMMDD") == "20240305"
    assert format_date("2024-03-05", "DD/MM/YY") == "05/03/24"


def test_folder_templates() -> None:
    assert render_folder_template("Bills/{year}/{issuer}", VALUES, "en") == \
        "Bills/2024/Deutsche Telekom AG"
    assert render_folder_template("../../etc/{issuer}", VALUES, "en") == \
        "etc/Deutsche Telekom AG"


@pytest.mark.parametrize("raw, expected", [
    ("CON", "_CON"), ("nul", "_nul"), ("COM1", "_COM1"), ("a<b>c:d\"e|f?g*h", "a-b-c-d-e-f-g-h"),
    ("..", "document"), ("...x...", "x"), ("name. ", "name"), ("a/b\\c", "a-b-c"),
    ("zero\u200bwidth\u202e", "zerowidth"), ("tab\there", "tab here"), ("", "document"),
    ("a_vti_b", "a-vti-b"), ("~$draft", "_~$draft"),
])
def test_unsafe_names(raw: str, expected: str) -> None:
    assert safe_component(raw) == expected


def test_long_names_cut_at_a_character_boundary_keeping_the_extension() -> None:
    name = safe_component("Ä" * 300, keep_suffix=".pdf")
    assert len(name.encode()) <= 255 and name.endswith(".pdf")
    assert name[:-4] == "Ä" * 125
    assert unicodedata.is_normalized("NFC", safe_component("A\u0308bc"))


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=0, max_size=400))
def test_any_text_gives_a_valid_file_name_everywhere(text: str) -> None:
    name = safe_component(text, keep_suffix=".pdf")
    assert 0 < len(name.encode("utf-8")) <= 255
    assert "/" not in name and "\\" not in name and ".." not in name
    assert not name.endswith((" ", ".")) or name.endswith(".pdf")
    assert unicodedata.is_normalized("NFC", name)
    assert is_valid_filename(name, platform="windows"), name
    assert is_valid_filename(name, platform="linux"), name
    assert safe_component(name) == name  # idempotent
