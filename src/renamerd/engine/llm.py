"""Optional LLM provider: any OpenAI-compatible `/chat/completions` endpoint (Ollama, vLLM,
llama.cpp server, OpenAI), asked for JSON through `response_format: json_schema`.

The model may extract fields, interpret a customTemplate and translate free text (the issuer)
into the output language. Every value it returns is validated (dates parse and are plausible,
the type is in the vocabulary, the issuer and the invoice number occur in the text...); names
are always rendered by code from validated values, never taken from the model.
Failures raise `ProviderError`; the engine then falls back to the built-in path or, when
`EngineConfig.llm_fallback` is off, raises `ProviderUnavailable`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import httpx

from renamerd.engine.instructions import Rules, rules_from_dict
from renamerd.engine.lexicon import fold
from renamerd.engine.types import DOCUMENT_TYPES, EngineConfig

MAX_TEXT_CHARS = 12_000

FIELDS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["date", "issuer", "invoice_number", "document_type", "amount", "currency"],
    "properties": {
        "date": {"type": ["string", "null"], "description": "document date, YYYY-MM-DD"},
        "issuer": {"type": ["string", "null"], "description": "the sender, not the recipient"},
        "invoice_number": {"type": ["string", "null"]},
        "document_type": {"type": "string", "enum": list(DOCUMENT_TYPES)},
        "amount": {"type": ["string", "null"], "description": "total, e.g. 1234.56"},
        "currency": {"type": ["string", "null"], "description": "ISO 4217 code"},
    },
}
_NULLABLE_STRING = {"type": ["string", "null"]}
_NULLABLE_NUMBER = {"type": ["number", "null"]}
CONDITION_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["document_type", "issuer", "folder", "amount_over", "amount_under",
                 "currency", "date_before", "date_after", "year", "month", "keywords",
                 "otherwise"],
    "properties": {
        "document_type": _NULLABLE_STRING,
        "issuer": _NULLABLE_STRING,
        "folder": {"type": "string",
                   "description": "may use {year} {month} {quarter} {issuer} {document_type}"},
        "amount_over": _NULLABLE_NUMBER,
        "amount_under": _NULLABLE_NUMBER,
        "currency": {"type": ["string", "null"], "description": "ISO 4217 code"},
        "date_before": {"type": ["string", "null"], "description": "YYYY-MM-DD"},
        "date_after": {"type": ["string", "null"], "description": "YYYY-MM-DD"},
        "year": {"type": ["integer", "null"]},
        "month": {"type": ["integer", "null"]},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "otherwise": {"type": "boolean", "description": "the folder for everything else"},
    },
}
RULES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["fields", "separator", "case", "date_format", "conditions"],
    "properties": {
        "fields": {"type": ["array", "null"], "items": {"type": "string", "enum": [
            "date", "issuer", "invoice_number", "document_type", "amount", "currency"]}},
        "separator": {"type": ["string", "null"]},
        "case": {"type": ["string", "null"], "enum": ["lower", "upper", None]},
        "date_format": {"type": ["string", "null"], "description": "e.g. DD.MM.YYYY"},
        "conditions": {"type": "array", "items": CONDITION_SCHEMA},
    },
}
TRANSLATION_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["text"],
    "properties": {"text": {"type": "string"}},
}


class ProviderError(Exception):
    """The endpoint failed (network, timeout, HTTP error) or answered nonsense."""


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", fold(text))


def validate_fields(answer: Any, text: str) -> dict[str, Any]:
    """Keep only the values of `answer` that pass validation against the document `text`.

    Returns the valid values (possibly empty). Raises ProviderError when `answer` is not an
    object at all. Pure.
    """
    if not isinstance(answer, dict):
        raise ProviderError("the model did not answer a JSON object")
    out: dict[str, Any] = {}
    folded_key = _key(text)
    date = answer.get("date")
    if isinstance(date, str):
        try:
            value = dt.date.fromisoformat(date.strip())
            year = str(value.year)
            if 1980 <= value.year <= dt.date.today().year + 2 and (year in text or
                                                                   year[2:] in text):
                out["date"] = value.isoformat()
        except ValueError:
            pass
    issuer = answer.get("issuer")
    if isinstance(issuer, str) and 2 <= len(issuer.strip()) <= 100 and "\n" not in issuer:
        words = set(re.split(r"\W+", fold(text)))
        tokens = [t for t in re.split(r"\W+", fold(issuer)) if len(t) >= 2]
        found = sum(1 for t in tokens if t in words)
        if tokens and found * 3 >= len(tokens) * 2:
            out["issuer"] = re.sub(r"\s+", " ", issuer).strip()
    number = answer.get("invoice_number")
    if isinstance(number, str) and 1 <= len(number) <= 40 and _key(number) and \
            _key(number) in folded_key and any(ch.isdigit() for ch in number):
        out["invoice_number"] = number.strip()
    dtype = answer.get("document_type")
    if dtype in DOCUMENT_TYPES:
        out["document_type"] = dtype
    amount = answer.get("amount")
    if isinstance(amount, (str, int, float)) and re.fullmatch(r"\d{1,12}(?:\.\d{1,2})?",
                                                                str(amount).strip()):
        out["amount"] = f"{float(amount):.2f}"
    currency = answer.get("currency")
    if isinstance(currency, str) and re.fullmatch(r"[A-Z]{3}", currency.strip()):
        out["currency"] = currency.strip()
    return out


class OpenAIProvider:
    """A client of one OpenAI-compatible endpoint. Thread-safe (httpx.Client is)."""

    def __init__(self, config: EngineConfig, *, transport: httpx.BaseTransport | None = None,
                 verify: Any = True) -> None:
        if not config.llm_base_url or not config.llm_model:
            raise ProviderError("the LLM provider needs [engine] base_url and model")
        headers = {"Content-Type": "application/json"}
        if config.llm_api_key:
            headers["Authorization"] = f"Bearer {config.llm_api_key}"
        self.config = config
        self._client = httpx.Client(
            base_url=config.llm_base_url.rstrip("/") + "/", headers=headers,
            timeout=httpx.Timeout(config.llm_timeout_s, connect=min(config.llm_timeout_s, 10)),
            transport=transport, verify=verify,
        )

    def close(self) -> None:
        self._client.close()

    def chat_json(self, system: str, user: str, name: str, schema: dict[str, Any]) -> Any:
        """One chat completion asking for JSON matching `schema`; returns the parsed object.

        Raises ProviderError on any transport error, timeout, non-200 status or a reply that
        is not JSON. Safe to repeat (no state kept).
        """
        body = {
            "model": self.config.llm_model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": name, "schema": schema, "strict": True}},
        }
        try:
            response = self._client.post("chat/completions", json=body)
        except httpx.HTTPError as err:
            raise ProviderError(f"LLM endpoint unreachable: {type(err).__name__}") from err
        if response.status_code != 200:
            raise ProviderError(f"LLM endpoint answered HTTP {response.status_code}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
            return json.loads(content)
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise ProviderError("LLM endpoint answered something that is not JSON") from err

    def extract(self, text: str) -> dict[str, Any]:
        """Validated fields from the document text; raises ProviderError when none is valid."""
        answer = self.chat_json(
            "You extract fields from business documents. Answer only with JSON. date is the "
            "document's own issue date (not due, delivery or period dates) as YYYY-MM-DD; "
            "issuer is the sender (letterhead), never the recipient; document_type is one of "
            + ", ".join(DOCUMENT_TYPES) + ". Use null when a value is absent.",
            text[:MAX_TEXT_CHARS], "document_fields", FIELDS_SCHEMA,
        )
        values = validate_fields(answer, text)
        if not values:
            raise ProviderError("the model's answer held no valid value")
        return values

    def interpret(self, template: str, understood: Rules | None = None) -> Rules:
        """Rules for the parts of a customTemplate the built-in grammar did not understand
        (`understood.not_understood`, with the rules it did understand as context), or for the
        whole template when `understood` is None. Raises ProviderError when the answer is
        invalid. The caller merges the answer (instructions.merge_model_rules)."""
        if understood is not None and understood.not_understood:
            known = "\n".join(understood.describe()) or "(nothing)"
            unclear = "\n".join(f"- {item} ({getattr(item, 'reason', '')})"
                                 for item in understood.not_understood)
            user = (f"Instructions: {template[:4000]}\n\nAlready understood:\n{known}\n\n"
                    f"Not understood (answer rules for these only):\n{unclear}")
        else:
            user = template[:4000]
        answer = self.chat_json(
            "Convert the user's file naming and filing instructions into JSON rules. fields: "
            "name parts in order; separator: one character; case: lower/upper/null; "
            "date_format with YYYY MM DD; conditions: folder targets with optional "
            "document_type (one of " + ", ".join(DOCUMENT_TYPES) + "), issuer, amount_over / "
            "amount_under with currency, date_before / date_after, year, month, keywords the "
            "text must contain, or otherwise=true for everything else.",
            user, "naming_rules", RULES_SCHEMA,
        )
        if not isinstance(answer, dict):
            raise ProviderError("the model did not answer a JSON object")
        try:
            return rules_from_dict(answer)
        except (ValueError, TypeError, AttributeError) as err:
            raise ProviderError(f"invalid rules from the model: {err}") from err

    def translate(self, text: str, language: str) -> str:
        """`text` (a company name or short phrase) as written in `language`."""
        answer = self.chat_json(
            f"Write the given company name or phrase as it is written in the language "
            f"'{language}' (transliterate to its script when needed; keep brand names). "
            "Answer JSON {\"text\": ...}.",
            text[:200], "translation", TRANSLATION_SCHEMA,
        )
        value = answer.get("text") if isinstance(answer, dict) else None
        if not isinstance(value, str) or not value.strip() or len(value) > 120 or \
                re.search(r"[\x00-\x1f/\\]", value):
            raise ProviderError("invalid translation from the model")
        return value.strip()
