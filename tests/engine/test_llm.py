"""The OpenAI-compatible provider against a local emulator: good answers, nonsense, timeouts,
500s, fallback on and off. Names are always rendered by code from validated values."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from emulators.base import EmulatorServer
from emulators.openai import OpenAIEmulator
from engine.docmaker import make_pdf
from renamerd.engine import EngineConfig, ProviderUnavailable, RenameOptions, rename
from renamerd.engine.llm import OpenAIProvider, ProviderError, validate_fields

LINES = ["Initech Solutions Ltd", "5 Side Street", "London EC1A 1BB", "", "Bill to:",
         "Globex Corporation", "1 Main Road", "Springfield 12345", "", "INVOICE",
         "Invoice number: INV-77", "Invoice date: 01/02/2024", "Due date: 01/03/2024",
         "Total: £120.00"]
TEXT = "\n".join(LINES)
GOOD = {"document_fields": {"date": "2024-02-01", "issuer": "Initech Solutions Ltd",
                            "invoice_number": "INV-77", "document_type": "invoice",
                            "amount": "120.00", "currency": "GBP"},
        "naming_rules": {"fields": ["issuer", "date"], "separator": "-", "case": "lower",
                         "date_format": None, "conditions": [
                             {"document_type": "invoice", "issuer": None,
                              "folder": "Finance/{year}"}]},
        "translation": {"text": "イニテック・ソリューションズ"}}


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return make_pdf(LINES)


@pytest.fixture
def emulator() -> Iterator[tuple[OpenAIEmulator, EmulatorServer]]:
    app = OpenAIEmulator("good", answers=dict(GOOD))
    with EmulatorServer(app, tls=False) as server:
        yield app, server


def config_for(server: EmulatorServer, **kw: object) -> EngineConfig:
    return replace(EngineConfig(provider="openai", llm_base_url=server.url + "/v1",
                                llm_model="test-model", llm_api_key="sk-test",
                                llm_timeout_s=1.0), **kw)  # type: ignore[arg-type]


def test_good_answers_are_used_and_the_wire_format_is_right(emulator, pdf) -> None:
    app, server = emulator
    result = rename(pdf, "scan.pdf", RenameOptions(strategy="by_date"), config_for(server))
    assert result.extracted_info["issuer"] == "Initech Solutions Ltd"
    assert result.suggested_filename == "2024-02-01_Initech-Solutions-Ltd_invoice_INV-77.pdf"
    req = app.requests[0]
    assert req["headers"]["authorization"] == "Bearer sk-test"
    body = req["body"]
    assert body["model"] == "test-model"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "document_fields"
    assert "Initech" in body["messages"][1]["content"]


def test_the_model_may_read_instructions_but_code_renders_the_name(emulator, pdf) -> None:
    app, server = emulator
    options = RenameOptions(strategy="follow_custom_prompt", template_mode="custom",
                            custom_template="arrange things the way an accountant likes")
    result = rename(pdf, "scan.pdf", options, config_for(server))
    assert result.rules == ["name: issuer + date", "separator: '-'", "case: lowercase",
                            "if document_type = invoice -> folder 'Finance/{year}'"]
    assert result.folder_path == "Finance/2024"
    assert result.suggested_filename == "initech-solutions-ltd-2024-02-01.pdf"


def test_translation_of_the_issuer_to_the_output_language(emulator, pdf) -> None:
    app, server = emulator
    result = rename(pdf, "scan.pdf", RenameOptions(strategy="by_issuer", language="ja"),
                    config_for(server))
    assert result.folder_path == "イニテック・ソリューションズ"
    assert result.extracted_info["document_type"] == "invoice"  # type words stay English
    assert [r["body"]["response_format"]["json_schema"]["name"] for r in app.requests] == \
        ["document_fields", "translation"]


@pytest.mark.parametrize("mode", ["nonsense", "not_json", "error", "slow"])
def test_failures_fall_back_to_the_builtin_engine(emulator, pdf, mode: str) -> None:
    app, server = emulator
    app.mode = mode
    app.delay = 2.0
    result = rename(pdf, "scan.pdf", RenameOptions(), config_for(server, llm_timeout_s=0.5))
    assert result.extracted_info["issuer"] == "Initech Solutions Ltd"
    assert result.extracted_info["date"] == "2024-02-01"
    assert "spaceship" not in str(result.extracted_info)
    assert any(e.field == "provider" and "LLM failed" in e.text for e in result.evidence)


@pytest.mark.parametrize("mode", ["error", "slow", "nonsense"])
def test_without_fallback_failures_raise_provider_unavailable(emulator, pdf, mode) -> None:
    app, server = emulator
    app.mode = mode
    with pytest.raises(ProviderUnavailable):
        rename(pdf, "scan.pdf", RenameOptions(),
               config_for(server, llm_timeout_s=0.5, llm_fallback=False))


def test_unreachable_endpoint() -> None:
    cfg = EngineConfig(provider="openai", llm_base_url="http://127.0.0.1:9/v1",
                       llm_model="m", llm_timeout_s=0.5)
    provider = OpenAIProvider(cfg)
    with pytest.raises(ProviderError, match="unreachable"):
        provider.extract(TEXT)
    provider.close()


def test_validation_keeps_only_plausible_values() -> None:
    answer = {"date": "2024-02-01", "issuer": "Someone Else Entirely GmbH",
              "invoice_number": "INV-77", "document_type": "invoice", "amount": "120.00",
              "currency": "GBP"}
    valid = validate_fields(answer, TEXT)
    assert "issuer" not in valid  # not in the text: invented
    assert valid["invoice_number"] == "INV-77" and valid["date"] == "2024-02-01"
    assert validate_fields({"date": "1850-01-01", "document_type": "memo",
                            "invoice_number": "ZZZ9"}, TEXT) == {}
    with pytest.raises(ProviderError):
        validate_fields(["not", "an", "object"], TEXT)


def test_missing_base_url_is_a_provider_error(pdf) -> None:
    with pytest.raises(ProviderUnavailable):
        rename(pdf, "a.pdf", RenameOptions(), EngineConfig(provider="openai",
                                                             llm_fallback=False))
    result = rename(pdf, "a.pdf", RenameOptions(), EngineConfig(provider="openai"))
    assert result.extracted_info["issuer"] == "Initech Solutions Ltd"


def test_only_what_was_not_understood_is_asked_and_the_answers_are_merged(emulator,
                                                                         pdf) -> None:
    app, server = emulator
    options = RenameOptions(strategy="follow_custom_prompt", template_mode="custom",
                            custom_template="Name it date then company. "
                                            "File things the way an accountant likes")
    result = rename(pdf, "scan.pdf", options, config_for(server))
    asked = next(r for r in app.requests
                 if r["body"]["response_format"]["json_schema"]["name"] == "naming_rules")
    question = asked["body"]["messages"][1]["content"]
    assert "Not understood" in question and "File things the way an accountant likes" in question
    assert "name: date + issuer" in question  # what was understood is given as context
    # the built-in name rule stays; the model's folder rule and case are added
    assert result.rules[0] == "name: date + issuer"
    assert "if document_type = invoice -> folder 'Finance/{year}'" in result.rules
    assert result.not_understood == []
    assert result.folder_path == "Finance/2024"
    assert result.suggested_filename == "2024-02-01-initech-solutions-ltd.pdf"
