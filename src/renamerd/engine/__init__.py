"""The renaming engine: `rename(data, filename, options, config) -> RenameResult`.

Pure (no database, no connector), used by the API, the daemon and `renamerd rename`:

1. validate the options; detect the real format from the bytes (formats.py);
2. read the first page (text layer, OCR for scans: text.py) and extract the fields
   (fields/); read more pages, up to `ocr_max_pages` for scans, only while core fields are
   missing;
3. optionally ask the LLM provider (llm.py), validating every value;
4. render folderPath (strategy or customTemplate rules) and the file name (naming.py).

`extractedInfo` always has `document_type` ("other" at worst); `date` (YYYY-MM-DD), `issuer`,
`invoice_number`, `amount` (string "1234.56") and `currency` (ISO code) are present only when
found: absent fields are omitted, never null.
"""

from __future__ import annotations

import logging
from typing import Any

from renamerd.engine.fields import Extraction, extract
from renamerd.engine.instructions import Rules, compile_template
from renamerd.engine.naming import (
    STANDARD_PATTERN,
    auto_fields,
    folder_for,
    render_folder_template,
    render_name,
)
from renamerd.engine.types import (
    DOCUMENT_TYPES,
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_IDS,
    TEMPLATE_MODES,
    DocumentTooLarge,
    EngineConfig,
    EngineError,
    Evidence,
    ProviderUnavailable,
    RenameOptions,
    RenameResult,
    UnreadableDocument,
    UnsupportedDocument,
)

__all__ = [
    "DOCUMENT_TYPES", "LANGUAGES", "STRATEGIES", "TEMPLATE_IDS", "TEMPLATE_MODES",
    "DocumentTooLarge", "EngineConfig", "EngineError", "Evidence", "ProviderUnavailable",
    "RenameOptions", "RenameResult", "UnreadableDocument", "UnsupportedDocument", "rename",
    "extract_text_fields", "warm_up",
]

log = logging.getLogger(__name__)
OUTPUT_KEYS = ("date", "issuer", "invoice_number", "document_type", "amount", "currency")


def warm_up(ocr: bool = False) -> float:
    """Do now what the first `rename()` of a process would do on top of the work proper:
    import the readers (pypdf, Pillow) and build the keyword patterns of every lexicon language;
    with `ocr`, also load one PP-OCR engine's models (about a second and ~60 MB, which a
    process that never reads a scan need not pay). Long-running processes (daemon workers, the
    API) call it at start so their first documents are not slower than the rest. Returns the
    seconds it took; safe to repeat."""
    import time

    started = time.perf_counter()
    from renamerd.engine import text  # noqa: F401  (its readers' imports are the cost)
    from renamerd.engine.fields import warm_up as warm_fields

    warm_fields()
    if ocr:
        from renamerd.engine.ocr import rapid

        if rapid.available():
            rapid.warm_up()
    return time.perf_counter() - started


def extract_text_fields(pages: list[str]) -> Extraction:
    """Built-in extraction on already-read page texts (for callers that have text)."""
    return extract(pages)


def _read_and_extract(data: bytes, config: EngineConfig) -> tuple[Any, list[str], Extraction]:
    from renamerd.engine.text import open_text

    doc = open_text(data, config)
    pages = [doc.page(0)] if doc.page_count else []
    extraction = extract(pages)
    limit = min(doc.page_count, max(config.ocr_max_pages, 1) + 2)
    index = 1
    while extraction.missing() and index < limit:
        text = doc.page(index)
        index += 1
        if not text.strip():
            continue
        pages.append(text)
        extraction = extract(pages)
    return doc, pages, extraction


def _apply_llm(config: EngineConfig, pages: list[str], extraction: Extraction,
               options: RenameOptions, rules: Rules | None) -> tuple[Rules | None, str | None]:
    """Ask the provider; merge valid values into `extraction`. Returns (rules, note)."""
    from renamerd.engine.llm import OpenAIProvider, ProviderError

    try:
        provider = OpenAIProvider(config)
    except ProviderError as err:
        if not config.llm_fallback:
            raise ProviderUnavailable(str(err)) from err
        return rules, f"LLM not used: {err}"
    note = None
    try:
        values = provider.extract("\n\n".join(pages))
        for key, value in values.items():
            same = extraction.values.get(key) == value
            extraction.values[key] = value
            if key in ("date", "issuer", "invoice_number", "document_type"):
                old = extraction.confidence.get(key, 0.0)
                extraction.confidence[key] = max(old, 0.95) if same else 0.85
            extraction.evidence.append(Evidence(key, str(value), "", 1, "LLM provider, validated"))
        if rules is not None and rules.not_understood and options.custom_template:
            model_rules = provider.interpret(options.custom_template)
            if not model_rules.empty:
                rules = model_rules
        target = options.language
        issuer = extraction.values.get("issuer")
        if issuer and target not in ("auto", "source") and target != extraction.language:
            extraction.values["issuer"] = provider.translate(str(issuer), target)
    except ProviderError as err:
        log.warning("LLM provider failed: %s", err)
        if not config.llm_fallback:
            raise ProviderUnavailable(f"AI service unavailable: {err}") from err
        note = f"LLM failed, built-in result used: {err}"
    finally:
        provider.close()
    return rules, note


def rename(data: bytes, filename: str, options: RenameOptions | None = None,
           config: EngineConfig | None = None) -> RenameResult:
    """Suggest a file name and folder for a document.

    Returns a RenameResult. Raises ValueError for bad options (message names the field),
    UnsupportedDocument, DocumentTooLarge, UnreadableDocument, ProviderUnavailable (LLM down
    and fallback off). Pure and safe to repeat: no state is kept between calls.
    """
    options = options or RenameOptions()
    config = config or EngineConfig()
    options.validate()
    custom = options.template_mode == "custom" or options.strategy == "follow_custom_prompt"
    if options.template_mode == "custom" and not (options.custom_template or "").strip():
        raise ValueError("customTemplate: required with templateMode custom")
    rules = compile_template(options.custom_template) if custom else None

    doc, pages, extraction = _read_and_extract(data, config)
    note = None
    if config.provider == "openai":
        rules, note = _apply_llm(config, pages, extraction, options, rules)

    values = {k: extraction.values[k] for k in OUTPUT_KEYS if k in extraction.values}
    values.setdefault("document_type", "other")
    language = options.language
    if language in ("auto", "source"):
        language = extraction.language or "en"
    extension = doc.format.extension

    if options.strategy == "follow_custom_prompt":
        template = rules.folder_for(values) if rules else None
        folder = render_folder_template(template, values, language) if template else ""
    else:
        folder = folder_for(options.strategy, values, language)

    if options.template_mode == "custom" and rules is not None:
        name = render_name(rules.fields or list(auto_fields(values["document_type"])), values,
                           extension, separator=rules.separator if rules.separator is not None
                           else "_", case=rules.case, date_format=rules.date_format,
                           language=language)
    elif options.template_mode == "predefined":
        name = render_name(STANDARD_PATTERN, values, extension, language=language)
    else:
        name = render_name(auto_fields(values["document_type"]), values, extension,
                           language=language)

    evidence = list(extraction.evidence)
    if note:
        evidence.append(Evidence("provider", "builtin", note, 0, "fallback"))
    return RenameResult(
        original_filename=filename,
        suggested_filename=name,
        extracted_info=values,
        folder_path=folder,
        organization_strategy=options.strategy,
        template_used=options.template_mode,
        confidence=extraction.overall_confidence(),
        mime_type=doc.format.mime,
        extension=extension,
        detected_language=extraction.language,
        evidence=evidence,
        rules=rules.readable() if rules else [],
        not_understood=list(rules.not_understood) if rules else [],
        pages_read=doc.pages_read,
        ocr_used=doc.ocr_used,
    )
