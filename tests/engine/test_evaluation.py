"""The evaluation's issuer comparison (renamerd eval): lenient on legal forms, strict on names."""

from __future__ import annotations

import pytest

from renamerd.engine.evaluation import issuer_matches, normalize_issuer


@pytest.mark.parametrize(("name", "normal"), [
    ("99 SPEED MART S/B", "99 speed mart"),
    ("99 SPEED MART SDN. BHD.", "99 speed mart"),
    ("Acme B.V.", "acme"),
    ("Acme s.r.o.", "acme"),
    ("Acme A/S", "acme"),
    ("T.A.S LEISURE SDN BHD", "t a s leisure"),  # initials are no legal form
    ("MR D.I.Y. (M) SDN BHD", "mr d i y m"),
    ("A B C", "a b c"),
])
def test_legal_forms_are_ignored_however_written(name: str, normal: str) -> None:
    assert normalize_issuer(name) == normal


@pytest.mark.parametrize(("predicted", "truth", "same"), [
    ("99 SPEED MART", "99 SPEED MART S/B", True),  # the name without its legal form
    ("99 SPEED MART", "99 SPEED MART SDN BHD", True),
    ("99 SPEED HART", "99 SPEED MART S/B", True),  # one OCR slip in a long name
    ("99 SPEED", "99 SPEED MART S/B", False),
    ("T.A.S LEISURE SDN BHD", "7.8.9 Leisure Sdn Bhd", False),
    ("AGON CO. (M) BHD", "AEON CO. (M) BHD", False),
    (None, "ACME", False),
])
def test_issuer_comparison(predicted: str | None, truth: str, same: bool) -> None:
    assert issuer_matches(predicted, truth) is same
