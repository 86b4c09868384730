"""The renaming engine: `rename(data, filename, options, config) -> RenameResult`.

Pure (no database, no connector), used by the API, the daemon and `renamerd rename`:

1. validate the options; detect the real format from the bytes (formats.py);
2. read the first page (text layer, OCR for scans: text.py) and extract the fields
   (fields/); read more pages, up to `ocr_max_pages` for scans, only while core fields are
   missing;
3. optionally ask the LLM provider (llm.py), validating every value; it is also asked about
   the parts of a customTemplate the built-in grammar did not understand;
4. render folderPath (strategy or customTemplate rules) and the file name (naming.py) in the
   output language (wording.py);
5. apply the confidence policy (policy.py): below the threshold the document keeps its name
   (policy keep or review) and `renamed` is False, so callers charge nothing.

`extractedInfo` always has `document_type` ("other" at worst); `date` (YYYY-MM-DD), `issuer`,
`invoice_number`, `amount` (string "1234.56") and `currency` (ISO code) are present only when
found: absent fields are omitted, never null. Every value is cleaned (cleaning.py): no control
or format characters, no "/".
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from renamerd.engine.cleaning import clean_filename, clean_text, clean_values
from renamerd.engine.fields import Extraction, extract
from renamerd.engine.instructions import Rules, compile_template, merge_model_rules
from renamerd.engine.language import regional
from renamerd.engine.lexicon import TABLE_OF, fold
from renamerd.engine.naming import (
    STANDARD_PATTERN,
    auto_fields,
    folder_for,
    render_folder_template,
    render_name,
    render_pattern,
    safe_component,
)
from renamerd.engine.policy import Policy, core_unread, meaningful_stem, split_name, unread_fields
from renamerd.engine.script_text import page_text, right_to_left
from renamerd.engine.types import (
    BELOW_CONFIDENCE,
    DOCUMENT_TYPES,
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_IDS,
    TEMPLATE_MODES,
    DocumentTooLarge,
    EngineConfig,
    EngineError,
    Evidence,
    Kept,
    ProviderUnavailable,
    RenameOptions,
    RenameResult,
    UnreadableDocument,
    UnsupportedDocument,
)

if TYPE_CHECKING:
    from renamerd.engine.readers.einvoice import EInvoice

__all__ = [
    "BELOW_CONFIDENCE", "DOCUMENT_TYPES", "LANGUAGES", "STRATEGIES", "TEMPLATE_IDS",
    "TEMPLATE_MODES", "DocumentTooLarge", "EngineConfig", "EngineError", "Evidence", "Kept",
    "ProviderUnavailable", "RenameOptions", "RenameResult", "UnreadableDocument",
    "UnsupportedDocument", "clean_filename", "clean_text", "compile_template", "rename",
    "extract_text_fields", "warm_up",
]

log = logging.getLogger(__name__)
OUTPUT_KEYS = ("date", "issuer", "invoice_number", "document_type", "amount", "currency")


def warm_up(ocr: bool = False) -> float:
    """Do now what the first `rename()` of a process would do on top of the work proper:
    import the readers (pypdf, Pillow), build the keyword patterns of every lexicon language and
    the instruction vocabulary; with `ocr`, also load one PP-OCR engine's models (about a second
    and ~60 MB, which a process that never reads a scan need not pay). Long-running processes
    (daemon workers, the API) call it at start so their first documents are not slower than the
    rest. Returns the seconds it took; safe to repeat."""
    import time

    started = time.perf_counter()
    from renamerd.engine import text  # noqa: F401  (its readers' imports are the cost)
    from renamerd.engine.fields import warm_up as warm_fields

    warm_fields()
    compile_template("Use format YYYY-MM-DD - Company - Amount. Put invoices over 400 GBP "
                     "in Big/ and everything else in Small/")  # the instruction vocabulary
    if ocr:
        from renamerd.engine.ocr import rapid

        if rapid.available():
            rapid.warm_up()
    return time.perf_counter() - started


def extract_text_fields(pages: list[str]) -> Extraction:
    """Built-in extraction on already-read page texts (for callers that have text)."""
    return extract([page_text(page) for page in pages])


def _read_and_extract(data: bytes, config: EngineConfig) -> tuple[Any, list[str], Extraction]:
    from renamerd.engine.text import open_text

    doc = open_text(data, config)
    einvoice = doc.einvoice()  # (what it gives needs no further page)
    pages = [page_text(doc.page(0))] if doc.page_count else []
    extraction = _take_einvoice(einvoice, extract(pages))
    limit = min(doc.page_count, max(config.ocr_max_pages, 1) + 2)
    index = 1
    while extraction.missing() and index < limit:
        text = page_text(doc.page(index))
        index += 1
        if not text.strip():
            continue
        pages.append(text)
        extraction = _take_einvoice(einvoice, extract(pages))
    if "invoice_number" in extraction.missing():
        _number_from_layout(doc, len(pages), extraction)
    return doc, pages, extraction


#: a page's reading this sure of the issuer is kept over a different seller in the
#: e-invoice's XML (the brand a person reads on the page; samples whose XML and page name
#: different sellers exist); the XML's date, number and type always win (a page's "date of
#: the associated invoice" or "Dear customer" is read with confidence too)
PAGE_SURE = 0.9


def _take_einvoice(einvoice: EInvoice | None, extraction: Extraction) -> Extraction:
    """`extraction` with the values of a PDF's embedded e-invoice (readers/einvoice.py, or
    None: unchanged) over those read from its pages: the XML is the binding invoice, so what
    it gives wins, but for an issuer the page is sure of (PAGE_SURE)."""
    if einvoice is None:
        return extraction
    found = {"date": einvoice.issue_date.isoformat() if einvoice.issue_date else None,
             "issuer": einvoice.seller, "invoice_number": einvoice.number,
             "document_type": einvoice.document_type, "amount": einvoice.total,
             "currency": einvoice.currency}
    taken = {k: v for k, v in found.items()
             if v and (k != "issuer" or extraction.confidence.get(k, 0.0) < PAGE_SURE)}
    extraction.evidence = [e for e in extraction.evidence if e.field not in taken]
    for name, value in taken.items():
        extraction.values[name] = value
        if name in ("date", "issuer", "invoice_number", "document_type"):
            extraction.confidence[name] = 0.99
        extraction.evidence.append(Evidence(name, str(value), f"{einvoice.syntax} XML", 1,
                                            f"embedded e-invoice ({einvoice.syntax})", 1.0))
    return extraction


def _number_from_layout(doc: Any, count: int, extraction: Extraction) -> None:
    """The invoice number from the PDF's pages in visual order, when the text layer's own
    order parted it from its label ("Rechnungsnr." at the end of one block, "30064443" in
    another): only that field is taken, into `extraction`."""
    layout = [doc.layout_page(i) for i in range(count)]
    if not layout or any(text is None for text in layout):
        return
    pages = [page_text(text) for text in layout if text is not None]
    if any(right_to_left(text) for text in pages):
        return
    found = extract(pages, extraction.language)
    number = found.values.get("invoice_number")
    if number:
        extraction.values["invoice_number"] = number
        extraction.confidence["invoice_number"] = found.confidence.get("invoice_number", 0.5)
        extraction.evidence.extend(e for e in found.evidence if e.field == "invoice_number")


def _same_language(a: str | None, b: str | None) -> bool:
    return bool(a and b) and TABLE_OF.get(a or "", a) == TABLE_OF.get(b or "", b)


def _apply_llm(config: EngineConfig, pages: list[str], extraction: Extraction,
               options: RenameOptions, rules: Rules | None
               ) -> tuple[Rules | None, str | None, bool]:
    """Ask the provider; merge valid values into `extraction`, and its reading of the clauses
    the built-in grammar did not understand into `rules`. Returns (rules, note, whether the
    issuer was translated)."""
    from renamerd.engine.llm import OpenAIProvider, ProviderError

    try:
        provider = OpenAIProvider(config)
    except ProviderError as err:
        if not config.llm_fallback:
            raise ProviderUnavailable(str(err)) from err
        return rules, f"LLM not used: {err}", False
    note, translated = None, False
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
            model_rules = provider.interpret(options.custom_template, rules)
            if not model_rules.empty:
                rules = merge_model_rules(rules, model_rules)
        target = options.language
        issuer = extraction.values.get("issuer")
        if issuer and target not in ("auto", "source") \
                and not _same_language(target, extraction.language):
            extraction.values["issuer"] = provider.translate(str(issuer), target)
            translated = True
    except ProviderError as err:
        log.warning("LLM provider failed: %s", err)
        if not config.llm_fallback:
            raise ProviderUnavailable(f"AI service unavailable: {err}") from err
        note = f"LLM failed, built-in result used: {err}"
    finally:
        provider.close()
    return rules, note, translated


def _policy(options: RenameOptions, config: EngineConfig) -> Policy:
    below = options.below_confidence or config.below_confidence
    threshold = options.confidence_threshold
    if threshold is None:
        threshold = config.confidence_threshold
    return Policy(below, float(threshold), config.review_folder)


def _folder(options: RenameOptions, rules: Rules | None, values: dict[str, Any],
            language: str, pages: list[str]) -> str:
    if options.strategy != "follow_custom_prompt":
        return folder_for(options.strategy, values, language)
    if rules is None:
        return ""
    text = fold("\n".join(pages)) if rules.needs_text() else ""
    template = rules.folder_for(values, text)
    return render_folder_template(template, values, language) if template else ""


def _name(options: RenameOptions, rules: Rules | None, values: dict[str, Any],
          extension: str, language: str, keep: str | None) -> tuple[str, list[str]]:
    """(file name, the fields its pattern asks for)."""
    auto = list(auto_fields(values["document_type"]))
    if options.template_mode == "custom" and rules is not None:
        parts = rules.name_parts()
        if parts is not None:
            wanted = [p.value for p in parts if p.kind == "field"]
            return render_pattern(parts, values, extension, case=rules.case,
                                  language=language, keep=keep), wanted
        sep = rules.separator if rules.separator is not None else "_"
        return render_name(auto, values, extension, separator=sep, case=rules.case,
                           date_format=rules.date_format, language=language, keep=keep), auto
    fields = list(STANDARD_PATTERN) if options.template_mode == "predefined" else auto
    return render_name(fields, values, extension, language=language, keep=keep), fields


def _kept_name(filename: str, extension: str) -> str:
    """The original name made safe (the real type's extension when it had none)."""
    stem, ext = split_name(filename)
    return safe_component(stem, keep_suffix=ext or (f".{extension}" if extension else ""),
                          fallback="document")


def _place(options: RenameOptions, config: EngineConfig, rules: Rules | None,
           values: dict[str, Any], language: str, pages: list[str], filename: str,
           extension: str, confidence: float) -> tuple[str, str, Kept | None]:
    """(file name, folder, what was kept of the original name): the confidence policy, then
    the strategy or rules with the meaningful original name standing in for unread fields."""
    policy = _policy(options, config)
    if policy.applies(confidence):
        folder = safe_component(policy.review_folder) if policy.below == "review" else ""
        return _kept_name(filename, extension), folder, Kept(
            "below_confidence", policy.below, confidence, policy.threshold,
            tuple(core_unread(values)), split_name(filename)[0])
    keep = meaningful_stem(filename)
    folder = _folder(options, rules, values, language, pages)
    name, wanted = _name(options, rules, values, extension, language, keep)
    unread = unread_fields(wanted, values)
    if keep and unread and keep in name:
        return name, folder, Kept("unread_fields", policy.below, confidence, policy.threshold,
                                  tuple(unread), keep)
    return name, folder, None


def rename(data: bytes, filename: str, options: RenameOptions | None = None,
           config: EngineConfig | None = None) -> RenameResult:
    """Suggest a file name and folder for a document.

    Returns a RenameResult (`renamed` False when the confidence policy kept the name: charge
    nothing). Raises ValueError for bad options (message names the field),
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
    note, translated = None, False
    if config.provider == "openai":
        rules, note, translated = _apply_llm(config, pages, extraction, options, rules)

    detected = regional(extraction.language, "\n".join(pages)[:20000]) \
        if extraction.language else None
    values = clean_values({k: extraction.values[k] for k in OUTPUT_KEYS
                           if k in extraction.values})
    values.setdefault("document_type", "other")
    language = options.language
    if language in ("auto", "source"):
        language = detected or "en"
    confidence = extraction.overall_confidence()
    name, folder, kept = _place(options, config, rules, values, language, pages, filename,
                                doc.format.extension, confidence)
    original = _kept_name(filename, doc.format.extension)

    evidence = list(extraction.evidence)
    if note:
        evidence.append(Evidence("provider", "builtin", note, 0, "fallback"))
    return RenameResult(
        original_filename=clean_filename(filename),
        suggested_filename=name,
        extracted_info=values,
        folder_path=folder,
        organization_strategy=options.strategy,
        template_used=options.template_mode,
        confidence=confidence,
        mime_type=doc.format.mime,
        extension=doc.format.extension,
        detected_language=detected,
        evidence=evidence,
        rules=rules.describe() if rules else [],
        not_understood=list(rules.not_understood) if rules else [],
        pages_read=doc.pages_read,
        ocr_used=doc.ocr_used,
        renamed=name != original,
        kept=kept,
        output_language=language,
        issuer_translated=translated,
    )
