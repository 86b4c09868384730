"""The shortcuts taken for speed give the same answers as the long way round."""

from __future__ import annotations

import re

import pytest

from renamerd.engine.fields import extract
from renamerd.engine.fields.date_repair import ocr_date_tokens
from renamerd.engine.fields.document import Doc
from renamerd.engine.fields.names import any_ocr_fix as _any_ocr_fix
from renamerd.engine.fields.names import ocr_fixes as _ocr_fixes
from renamerd.engine.lexicon import _FOLD, common, fold


def test_ascii_fold_equals_the_fold_table() -> None:
    text = "".join(chr(i) for i in range(128))
    assert fold(text) == text.translate(_FOLD)
    assert fold("Rechnung MÜNCHEN İstanbul") == "rechnung munchen istanbul"


def test_line_folds_are_slices_of_the_document_fold() -> None:
    doc = Doc.from_pages(["Rechnung  für\tMÜNCHEN\r\nİstanbul ŞTİ  Œuvre\fß", "SEITE  zwei"])
    assert [ln.text for ln in doc.lines] == ["Rechnung für MÜNCHEN", "İstanbul ŞTİ Œuvre", "ß",
                                            "SEITE zwei"]
    for line in doc.lines:
        assert line.folded == fold(line.text)
        assert doc.text[line.start:line.start + len(line.text)] == line.text
    assert doc.lines[-1].page == 2


@pytest.mark.parametrize("text", [
    "MR DIY (M) SON BHD", "ACME 5DN 8HD", "ACME S0N. BHD.", "X $/B", "FOO BERHA0",
    "PETRODELI ENIERPRISE", "MR D.I.¥.", "abc sdn bhd", "ACME Ltd", "Johnson & Sons Ltd",
])
def test_the_quick_ocr_fix_test_misses_no_fix(text: str) -> None:
    """Wherever one of the lexicon's fixes matches, the combined test matches too."""
    if any(pattern.search(text) for pattern, _ in _ocr_fixes()):
        assert _any_ocr_fix().search(text)


def test_the_quick_ocr_fix_test_covers_every_lexicon_fix() -> None:
    assert len(_ocr_fixes()) == len(common()["ocr_suffix_fixes"])
    # each fix's pattern without its leading lookbehind is one branch of the quick test
    for pattern, _ in common()["ocr_suffix_fixes"]:
        body = re.sub(r"^\(\?i\)", "", pattern)
        assert re.sub(r"^\(\?<[!=][^)]*\)", "", body) in _any_ocr_fix().pattern


@pytest.mark.parametrize(("text", "expected"), [
    ("2l/o3/2018", "21/03/2018"), ("19/62/2018", "19/02/2018"), ("a-b-c 12.03.2024", None),
    ("no date here at all", None),
])
def test_ocr_date_tokens_with_and_without_the_quick_test(text: str, expected: str | None) -> None:
    assert ocr_date_tokens(text) == (expected if expected is not None else text)


def test_a_hotel_is_no_phone_label() -> None:
    r = extract(["GRAND PALM HOTEL SDN BHD\nJalan Ampang 12, 50450 Kuala Lumpur\nTel: 03-1234567"
                 "\nRECEIPT\nDate: 12/03/2018\nTotal RM 12.00"])
    assert r.values["issuer"] == "GRAND PALM HOTEL SDN BHD"
