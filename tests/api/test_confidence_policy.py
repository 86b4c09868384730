"""The confidence policy through the API: a doubtful document keeps its name (keep), or keeps
it in the Review folder (review), or is renamed anyway (rename); only a renamed one costs a
credit. The result says what was kept and why."""

from __future__ import annotations

from typing import Any

import pytest

from api.conftest import MakeApi, needs_engine, upload
from api.test_account import assert_error

pytestmark = needs_engine
URL = "/api/v1/rename"


@pytest.fixture(scope="module")
def notes_pdf() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf(["Tomatoes need more water this week.", "Move the roses to the south bed.",
                     "Ask about the compost."])


def _rename(api: Any, data: bytes, name: str, **fields: Any) -> dict[str, Any]:
    r = api.client.post(URL, headers=api.auth, files=upload(data, name), data=fields)
    assert r.status_code == 200, r.text
    return r.json()


def test_default_keeps_a_doubtful_name_in_review_and_charges_nothing(
        make_api: MakeApi, notes_pdf: bytes) -> None:
    api = make_api(engine=None)
    body = _rename(api, notes_pdf, "Garden notes May.pdf")
    assert body["renamed"] is False
    assert body["suggestedFilename"] == "Garden notes May.pdf"
    assert body["folderPath"] == "Review"
    assert body["kept"]["reason"] == "below_confidence" and body["kept"]["policy"] == "review"
    assert body["kept"]["confidence"] < body["kept"]["threshold"]
    assert "kept" in body["kept"]["message"]
    assert api.balance() == 50


def test_keep_leaves_it_without_a_folder(make_api: MakeApi, notes_pdf: bytes) -> None:
    api = make_api(engine=None)
    body = _rename(api, notes_pdf, "Garden notes May.pdf", belowConfidence="keep")
    assert (body["renamed"], body["folderPath"]) == (False, "")
    assert body["suggestedFilename"] == "Garden notes May.pdf"
    assert body["kept"]["policy"] == "keep"
    assert api.balance() == 50


@pytest.fixture(scope="module")
def dated_notes_pdf() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf(["Garden notes, 3 May 2024", "Tomatoes need more water this week.",
                     "Move the roses to the south bed."])


def test_rename_renames_anyway_and_charges(make_api: MakeApi, dated_notes_pdf: bytes) -> None:
    api = make_api(engine=None)
    body = _rename(api, dated_notes_pdf, "Garden notes May.pdf", belowConfidence="rename",
                   confidenceThreshold="0.95")
    assert body["renamed"] is True and body["suggestedFilename"].startswith("2024-05-03")
    # a field that could not be read never replaces the meaningful original name
    assert "Garden notes May" in body["suggestedFilename"]
    assert api.balance() == 49


def test_nothing_read_and_policy_rename_keeps_the_name_for_free(
        make_api: MakeApi, notes_pdf: bytes) -> None:
    api = make_api(engine=None)
    body = _rename(api, notes_pdf, "Garden notes May.pdf", belowConfidence="rename")
    assert body["suggestedFilename"] == "Garden notes May.pdf" and body["renamed"] is False
    assert api.balance() == 50


def test_the_threshold_decides(make_api: MakeApi, dated_notes_pdf: bytes) -> None:
    api = make_api(engine=None)
    high = _rename(api, dated_notes_pdf, "Garden notes May.pdf", belowConfidence="keep",
                   confidenceThreshold="0.95")
    assert high["renamed"] is False and high["kept"]["threshold"] == 0.95
    assert api.balance() == 50
    low = _rename(api, dated_notes_pdf, "Garden notes May.pdf", belowConfidence="keep",
                  confidenceThreshold="0.1")
    assert low["renamed"] is True
    assert api.balance() == 49


def test_a_confident_invoice_is_renamed_and_charged(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(engine=None)
    body = _rename(api, pdf_bytes, "scan_0001.pdf", belowConfidence="keep",
                   confidenceThreshold="0.2")
    assert body["renamed"] is True and "RE-1001" in body["suggestedFilename"]
    assert body["outputLanguage"]["issuer"] == "as_written"
    assert api.balance() == 49


@pytest.mark.parametrize("fields", [{"belowConfidence": "maybe"},
                                    {"confidenceThreshold": "high"},
                                    {"confidenceThreshold": "1.5"},
                                    {"confidenceThreshold": "nan"}])
def test_invalid_policy_options_are_400_and_free(make_api: MakeApi, pdf_bytes: bytes,
                                                  fields: dict[str, str]) -> None:
    api = make_api(engine=None)
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes), data=fields)
    assert_error(r, 400, "INVALID_OPTION")
    assert next(iter(fields)) in r.json()["error"]
    assert api.balance() == 50


def test_from_url_takes_the_policy_too(make_api: MakeApi) -> None:
    api = make_api(engine=None)
    r = api.client.post("/api/v1/rename-from-url", headers=api.auth,
                        json={"url": "https://example.org/x.pdf", "belowConfidence": "maybe"})
    assert r.status_code in (400, 422) and "error" in r.json()
    assert api.balance() == 50


def test_a_replay_with_another_policy_is_a_mismatch(make_api: MakeApi, notes_pdf: bytes) -> None:
    api = make_api(engine=None)
    headers = {**api.auth, "Idempotency-Key": "k-policy-1"}
    first = api.client.post(URL, headers=headers, files=upload(notes_pdf, "n.pdf"),
                            data={"belowConfidence": "keep"})
    assert first.status_code == 200
    again = api.client.post(URL, headers=headers, files=upload(notes_pdf, "n.pdf"),
                            data={"belowConfidence": "keep"})
    assert again.headers.get("Idempotent-Replayed") == "true"
    other = api.client.post(URL, headers=headers, files=upload(notes_pdf, "n.pdf"),
                            data={"belowConfidence": "rename"})
    assert_error(other, 400, "IDEMPOTENCY_KEY_MISMATCH")
    assert api.balance() == 50


def test_the_openapi_document_lists_the_policy(make_api: MakeApi) -> None:
    api = make_api()
    doc = api.client.get("/openapi.json").json()
    props = doc["paths"]["/api/v1/rename"]["post"]["requestBody"]["content"][
        "multipart/form-data"]["schema"]["properties"]
    assert props["belowConfidence"]["enum"] == ["keep", "review", "rename"]
    out = doc["components"]["schemas"]["RenameOut"]["properties"]
    assert {"renamed", "kept", "outputLanguage"} <= set(out)
