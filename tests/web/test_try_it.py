"""The Try it page: a document in, the suggested name, folder, fields and confidence out, one
credit (none when the name is kept or it fails), CSRF required, too large refused at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from renamerd.engine import rename as engine_rename
from web.conftest import HTML, Web, csrf_of


@pytest.fixture(scope="module")
def pdf_bytes() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf(["ACME GmbH", "Musterstrasse 1, 10115 Berlin", "", "Invoice",
                     "Invoice number: RE-1001", "Invoice date: 01.03.2024", "Total: 119,00 EUR"])


def _post(web: Web, files: dict[str, Any], data: dict[str, str] | None = None,
          csrf: bool = True) -> Any:
    form = dict(data or {})
    if csrf:
        form["csrf_token"] = csrf_of(web.get("/try").text)
    return web.client.post("/try", data=form, files=files, headers=HTML)


def test_try_a_document_for_one_credit(make_web: Callable[..., Web], pdf_bytes: bytes) -> None:
    web = make_web(rename_fn=engine_rename)
    ada = web.user("ada@example.org")
    web.sign_in("ada@example.org")
    page = web.get("/try")
    assert page.status_code == 200 and 'for="document"' in page.text and "Try it" in page.text
    # the choices in words, the option values as the API knows them
    assert '<option value="by_date_issuer">By year, then issuer</option>' in page.text
    assert '<option value="de">German (de)</option>' in page.text
    r = _post(web, {"document": ("scan_0001.pdf", pdf_bytes, "application/pdf")},
              {"strategy": "by_date_issuer", "language": "en"})
    assert r.status_code == 200, r.text[-2000:]
    assert "RE-1001" in r.text and "ACME GmbH" in r.text and "One credit charged" in r.text
    assert web.accounts.credits.balance(ada.id) == 49


def test_a_doubtful_or_broken_document_costs_nothing(make_web: Callable[..., Web]) -> None:
    from engine.docmaker import make_pdf

    web = make_web(rename_fn=engine_rename)
    ada = web.user("ada@example.org")
    web.sign_in("ada@example.org")
    notes = make_pdf(["Tomatoes need more water this week.", "Ask about the compost."])
    r = _post(web, {"document": ("Garden notes May.pdf", notes, "application/pdf")})
    assert r.status_code == 200 and "Garden notes May.pdf" in r.text
    assert "Nothing charged" in r.text
    broken = _post(web, {"document": ("x.pdf", b"%PDF-1.4 broken", "application/pdf")})
    assert broken.status_code == 422 and "cost nothing" in broken.text
    assert web.accounts.credits.balance(ada.id) == 50


def test_csrf_size_and_sign_in(make_web: Callable[..., Web], pdf_bytes: bytes) -> None:
    web = make_web(rename_fn=engine_rename, limits={"max_upload_mb": 0.01})
    web.user("ada@example.org")
    assert web.get("/try", follow_redirects=False).status_code in (303, 307)  # signed out
    web.sign_in("ada@example.org")
    assert _post(web, {"document": ("a.pdf", b"%PDF-1.4", "application/pdf")},
                 csrf=False).status_code == 403
    big = _post(web, {"document": ("a.pdf", b"%PDF-1.4" + b" " * 400_000, "application/pdf")})
    assert big.status_code == 413
    # the Try it page again, its form and the reason above it (not an error page without it)
    assert 'action="/try"' in big.text and "too large" in big.text and "0.01 MB" in big.text
    assert _post(web, {}).status_code == 400


def test_a_part_not_understood_is_said_once(make_web: Callable[..., Web],
                                            pdf_bytes: bytes) -> None:
    """ "Not understood: “blah blah nonsense”" once, not again in parentheses; the words that
    broke a part when they are not the whole of it."""
    web = make_web(rename_fn=engine_rename)
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    r = _post(web, {"document": ("scan.pdf", pdf_bytes, "application/pdf")},
              {"strategy": "root", "language": "en",
               "instructions": "blah blah nonsense. frobnicate everything"})
    assert r.status_code == 200, r.text[-2000:]
    result = r.text[r.text.index('id="result"'):]
    assert ("Not understood, so left out: “blah blah nonsense”; “frobnicate everything” "
            "(because of “frobnicate”).") in result
    assert result.count("blah blah nonsense") == 1 and "(not understood" not in result


def test_folder_rules_unused_by_the_strategy_are_said_so(make_web: Callable[..., Web],
                                                          pdf_bytes: bytes) -> None:
    """Tried with "By year": the folder is the year's, not the instructions' Big/, and the
    result says why; the naming rule applies."""
    web = make_web(rename_fn=engine_rename)
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    instructions = "Use format YYYY-MM-DD - Company. Put invoices in Big/"
    r = _post(web, {"document": ("scan.pdf", pdf_bytes, "application/pdf")},
              {"strategy": "by_date", "language": "en", "instructions": instructions})
    result = r.text[r.text.index('id="result"'):]
    assert '<code id="suggested-folder">2024</code>' in result
    assert "2024-03-01 - ACME GmbH" in result
    assert "The folder rules of these instructions are not used with the strategy “By year”" \
        in result
    r = _post(web, {"document": ("scan.pdf", pdf_bytes, "application/pdf")},
              {"strategy": "follow_custom_prompt", "language": "en",
               "instructions": instructions})
    result = r.text[r.text.index('id="result"'):]
    assert '<code id="suggested-folder">Big</code>' in result and "folder rules" not in result
