"""The Overview's words for what a credit change was for (a raw key such as
`req:bd2c0a1d6be547acb8d…` means nothing to a user)."""

from __future__ import annotations

import pytest

from renamerd.web.pages.overview import CreditFor, credit_for


@pytest.mark.parametrize(("reason", "ref", "expected"), [
    ("", "job:12", CreditFor("", "job 12", "/jobs/12")),
    ("", "req:bd2c0a1d6be547acb8d2f1e0c3a4b5d6", CreditFor("", "API rename")),
    ("", "idem:my-key-1", CreditFor("", "API rename")),
    ("", "req:try-0123456789abcdef", CreditFor("", "Try it page")),
    ("engine failed", "job:7", CreditFor("engine failed", "job 7", "/jobs/7")),
    ("signup", None, CreditFor("signup")),
    ("", "job:not-a-number", CreditFor("", "job:not-a-number")),
])
def test_what_a_credit_change_was_for(reason: str, ref: str | None,
                                      expected: CreditFor) -> None:
    assert credit_for(reason, ref) == expected
