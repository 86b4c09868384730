"""Issue 14, item 5: paths built from document text.

A value never adds a folder level ("/" inside an issuer), folder rules are capped at 10
levels and 400 characters, and what the engine echoes (extractedInfo, the original file name)
carries no format characters (bidi overrides such as U+202E) and no "/".
"""

from __future__ import annotations

import time
import unicodedata

import pytest

from engine.docmaker import make_pdf
from renamerd.engine import RenameOptions, clean_filename, clean_text, rename
from renamerd.engine.instructions import compile_template, rules_from_dict
from renamerd.engine.naming import MAX_DEPTH, MAX_PATH_CHARS, render_folder_template, safe_path

HOSTILE_ISSUER = "\u202eACME/x/y/z/w GmbH"
LINES = [HOSTILE_ISSUER, "Hauptstraße 5 · 10115 Berlin", "Rechnung",
         "Rechnungsnummer: RE-2024-0815", "Rechnungsdatum: 05.03.2024",
         "Gesamtbetrag: 1.190,00 €"]


def _has_format_characters(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cf", "Cc") for ch in text)


@pytest.fixture(scope="module")
def hostile_pdf() -> bytes:
    return make_pdf(LINES)


def test_an_issuer_with_slashes_adds_no_folder_level(hostile_pdf: bytes) -> None:
    options = RenameOptions(strategy="follow_custom_prompt",
                            custom_template="put invoices in Bills/{issuer}")
    r = rename(hostile_pdf, "in.pdf", options)
    assert r.folder_path == "Bills/ACME-x-y-z-w GmbH"
    assert r.folder_path.count("/") == 1
    for strategy in ("by_issuer", "by_all"):
        r = rename(hostile_pdf, "in.pdf", RenameOptions(strategy=strategy))
        assert "ACME-x-y-z-w GmbH" in r.folder_path.split("/")


def test_placeholders_are_filled_per_segment() -> None:
    values = {"issuer": "ACME/x/y/z/w GmbH", "date": "2024-03-05",
              "document_type": "../../etc"}
    assert render_folder_template("A/{issuer}/{year}", values, "en") == \
        "A/ACME-x-y-z-w GmbH/2024"
    path = render_folder_template("{document_type}/{issuer}", values, "en")
    assert path.count("/") == 1 and ".." not in path.split("/")
    assert path.endswith("/ACME-x-y-z-w GmbH")


def test_a_deep_rule_is_refused_not_followed() -> None:
    rule = "put invoices in " + "/".join(["d"] * 1985)
    rules = compile_template(rule)
    assert rules.conditions == []
    assert "at most 10" in rules.not_understood[0].reason
    with pytest.raises(ValueError):
        rules_from_dict({"conditions": [{"folder": "/".join(["d"] * 11)}]})


def test_paths_are_capped_at_10_segments_and_400_characters() -> None:
    assert safe_path(["d"] * 1985) == "/".join(["d"] * MAX_DEPTH)
    long = safe_path(["x" * 120] * 8)
    assert len(long) <= MAX_PATH_CHARS and long.count("/") == 2
    assert len(safe_path(["y" * 1000])) <= MAX_PATH_CHARS
    values = {"issuer": "I" * 300, "date": "2024-01-01"}
    path = render_folder_template("{issuer}/{issuer}/{issuer}/{year}", values, "en")
    assert len(path) <= MAX_PATH_CHARS and path.count("/") <= MAX_DEPTH - 1


def test_the_1985_segment_path_costs_little() -> None:
    start = time.process_time()  # CPU time: the machine running the tests is shared
    for i in range(5):
        safe_path(["d"] * 1985)
        compile_template("put invoices in " + "/".join(["d"] * 1985) + f" {i}")
    assert time.process_time() - start < 2.0


def test_extracted_info_has_no_format_characters_and_no_slash(hostile_pdf: bytes) -> None:
    r = rename(hostile_pdf, "in.pdf", RenameOptions())
    for value in r.to_api()["extractedInfo"].values():
        assert not _has_format_characters(str(value)) and "/" not in str(value)
    assert r.extracted_info["issuer"] == "ACME-x-y-z-w GmbH"


@pytest.mark.parametrize("raw, clean", [
    ("invoice\u202efdp.exe", "invoicefdp.exe"),
    ("a/b\\c.pdf", "a-b-c.pdf"),
    ("zero\u200bwidth\u2066.pdf", "zerowidth.pdf"),
    ("tab\tand\nnewline.pdf", "tab and newline.pdf"),
    ("  spaced  .pdf ", "spaced .pdf"),
])
def test_original_filenames_are_cleaned_like_extracted_info(raw: str, clean: str) -> None:
    assert clean_filename(raw) == clean
    assert clean_text(raw) == clean
    assert clean_filename(clean_filename(raw)) == clean_filename(raw)


def test_a_10000_character_filename_is_echoed_cut(hostile_pdf: bytes) -> None:
    name = "\u202e" + "ä" * 10_000 + ".pdf"
    cut = clean_filename(name)
    assert len(cut.encode("utf-8")) <= 255 and cut.endswith(".pdf")
    r = rename(hostile_pdf, name, RenameOptions())
    assert r.original_filename == cut
    assert not _has_format_characters(r.to_api()["originalFilename"])
