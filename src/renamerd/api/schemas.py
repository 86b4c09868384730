"""Response and request models of the v1 API: what `/openapi.json` documents and routes return."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from renamerd.engine.types import (
    BELOW_CONFIDENCE,
    DEFAULT_BELOW_CONFIDENCE,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_LANGUAGE,
    DEFAULT_STRATEGY,
    DEFAULT_TEMPLATE_MODE,
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_IDS,
    TEMPLATE_MODES,
)

StrategyField = Literal[STRATEGIES]  # type: ignore[valid-type]
TemplateModeField = Literal[TEMPLATE_MODES]  # type: ignore[valid-type]
TemplateIdField = Literal[TEMPLATE_IDS]  # type: ignore[valid-type]
LanguageField = Literal[LANGUAGES]  # type: ignore[valid-type]
BelowConfidenceField = Literal[BELOW_CONFIDENCE]  # type: ignore[valid-type]


class UserOut(BaseModel):
    id: str
    email: str
    name: str


class CreditsOut(BaseModel):
    credits: int = Field(description="remaining unexpired credits")


class MemberUser(BaseModel):
    id: str
    name: str
    email: str


class TeamMemberOut(BaseModel):
    user: MemberUser


class TeamOut(BaseModel):
    id: str
    name: str
    teamMembers: list[TeamMemberOut]


class ExtractedInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    date: str | None = Field(default=None, description="YYYY-MM-DD")
    issuer: str | None = None
    invoice_number: str | None = None
    document_type: str | None = None


class NotUnderstoodOut(BaseModel):
    text: str = Field(description="the clause of customTemplate, as written")
    reason: str = Field(description="why it was not understood, in words")


class InstructionsOut(BaseModel):
    rules: list[str] = Field(description="how customTemplate was understood, as explicit rules")
    notUnderstood: list[str] = Field(description="parts of customTemplate that were not "
                                     "understood (and were not applied, not even in part)")
    notUnderstoodReasons: list[NotUnderstoodOut] = Field(
        default_factory=list, description="each part of notUnderstood with the reason")


class KeptOut(BaseModel):
    reason: Literal["below_confidence", "unread_fields"] = Field(
        description="below_confidence: the whole original name was kept (policy keep or "
        "review); unread_fields: renamed, but a meaningful part of the original name stands "
        "where fields could not be read")
    message: str = Field(description="the same in one sentence")
    policy: BelowConfidenceField
    confidence: float
    threshold: float
    fields: list[str] = Field(description="the fields that could not be read")
    text: str = Field(description="the part of the original name that was kept")


class OutputLanguageOut(BaseModel):
    code: str = Field(description="the language the name and folders were written in")
    issuer: Literal["as_written", "translated"] = Field(
        description="as_written: the issuer's name as in the document (the built-in engine); "
        "translated: written in the output language by the configured LLM")


class RenameOut(BaseModel):
    originalFilename: str
    suggestedFilename: str
    extractedInfo: ExtractedInfo
    folderPath: str = Field(description="segments separated by /; empty for the root")
    organizationStrategy: str
    templateUsed: str
    confidence: float = Field(ge=0, le=1)
    instructions: InstructionsOut | None = Field(
        default=None, description="present when customTemplate was given"
    )
    renamed: bool = Field(True, description="false when the document keeps its original name "
                          "(confidence policy keep or review): no credit is charged for it")
    kept: KeptOut | None = Field(None, description="what of the original name was kept, and why")
    outputLanguage: OutputLanguageOut | None = None


OPTION_DESCRIPTIONS = {
    "strategy": "folder organisation; follow_custom_prompt uses customTemplate",
    "templateMode": "auto: the service picks the pattern; predefined: templateId; custom: customTemplate",
    "customTemplate": "natural-language instructions "
    "(use with templateMode custom and strategy follow_custom_prompt)",
    "templateId": "predefined template (templateMode predefined); standard = date_vendor_invoice number",
    "language": "output language; auto detects, source keeps the document's language",
    "belowConfidence": "what happens to a document whose confidence is below "
    "confidenceThreshold: keep (its original name, no folder), review (its original name in "
    "the Review folder) or rename (renamed anyway); keep and review charge no credit. "
    f"Default: the server's [engine] below_confidence ({DEFAULT_BELOW_CONFIDENCE})",
    "confidenceThreshold": "0 to 1; default: the server's [engine] confidence_threshold "
    f"({DEFAULT_CONFIDENCE_THRESHOLD})",
}


class RenameFromUrlIn(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt option is a 400, not its default

    url: str = Field(description="http(s) address of the document; private addresses are refused",
                     max_length=8192)
    strategy: StrategyField = Field(DEFAULT_STRATEGY, description=OPTION_DESCRIPTIONS["strategy"])
    templateMode: TemplateModeField = Field(
        DEFAULT_TEMPLATE_MODE, description=OPTION_DESCRIPTIONS["templateMode"]
    )
    customTemplate: str | None = Field(None, description=OPTION_DESCRIPTIONS["customTemplate"],
                                       max_length=65536)
    templateId: TemplateIdField | None = Field(None, description=OPTION_DESCRIPTIONS["templateId"])
    language: LanguageField = Field(DEFAULT_LANGUAGE, description=OPTION_DESCRIPTIONS["language"])
    belowConfidence: BelowConfidenceField | None = Field(
        None, description=OPTION_DESCRIPTIONS["belowConfidence"])
    confidenceThreshold: float | None = Field(
        None, ge=0, le=1, description=OPTION_DESCRIPTIONS["confidenceThreshold"])


def multipart_schema() -> dict[str, Any]:
    """The OpenAPI request body of POST /api/v1/rename (parsed by hand, so declared by hand)."""
    return {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "additionalProperties": False,  # another field is a 400 UNKNOWN_FIELD
                    "properties": {
                        "file": {
                            "type": "string", "format": "binary",
                            "description": "the document (PDF, JPEG, PNG, TIFF, DOCX, XLSX, PPTX); "
                            "the part needs a filename and a content type",
                        },
                        "strategy": {"type": "string", "enum": list(STRATEGIES),
                                     "default": DEFAULT_STRATEGY,
                                     "description": OPTION_DESCRIPTIONS["strategy"]},
                        "templateMode": {"type": "string", "enum": list(TEMPLATE_MODES),
                                         "default": DEFAULT_TEMPLATE_MODE,
                                         "description": OPTION_DESCRIPTIONS["templateMode"]},
                        "customTemplate": {"type": "string", "maxLength": 65536,
                                           "description": OPTION_DESCRIPTIONS["customTemplate"]},
                        "templateId": {"type": "string", "enum": list(TEMPLATE_IDS),
                                       "description": OPTION_DESCRIPTIONS["templateId"]},
                        "language": {"type": "string", "enum": list(LANGUAGES),
                                     "default": DEFAULT_LANGUAGE,
                                     "description": OPTION_DESCRIPTIONS["language"]},
                        "belowConfidence": {"type": "string", "enum": list(BELOW_CONFIDENCE),
                                            "description": OPTION_DESCRIPTIONS["belowConfidence"]},
                        "confidenceThreshold": {
                            "type": "number", "minimum": 0, "maximum": 1,
                            "description": OPTION_DESCRIPTIONS["confidenceThreshold"]},
                    },
                },
                "encoding": {"file": {"contentType": "application/octet-stream"}},
            }
        },
    }
