"""The rename endpoints with the real engine (renamerd.engine.rename), not a fake."""

from __future__ import annotations

import socket

import pytest

from api.conftest import MakeApi, needs_engine, upload
from api.test_account import assert_error
from renamerd.engine.types import LANGUAGES, STRATEGIES, TEMPLATE_MODES

pytestmark = needs_engine
URL = "/api/v1/rename"


def test_real_engine_reads_the_invoice(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(engine=None)
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes, "scan_0001.pdf"),
                        data={"strategy": "by_date_issuer", "templateMode": "predefined",
                              "templateId": "standard"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["originalFilename"] == "scan_0001.pdf"
    assert body["extractedInfo"]["date"] == "2024-03-01"
    assert "RE-1001" in body["suggestedFilename"] and body["suggestedFilename"].endswith(".pdf")
    assert "2024" in body["folderPath"]
    assert 0 <= body["confidence"] <= 1
    assert api.balance() == 49


def test_every_option_value_with_the_real_engine(make_api: MakeApi, pdf_bytes: bytes) -> None:
    api = make_api(engine=None)
    cases = [{"strategy": v} for v in STRATEGIES]
    cases += [{"templateMode": v, "customTemplate": "Jahr/Aussteller, Datum_Nummer"}
              for v in TEMPLATE_MODES]
    cases += [{"language": v} for v in LANGUAGES]
    api.accounts.credits.grant(api.user_id, len(cases))
    for fields in cases:
        r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes), data=fields)
        assert r.status_code == 200, (fields, r.text)
        body = r.json()
        assert body["organizationStrategy"] == fields.get("strategy", "root")
        assert body["templateUsed"] == fields.get("templateMode", "auto")
        assert body["suggestedFilename"].endswith(".pdf")
    assert api.balance() == 50


def test_encrypted_pdf_is_400_and_free(make_api: MakeApi) -> None:
    from engine.docmaker import make_encrypted_pdf

    api = make_api(engine=None)
    r = api.client.post(URL, headers=api.auth, files=upload(make_encrypted_pdf(["Invoice"])))
    assert_error(r, 400, "UNREADABLE_DOCUMENT")
    assert api.balance() == 50


def test_llm_provider_down_is_502(make_api: MakeApi, pdf_bytes: bytes, monkeypatch) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there
    api = make_api(engine=None)
    state = api.client.app.state
    from dataclasses import replace

    state.engine_config = replace(state.engine_config, provider="openai",
                                  llm_base_url=f"http://127.0.0.1:{port}/v1", llm_model="m",
                                  llm_timeout_s=2, llm_fallback=False)
    state.rename_requests.engine_config = state.engine_config  # what the engine runs with
    r = api.client.post(URL, headers=api.auth, files=upload(pdf_bytes))
    assert_error(r, 502, "BAD_GATEWAY")
    assert api.balance() == 50


@pytest.mark.parametrize("maker", ["scan_png", "docx"])
def test_other_formats(make_api: MakeApi, maker: str) -> None:
    from engine import docmaker

    lines = ["ACME GmbH", "Rechnung Nr. RE-77", "Rechnungsdatum: 05.02.2024"]
    if maker == "docx":
        data, name, ctype = docmaker.make_docx(lines), "a.docx", "application/octet-stream"
    else:
        data, name, ctype = docmaker.make_scan(lines), "a.png", "image/png"
    api = make_api(engine=None)
    r = api.client.post(URL, headers=api.auth, files=upload(data, name, ctype))
    assert r.status_code == 200, r.text
    assert r.json()["extractedInfo"].get("date") == "2024-02-05"
