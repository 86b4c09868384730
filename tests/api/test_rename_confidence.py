"""The confidence policy through the API with the real engine: belowConfidence and
confidenceThreshold reach the engine, the answer says what was kept and why, and a document
that keeps its name costs no credit."""

from __future__ import annotations

from typing import Any

import pytest

from api.conftest import Api, MakeApi, needs_engine, upload
from api.test_account import assert_error

pytestmark = needs_engine
URL = "/api/v1/rename"
NOTES = "Garden notes May.pdf"


@pytest.fixture(scope="module")
def notes() -> bytes:
    """A document nothing can be read from (no date, no type, no company)."""
    from engine.docmaker import make_pdf

    return make_pdf(["plant tomatoes after the frost", "water the roses twice a week"])


def post(api: Api, data: bytes, name: str, fields: dict[str, Any] | None = None,
         key: str | None = None) -> Any:
    headers = dict(api.auth)
    if key:
        headers["Idempotency-Key"] = key
    return api.client.post(URL, headers=headers, files=upload(data, name), data=fields or {})


def test_default_is_review_with_the_original_name_and_free(make_api: MakeApi,
                                                           notes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, notes, NOTES, {"strategy": "by_date_issuer"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["renamed"] is False
    assert (body["suggestedFilename"], body["folderPath"]) == (NOTES, "Review")
    assert body["originalFilename"] == NOTES
    kept = body["kept"]
    assert (kept["reason"], kept["policy"], kept["threshold"]) == ("below_confidence",
                                                                   "review", 0.5)
    assert kept["confidence"] < 0.5 and "date" in kept["fields"]
    assert kept["text"] == "Garden notes May" and "review folder" in kept["message"]
    assert body["outputLanguage"]["issuer"] == "as_written"
    assert api.balance() == before  # reserved, then refunded: nothing charged


def test_keep_leaves_it_in_place_and_is_free(make_api: MakeApi, notes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, notes, NOTES, {"strategy": "by_all", "belowConfidence": "keep"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["renamed"], body["suggestedFilename"], body["folderPath"]) == (False, NOTES, "")
    assert body["kept"]["policy"] == "keep" and "left in place" in body["kept"]["message"]
    assert api.balance() == before


def test_rename_policy_renames_a_scanner_name_and_charges(make_api: MakeApi,
                                                          notes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, notes, "scan_0001.pdf", {"belowConfidence": "rename"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["renamed"] is True and body["suggestedFilename"] != "scan_0001.pdf"
    assert "kept" not in body
    assert api.balance() == before - 1


def test_a_meaningful_name_is_not_replaced_even_under_rename(make_api: MakeApi,
                                                             notes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, notes, NOTES, {"belowConfidence": "rename", "strategy": "by_date"})
    body = r.json()
    assert body["suggestedFilename"] == NOTES and body["kept"]["reason"] == "unread_fields"
    assert body["renamed"] is False
    assert api.balance() == before  # not renamed: not charged


def test_threshold_zero_renames_and_charges(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, pdf_bytes, "scan_0001.pdf",
             {"belowConfidence": "keep", "confidenceThreshold": "0"})
    body = r.json()
    assert body["renamed"] is True and "RE-1001" in body["suggestedFilename"]
    assert api.balance() == before - 1


def test_threshold_one_keeps_even_a_clear_invoice(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, pdf_bytes, "scan_0001.pdf",
             {"belowConfidence": "keep", "confidenceThreshold": "1"})
    body = r.json()
    assert (body["renamed"], body["suggestedFilename"]) == (False, "scan_0001.pdf")
    assert body["kept"]["threshold"] == 1.0
    assert api.balance() == before


@pytest.mark.parametrize("fields, named", [
    ({"belowConfidence": "ignore"}, "belowConfidence"),
    ({"belowConfidence": "KEEP"}, "belowConfidence"),
    ({"confidenceThreshold": "1.5"}, "confidenceThreshold"),
    ({"confidenceThreshold": "-0.1"}, "confidenceThreshold"),
    ({"confidenceThreshold": "high"}, "confidenceThreshold"),
    ({"confidenceThreshold": "nan"}, "confidenceThreshold"),
])
def test_invalid_policy_values_are_400_and_free(make_api: MakeApi, pdf_bytes: bytes,
                                                fields: dict[str, str], named: str) -> None:
    api = make_api(engine=None)
    before = api.balance()
    r = post(api, pdf_bytes, "scan.pdf", fields)
    assert_error(r, 400, "INVALID_OPTION")
    assert named in r.json()["error"]
    assert api.balance() == before


def test_invalid_policy_values_from_url_are_400(make_api: MakeApi) -> None:
    api = make_api(engine=None)
    for body in ({"belowConfidence": "sometimes"}, {"confidenceThreshold": 2}):
        r = api.client.post("/api/v1/rename-from-url", headers=api.auth,
                            json={"url": "https://example.org/a.pdf", **body})
        assert r.status_code == 400, r.text
        assert next(iter(body)) in r.json()["error"]


def test_replay_is_free_and_other_options_are_a_mismatch(make_api: MakeApi,
                                                         notes: bytes) -> None:
    api = make_api(engine=None)
    before = api.balance()
    first = post(api, notes, NOTES, {"belowConfidence": "keep"}, key="k-notes-1")
    again = post(api, notes, NOTES, {"belowConfidence": "keep"}, key="k-notes-1")
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()
    other = post(api, notes, NOTES, {"belowConfidence": "review"}, key="k-notes-1")
    assert_error(other, 400, "IDEMPOTENCY_KEY_MISMATCH")
    threshold = post(api, notes, NOTES, {"belowConfidence": "keep", "confidenceThreshold": "0.2"},
                     key="k-notes-1")
    assert_error(threshold, 400, "IDEMPOTENCY_KEY_MISMATCH")
    assert api.balance() == before


def test_the_options_reach_the_engine(api: Api, pdf_bytes: bytes) -> None:
    r = post(api, pdf_bytes, "scan.pdf", {"belowConfidence": "rename",
                                           "confidenceThreshold": "0.75"})
    assert r.status_code == 200, r.text
    _, options = api.engine.calls[-1]
    assert (options.below_confidence, options.confidence_threshold) == ("rename", 0.75)
    post(api, pdf_bytes, "scan.pdf")
    _, options = api.engine.calls[-1]
    assert (options.below_confidence, options.confidence_threshold) == (None, None)


def test_control_characters_in_the_name_are_cleaned(make_api: MakeApi, notes: bytes) -> None:
    api = make_api(engine=None)
    r = post(api, notes, "Garden\u202e notes\u200b May.pdf", {"belowConfidence": "keep"})
    body = r.json()
    assert body["originalFilename"] == "Garden notes May.pdf"
    assert body["suggestedFilename"] == "Garden notes May.pdf"
