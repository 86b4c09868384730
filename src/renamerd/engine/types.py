"""The engine's public types: options in, result out, and the errors it raises.

The engine is pure: `rename(data, filename, options, config)` takes bytes and returns a
`RenameResult`; it touches no database and no connector. Callers map the errors below to
HTTP statuses (API) or job states (daemon):

=========================  ==========  ===========================
error                      HTTP        job state
=========================  ==========  ===========================
UnsupportedDocument        415         skipped
DocumentTooLarge           413         skipped
UnreadableDocument         400         skipped (broken, encrypted, bomb)
ProviderUnavailable        502         retried with backoff
EngineError (other)        500         retried, then failed
=========================  ==========  ===========================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

STRATEGIES: tuple[str, ...] = (
    "follow_custom_prompt",
    "by_date",
    "by_issuer",
    "by_type",
    "by_date_issuer",
    "by_date_type",
    "by_issuer_type",
    "by_all",
    "root",
)
TEMPLATE_MODES: tuple[str, ...] = ("auto", "predefined", "custom")
TEMPLATE_IDS: tuple[str, ...] = ("standard",)
LANGUAGES: tuple[str, ...] = (
    "auto", "source", "en", "de", "fr", "es", "it", "pt", "pt-BR", "nl", "pl", "sv", "no", "da",
    "fi", "cs", "tr", "zh-Hans", "zh-Hant", "ja", "ko", "ar", "hi", "id",
)
DOCUMENT_TYPES: tuple[str, ...] = (
    "invoice", "receipt", "contract", "bank_statement", "payslip", "quote", "credit_note",
    "reminder", "order_confirmation", "delivery_note", "tax_document", "insurance", "letter",
    "other",
)

#: what happens to a document whose confidence is below the threshold (`belowConfidence`):
#: keep its name where it is, keep its name and move it to the review folder, or rename anyway
BELOW_CONFIDENCE: tuple[str, ...] = ("keep", "review", "rename")
DEFAULT_BELOW_CONFIDENCE = "review"
DEFAULT_CONFIDENCE_THRESHOLD = 0.5
DEFAULT_REVIEW_FOLDER = "Review"

DEFAULT_STRATEGY = "root"
DEFAULT_TEMPLATE_MODE = "auto"
DEFAULT_LANGUAGE = "auto"

Strategy = Literal[
    "follow_custom_prompt", "by_date", "by_issuer", "by_type", "by_date_issuer", "by_date_type",
    "by_issuer_type", "by_all", "root",
]
TemplateMode = Literal["auto", "predefined", "custom"]


class EngineError(Exception):
    """Base of every error the engine raises on purpose. `str(err)` is safe to show a user."""


class UnsupportedDocument(EngineError):
    """The bytes are not a format the engine reads (judged by content, never by name)."""


class DocumentTooLarge(EngineError):
    """Over a size, page or pixel limit of `EngineConfig`."""


class UnreadableDocument(EngineError):
    """A supported format that cannot be read: broken, encrypted, or a decompression bomb."""


class ProviderUnavailable(EngineError):
    """The configured LLM provider failed and `EngineConfig.llm_fallback` is off."""


@dataclass(frozen=True)
class RenameOptions:
    """What the caller asks for; values are validated by `validate()` against the lists above."""

    strategy: str = DEFAULT_STRATEGY
    template_mode: str = DEFAULT_TEMPLATE_MODE
    custom_template: str | None = None
    template_id: str | None = None
    language: str = DEFAULT_LANGUAGE
    #: "keep" | "review" | "rename"; None: `EngineConfig.below_confidence`
    below_confidence: str | None = None
    #: 0..1; None: `EngineConfig.confidence_threshold`
    confidence_threshold: float | None = None

    def validate(self) -> None:
        """Raise ValueError("<field>: ...allowed values...") naming the first bad field (API
        names: strategy, templateMode, language, templateId, belowConfidence,
        confidenceThreshold)."""
        for name, value, allowed in (
            ("strategy", self.strategy, STRATEGIES),
            ("templateMode", self.template_mode, TEMPLATE_MODES),
            ("language", self.language, LANGUAGES),
        ):
            if value not in allowed:
                raise ValueError(f"{name}: '{value}' is not one of {', '.join(allowed)}")
        if self.below_confidence is not None and self.below_confidence not in BELOW_CONFIDENCE:
            raise ValueError(f"belowConfidence: '{self.below_confidence}' is not one of "
                             f"{', '.join(BELOW_CONFIDENCE)}")
        threshold = self.confidence_threshold
        if threshold is not None and (isinstance(threshold, bool)
                                      or not isinstance(threshold, (int, float))
                                      or not 0.0 <= float(threshold) <= 1.0):
            raise ValueError(f"confidenceThreshold: '{threshold}' is not a number from 0 to 1")
        if self.template_id is not None and self.template_id not in TEMPLATE_IDS:
            raise ValueError(
                f"templateId: '{self.template_id}' is not one of {', '.join(TEMPLATE_IDS)}"
            )


@dataclass(frozen=True)
class EngineConfig:
    """Admin settings the engine obeys (from the `[engine]` and `[limits]` config sections)."""

    max_bytes: int = 25 * 1024 * 1024
    max_pages: int = 500
    max_pixels: int = 80_000_000
    #: text kept per page and per document (every reader: PDF text layer, OCR, Office);
    #: the rest is dropped, and reading stops once the document's share is used up
    max_page_chars: int = 100_000
    max_document_chars: int = 300_000
    #: decoded bytes of one PDF page's content (its streams, plus every form it draws,
    #: counted each time drawn) the text extraction may parse; a larger page is refused
    max_page_content_bytes: int = 2 * 1024 * 1024
    ocr: str = "auto"  # "auto" | "rapidocr" | "tesseract" (see engine/ocr/__init__.py)
    ocr_languages: tuple[str, ...] = ()  # empty: pick from what tesseract has installed
    ocr_max_pages: int = 3
    ocr_timeout_s: float = 60.0
    provider: str = "builtin"  # "builtin" | "openai"
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""  # resolved from the environment by the config layer; never logged
    llm_timeout_s: float = 30.0
    llm_fallback: bool = True  # on LLM failure: fall back to built-in (True) or raise (False)
    #: the confidence policy's defaults, used when the options do not say (see RenameOptions)
    below_confidence: str = DEFAULT_BELOW_CONFIDENCE
    confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD
    #: the folder (under the target) that the "review" policy moves doubtful documents to
    review_folder: str = DEFAULT_REVIEW_FOLDER


@dataclass(frozen=True)
class Evidence:
    """Where a field's value came from: the text matched and why it was chosen."""

    field: str
    value: str
    text: str
    page: int = 1
    rule: str = ""
    score: float = 0.0


@dataclass(frozen=True)
class Kept:
    """What of the original file name was kept, and why.

    reason "below_confidence": the whole name was kept (policy keep or review) because the
    confidence is below the threshold; "unread_fields": the document was renamed, but `text`
    (a meaningful part of the original name, e.g. "Garden notes May") stands where `fields`
    could not be read."""

    reason: str
    policy: str
    confidence: float
    threshold: float
    fields: tuple[str, ...] = ()
    text: str = ""

    def message(self) -> str:
        """One sentence for people."""
        unread = ", ".join(self.fields) or "nothing"
        if self.reason == "below_confidence":
            where = "moved to the review folder" if self.policy == "review" else "left in place"
            return (f"confidence {self.confidence:.2f} is below {self.threshold:.2f}: the name "
                    f"was kept and the document {where} (not read: {unread})")
        return f"'{self.text}' of the original name was kept where {unread} could not be read"

    def to_api(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message(), "policy": self.policy,
                "confidence": round(float(self.confidence), 4),
                "threshold": round(float(self.threshold), 4), "fields": list(self.fields),
                "text": self.text}


@dataclass
class RenameResult:
    """The engine's answer. `to_api()` gives the v1 response body.

    `renamed` is False when the document keeps its original name (confidence policy keep or
    review, or nothing better could be made): callers charge no credit for it. `kept` says
    what of the original name was kept and why. `output_language` is the language the names
    were written in; `issuer_translated` whether an LLM wrote the issuer in it (otherwise the
    issuer is written as in the document).
    """

    original_filename: str
    suggested_filename: str
    extracted_info: dict[str, Any]
    folder_path: str
    organization_strategy: str
    template_used: str
    confidence: float
    mime_type: str = ""
    extension: str = ""
    detected_language: str | None = None
    evidence: list[Evidence] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # how customTemplate was understood
    not_understood: list[str] = field(default_factory=list)
    pages_read: int = 0
    ocr_used: bool = False
    renamed: bool = True
    kept: Kept | None = None
    output_language: str = ""
    issuer_translated: bool = False

    def to_api(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "originalFilename": self.original_filename,
            "suggestedFilename": self.suggested_filename,
            "extractedInfo": self.extracted_info,
            "folderPath": self.folder_path,
            "organizationStrategy": self.organization_strategy,
            "templateUsed": self.template_used,
            "confidence": round(float(self.confidence), 4),
            "renamed": self.renamed,
        }
        if self.kept is not None:
            body["kept"] = self.kept.to_api()
        if self.output_language:
            body["outputLanguage"] = {
                "code": self.output_language,
                "issuer": "translated" if self.issuer_translated else "as_written"}
        if self.rules or self.not_understood:
            body["instructions"] = {
                "rules": list(self.rules),
                "notUnderstood": [str(item) for item in self.not_understood],
                "notUnderstoodReasons": [
                    {"text": str(item), "reason": getattr(item, "reason", "")}
                    for item in self.not_understood]}
        return body
