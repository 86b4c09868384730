"""POST /api/v1/rename: every row of the error table, every option value, credits, idempotency."""

from __future__ import annotations

import json

import pytest

from api.conftest import Api, MakeApi, upload
from api.test_account import assert_error
from renamerd.engine.types import (
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_IDS,
    TEMPLATE_MODES,
    ProviderUnavailable,
    RenameOptions,
    UnreadableDocument,
)

URL = "/api/v1/rename"
RESULT_FIELDS = {"originalFilename", "suggestedFilename", "extractedInfo", "folderPath",
                 "organizationStrategy", "templateUsed", "confidence"}


def raw_multipart(parts: list[tuple[str, bytes]], boundary: str = "XyZ123") -> tuple[bytes, dict[str, str]]:
    """A multipart body from (part headers, part body) pairs, for shapes httpx will not build."""
    out = b""
    for headers, body in parts:
        out += f"--{boundary}\r\n{headers}\r\n\r\n".encode() + body + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return out, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def test_success_takes_one_credit(api: Api, pdf_bytes: bytes) -> None:
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes), data={"strategy": "by_date"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) >= RESULT_FIELDS
    assert body["originalFilename"] == "scan.pdf"
    assert body["organizationStrategy"] == "by_date"
    assert api.balance() == 49
    for h in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"):
        assert h in r.headers


def test_defaults_reach_the_engine(api: Api, pdf_bytes: bytes) -> None:
    assert api.client.post(URL, headers=api.auth, files=upload(pdf_bytes)).status_code == 200
    assert api.engine.calls == [("scan.pdf", RenameOptions())]


def test_every_option_value_is_accepted_and_passed_on(api: Api, pdf_bytes: bytes) -> None:
    cases = [{"strategy": v} for v in STRATEGIES] + [{"templateMode": v} for v in TEMPLATE_MODES]
    cases += [{"templateMode": "predefined", "templateId": v} for v in TEMPLATE_IDS]
    cases = [dict(c, customTemplate="Jahr/Typ") if c.get("templateMode") == "custom" else c
             for c in cases]
    cases += [{"language": v} for v in LANGUAGES]
    cases += [{"strategy": "follow_custom_prompt", "templateMode": "custom",
               "customTemplate": "Wenn Rechnung: Jahr/Aussteller, sonst nach Typ"}]
    api.accounts.credits.grant(api.user_id, len(cases))
    for fields in cases:
        r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes), data=fields)
        assert r.status_code == 200, (fields, r.text)
        _name, options = api.engine.calls[-1]
        assert options.strategy == fields.get("strategy", "root")
        assert options.template_mode == fields.get("templateMode", "auto")
        assert options.template_id == fields.get("templateId")
        assert options.language == fields.get("language", "auto")
        assert options.custom_template == fields.get("customTemplate")
        assert r.json()["organizationStrategy"] == options.strategy
        assert r.json()["templateUsed"] == options.template_mode
    assert api.balance() == 50


@pytest.mark.parametrize("field, value", [
    ("strategy", "by_colour"), ("templateMode", "fancy"), ("templateId", "deluxe"),
    ("language", "klingon"), ("language", "EN"),
])
def test_unknown_option_value_is_400_naming_field_and_values(
    api: Api, pdf_bytes: bytes, field: str, value: str
) -> None:
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes), data={field: value})
    body = assert_error(r, 400, "INVALID_OPTION")
    assert field in body["error"] and value in body["error"]
    assert {"strategy": "by_date_issuer", "templateMode": "predefined", "templateId": "standard",
            "language": "pt-BR"}[field] in body["error"]
    assert api.balance() == 50 and api.engine.calls == []


def test_an_unknown_field_is_400_not_ignored(api: Api, pdf_bytes: bytes) -> None:
    """-F stratgy=by_date would rename with the default strategy; it is refused instead."""
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes),
                        data={"stratgy": "by_date"})
    body = assert_error(r, 400, "UNKNOWN_FIELD")
    assert body["error"].startswith("unknown field 'stratgy' (did you mean 'strategy'?)")
    assert "templateMode" in body["error"]
    assert api.balance() == 50 and api.engine.calls == []


def test_custom_mode_needs_instructions(api: Api, pdf_bytes: bytes) -> None:
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes),
                        data={"templateMode": "custom"})
    assert "customTemplate" in assert_error(r, 400, "INVALID_OPTION")["error"]
    assert api.balance() == 50


def test_400_no_file(api: Api) -> None:
    body, headers = raw_multipart([('Content-Disposition: form-data; name="strategy"', b"by_date")])
    r = api.client.post(URL, headers={**api.auth, **headers}, content=body)
    msg = assert_error(r, 400, "NO_FILE")["error"]
    assert "no file was uploaded" in msg.lower()


@pytest.mark.parametrize("case", ["json", "urlencoded", "misnamed", "no_filename", "no_ctype",
                                  "truncated", "no_boundary", "two_files"])
def test_400_invalid_multipart_payload(api: Api, pdf_bytes: bytes, case: str) -> None:
    kwargs: dict = {}
    if case == "json":
        kwargs = {"json": {"file": "x"}}
    elif case == "urlencoded":
        kwargs = {"data": {"strategy": "root"}}
    elif case == "misnamed":
        kwargs = {"files": {"document": ("a.pdf", pdf_bytes, "application/pdf")}}
    else:
        disposition = 'Content-Disposition: form-data; name="file"'
        good = disposition + '; filename="a.pdf"\r\nContent-Type: application/pdf'
        parts = {
            "no_filename": [(disposition + "\r\nContent-Type: application/pdf", pdf_bytes)],
            "no_ctype": [(disposition + '; filename="a.pdf"', pdf_bytes)],
            "two_files": [(good, pdf_bytes)] * 2,
        }.get(case, [(good, pdf_bytes)])
        body, headers = raw_multipart(parts)
        if case == "truncated":
            body = body[: len(body) // 2]
        if case == "no_boundary":
            headers = {"Content-Type": "multipart/form-data"}
        kwargs = {"content": body, "headers": headers}
    headers = {**api.auth, **kwargs.pop("headers", {})}
    r = api.client.post(URL, headers=headers, **kwargs)
    assert_error(r, 400, "INVALID_MULTIPART_PAYLOAD")
    assert api.balance() == 50 and api.engine.calls == []


def test_400_unreadable_document_refunds(api: Api, pdf_bytes: bytes) -> None:
    api.engine.fail = UnreadableDocument("the PDF is encrypted")
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes))
    assert assert_error(r, 400, "UNREADABLE_DOCUMENT")["error"] == "the PDF is encrypted"
    assert api.balance() == 50


def test_401_on_rename(api: Api, pdf_bytes: bytes) -> None:
    assert_error(api.client.post(URL, files=upload(pdf_bytes)), 401, "UNAUTHORIZED")
    assert api.engine.calls == []


def test_402_without_credits(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(credits={"signup_grant": 0})
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes))
    assert_error(r, 402, "INSUFFICIENT_CREDITS")
    assert api.engine.calls == []


def test_credits_disabled_meters_nothing(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(credits={"enabled": False, "signup_grant": 0})
    assert api.client.post(URL, headers=api.auth, files=upload(pdf_bytes)).status_code == 200


def test_413_counted_while_streaming(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(limits={"max_upload_mb": 0.01})  # 10 KiB
    big = pdf_bytes + b"\n%" + b"x" * 20_000
    body = assert_error(api.client.post(URL, headers=api.auth, files=upload(big)), 413,
                        "PAYLOAD_TOO_LARGE")
    assert "0.01 MB" in body["error"]
    assert api.balance() == 50 and api.engine.calls == []


def test_413_from_content_length_before_reading(make_api: MakeApi) -> None:
    api = make_api(limits={"max_upload_mb": 1})
    headers = {**api.auth, "Content-Type": "multipart/form-data; boundary=abc",
               "Content-Length": str(50 * 1024 * 1024)}
    from starlette.requests import Request

    from renamerd.api.uploads import check_content_length

    scope = {"type": "http", "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    with pytest.raises(Exception) as info:
        check_content_length(Request(scope), 1024 * 1024)
    assert info.value.status == 413


@pytest.mark.parametrize("name, data, ctype", [
    ("notes.pdf", b"just some text, not a PDF at all", "application/pdf"),
    ("page.png", b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "image/png"),
    ("empty.pdf", b"", "application/pdf"),
])
def test_415_judged_by_bytes(api: Api, name: str, data: bytes, ctype: str) -> None:
    assert_error(api.client.post(URL, headers=api.auth, files=upload(data, name, ctype)), 415,
                 "UNSUPPORTED_MEDIA_TYPE")
    assert api.balance() == 50 and api.engine.calls == []


def test_a_pdf_with_a_wrong_name_is_accepted(api: Api, pdf_bytes: bytes) -> None:
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes, "notes.txt", "text/plain"))
    assert r.status_code == 200


def test_429_daily_limit(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(limits={"daily_per_account": 2})
    for _ in range(2):
        assert api.client.post(URL, headers=api.auth, files=upload(pdf_bytes)).status_code == 200
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes))
    assert_error(r, 429, "RATE_LIMITED")
    assert int(r.headers["retry-after"]) > 3600  # the oldest rename leaves the window in ~24 h
    assert r.headers["x-ratelimit-limit"] == "2"
    assert api.balance() == 48


def test_500_hides_internals_and_refunds(api: Api, pdf_bytes: bytes) -> None:
    api.engine.fail = RuntimeError("boom at /srv/secret/path")
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes))
    body = assert_error(r, 500, "INTERNAL_ERROR")
    assert "secret" not in r.text and "Traceback" not in r.text
    assert body["error"].startswith("processing failed")
    assert api.balance() == 50


def test_502_when_the_llm_provider_is_down(api: Api, pdf_bytes: bytes) -> None:
    api.engine.fail = ProviderUnavailable("connection refused")
    assert_error(api.client.post(URL, headers=api.auth, files=upload(pdf_bytes)), 502, "BAD_GATEWAY")
    assert api.balance() == 50


def test_idempotency_key_replays_and_charges_once(api: Api, pdf_bytes: bytes) -> None:
    headers = {**api.auth, "Idempotency-Key": "k-1"}
    first = api.client.post(URL, headers=headers, files=upload(pdf_bytes))
    second = api.client.post(URL, headers=headers, files=upload(pdf_bytes))
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert second.headers["idempotent-replayed"] == "true"
    assert len(api.engine.calls) == 1 and api.balance() == 49
    other = api.client.post(URL, headers=headers, files=upload(pdf_bytes + b"\n"))
    assert_error(other, 400, "IDEMPOTENCY_KEY_MISMATCH")
    fresh = api.client.post(URL, headers={**api.auth, "Idempotency-Key": "k-2"}, files=upload(pdf_bytes))
    assert fresh.status_code == 200 and api.balance() == 48


def test_failed_request_with_key_is_processed_again(api: Api, pdf_bytes: bytes) -> None:
    headers = {**api.auth, "Idempotency-Key": "retry-me"}
    api.engine.fail = ProviderUnavailable("down")
    assert api.client.post(URL, headers=headers, files=upload(pdf_bytes)).status_code == 502
    api.engine.fail = None
    r = api.client.post(URL, headers=headers, files=upload(pdf_bytes))
    assert r.status_code == 200 and "idempotent-replayed" not in r.headers
    assert api.balance() == 49


def test_customtemplate_too_long_is_400(api: Api, pdf_bytes: bytes) -> None:
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes),
                        data={"customTemplate": "x" * 70_000})
    assert_error(r, 400)


def test_idempotency_records_are_stored(api: Api, pdf_bytes: bytes) -> None:
    from sqlmodel import select

    from renamerd.storage.models import IdempotencyRecord

    api.client.post(URL, headers={**api.auth, "Idempotency-Key": "stored"}, files=upload(pdf_bytes))
    with api.db.session() as s:
        rows = list(s.exec(select(IdempotencyRecord)))
    assert [(r.key, r.status_code) for r in rows] == [("stored", 200)]
    assert json.loads(rows[0].body)["originalFilename"] == "scan.pdf"


def test_utf8_names_in_part_headers(api: Api, pdf_bytes: bytes) -> None:
    """Found by schemathesis: non-latin-1 names in Content-Disposition must not crash (500)."""
    body, headers = raw_multipart([
        ('Content-Disposition: form-data; name="größe𝄞"', b"x"),
        ('Content-Disposition: form-data; name="file"; filename="Rechnung März 𝄞.pdf"\r\n'
         "Content-Type: application/pdf", pdf_bytes),
    ])
    r = api.client.post(URL, headers={**api.auth, **headers}, content=body)
    assert "unknown field 'größe𝄞'" in assert_error(r, 400, "UNKNOWN_FIELD")["error"]
    body, headers = raw_multipart([
        ('Content-Disposition: form-data; name="language"', b"es"),
        ('Content-Disposition: form-data; name="file"; filename="Rechnung März 𝄞.pdf"\r\n'
         "Content-Type: application/pdf", pdf_bytes),
    ])
    r = api.client.post(URL, headers={**api.auth, **headers}, content=body)
    assert r.status_code == 200, r.text
    assert r.json()["originalFilename"] == "Rechnung März 𝄞.pdf"
