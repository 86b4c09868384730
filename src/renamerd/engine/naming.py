"""From validated fields to a folder path and a file name that are safe on every target.

Strategies -> folderPath (segments joined by "/"):

=================  ==============================  =====================
strategy           folderPath                      example
=================  ==============================  =====================
root               "" (no folder)
by_date            YYYY                            2024
by_issuer          issuer                          Deutsche Telekom AG
by_type            document type (English)         invoice
by_date_issuer     YYYY/issuer                     2024/Deutsche Telekom AG
by_date_type       YYYY/type                       2024/invoice
by_issuer_type     issuer/type                     Deutsche Telekom AG/invoice
by_all             YYYY/issuer/type                2024/Deutsche Telekom AG/invoice
follow_custom_...  from the customTemplate rules   Bills/Phone
=================  ==============================  =====================

Template modes -> file name (fields joined by "_", blanks inside a field become "-"):
`auto` picks a pattern per document type (see AUTO_PATTERNS), `predefined` + `standard` is
`{date}_{issuer}_{invoice_number}`, `custom` follows the compiled customTemplate rules.
A missing field is left out; a missing date or issuer in a *folder* becomes the output
language's word for "undated"/"unknown".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from renamerd.engine.lexicon import output_words

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX0 = re.compile(r"\s+")
_RX1 = re.compile(r"\.{2,}")
_RX2 = re.compile(r"-{2,}")
_RX3 = re.compile(r"\{(\w+)\}")

MAX_BYTES = 255
#: characters refused by Windows/OneDrive/SharePoint, Dropbox, Drive and POSIX, replaced by "-"
FORBIDDEN = set('<>:"/\\|?*') | {"\x00"}
RESERVED = {"con", "prn", "aux", "nul", "clock$", "conin$", "conout$", ".lock", "desktop.ini",
            "_vti_", "~$"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)} | {
            "com¹", "com²", "com³", "lpt¹", "lpt²", "lpt³"}

AUTO_PATTERNS: dict[str, tuple[str, ...]] = {
    "invoice": ("date", "issuer", "document_type", "invoice_number"),
    "credit_note": ("date", "issuer", "document_type", "invoice_number"),
    "reminder": ("date", "issuer", "document_type", "invoice_number"),
    "quote": ("date", "issuer", "document_type", "invoice_number"),
    "order_confirmation": ("date", "issuer", "document_type", "invoice_number"),
    "delivery_note": ("date", "issuer", "document_type", "invoice_number"),
    "receipt": ("date", "issuer", "document_type"),
    "bank_statement": ("month", "issuer", "document_type"),
    "payslip": ("month", "issuer", "document_type"),
}
AUTO_DEFAULT: tuple[str, ...] = ("date", "issuer", "document_type")
STANDARD_PATTERN: tuple[str, ...] = ("date", "issuer", "invoice_number")

STRATEGY_FOLDERS: dict[str, tuple[str, ...]] = {
    "root": (), "by_date": ("year",), "by_issuer": ("issuer",), "by_type": ("document_type",),
    "by_date_issuer": ("year", "issuer"), "by_date_type": ("year", "document_type"),
    "by_issuer_type": ("issuer", "document_type"), "by_all": ("year", "issuer", "document_type"),
    "follow_custom_prompt": (),
}


def word(kind: str, language: str) -> str:
    """'unknown' / 'undated' in the output language (English for auto/source/unknown codes)."""
    table = output_words()[kind]
    return table.get(language, table["en"])


def safe_component(text: str, *, max_bytes: int = MAX_BYTES, keep_suffix: str = "",
                   fallback: str = "document") -> str:
    """One safe path segment: NFC, no control/format characters, no separators, no forbidden
    characters, not reserved, no leading/trailing dots or blanks, within `max_bytes` UTF-8
    bytes including `keep_suffix` (e.g. ".pdf"), cut at a character boundary.

    Never returns an empty string (uses `fallback`). Pure; idempotent.
    """
    text = unicodedata.normalize("NFC", text)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in FORBIDDEN:
            out.append("-")
        elif cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(" " if ch in "\t\n\r" else "")
        elif cat == "Zs":
            out.append(" ")
        else:
            out.append(ch)
    text = _RX0.sub(" ", "".join(out))
    text = _RX1.sub(".", text)
    text = _RX2.sub("-", text).strip(" .")
    if not text:
        text = fallback
    budget = max_bytes - len(keep_suffix.encode("utf-8"))
    encoded = text.encode("utf-8")
    if len(encoded) > budget:
        text = encoded[:budget].decode("utf-8", errors="ignore")
        # do not leave a lone combining mark or a trailing dot/blank after the cut
        while text and unicodedata.combining(text[-1]):
            text = text[:-1]
        text = text.rstrip(" .")
    text = re.sub("_vti_", "-vti-", text, flags=re.I)  # OneDrive/SharePoint refuse it anywhere
    stem = text.split(".")[0].lower()
    if stem in RESERVED or text.lower() in RESERVED or text.startswith("~$"):
        text = f"_{text}"
    return text + keep_suffix


def safe_path(segments: list[str]) -> str:
    """Join safe segments with '/'; empty, "." and ".." segments are dropped."""
    return "/".join(safe_component(s) for s in segments if s and s.strip(" ."))


def _field_text(name: str, values: Mapping[str, Any], language: str, date_format: str | None,
                for_folder: bool) -> str | None:
    date = values.get("date")
    if name in ("date", "year", "month"):
        if not date:
            return word("undated", language) if for_folder else None
        y, m, d = date.split("-")
        if name == "year":
            return y
        if name == "month":
            return f"{y}-{m}"
        return format_date(date, date_format) if date_format else date
    value = values.get(name)
    if value is None or value == "":
        if name == "issuer" and for_folder:
            return word("unknown", language).capitalize()
        return None
    return str(value)


def format_date(iso: str, fmt: str) -> str:
    """Render YYYY-MM-DD with a pattern using YYYY, YY, MM, DD (e.g. 'DD.MM.YYYY')."""
    y, m, d = iso.split("-")
    return (fmt.replace("YYYY", y).replace("YY", y[2:]).replace("MM", m).replace("DD", d))


def folder_for(strategy: str, values: Mapping[str, Any], language: str) -> str:
    """The folderPath of a (non-custom) strategy."""
    parts = [_field_text(f, values, language, None, True) or ""
             for f in STRATEGY_FOLDERS.get(strategy, ())]
    return safe_path(parts)


def render_folder_template(template: str, values: Mapping[str, Any], language: str) -> str:
    """Fill '{year}', '{month}', '{issuer}', '{document_type}', '{date}' in a folder template."""
    def repl(m: re.Match[str]) -> str:
        return _field_text(m.group(1), values, language, None, True) or ""

    filled = _RX3.sub(repl, template)
    return safe_path(filled.split("/"))


def render_name(fields: tuple[str, ...] | list[str], values: Mapping[str, Any], extension: str,
                *, separator: str = "_", case: str | None = None,
                date_format: str | None = None, language: str = "en") -> str:
    """The file name: the listed fields that have values, joined by `separator`, with the
    real type's extension. Blanks inside a field become '-' (or the separator if that is a
    blank). Never empty: falls back to the document type or 'document'."""
    inner = "-" if separator != "-" and separator != " " else separator
    if separator == " ":
        inner = " "
    parts: list[str] = []
    for name in fields:
        text = _field_text(name, values, language, date_format, False)
        if not text:
            continue
        text = _RX0.sub(inner, text.strip().rstrip("."))
        text = "".join("-" if ch in FORBIDDEN else ch for ch in text)
        parts.append(text)
    stem = separator.join(parts) or str(values.get("document_type") or "document")
    if case == "lower":
        stem = stem.lower()
    elif case == "upper":
        stem = stem.upper()
    ext = f".{extension.lstrip('.')}" if extension else ""
    return safe_component(stem, keep_suffix=ext.lower())


def auto_fields(document_type: str) -> tuple[str, ...]:
    """The auto template's fields for a document type."""
    return AUTO_PATTERNS.get(document_type, AUTO_DEFAULT)
