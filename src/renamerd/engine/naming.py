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
`{date}_{issuer}_{invoice_number}`, `custom` follows the compiled customTemplate rules (a
pattern of fields and literal text, e.g. "YYYY-MM-DD - Company - Amount").
A missing field is left out, or replaced by the meaningful part of the original name (see
policy.py); a missing date or issuer in a *folder* becomes the output language's word for
"undated"/"unknown". Month names, quarters and the decimal mark of amounts follow the output
language (wording.py); document-type words stay English.

Folder paths are filled segment by segment (a "/" inside a value never adds a level) and
capped at MAX_DEPTH segments and MAX_PATH_CHARS characters (OneDrive's limit).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from renamerd.engine.policy import unread_fields
from renamerd.engine.wording import amount_text, month_name, quarter_name, word

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX0 = re.compile(r"\s+")
_RX1 = re.compile(r"\.{2,}")
_RX2 = re.compile(r"-{2,}")
_RX3 = re.compile(r"\{(\w+)\}")

MAX_BYTES = 255
#: folder paths: at most this many segments and characters (OneDrive refuses longer paths)
MAX_DEPTH = 10
MAX_PATH_CHARS = 400
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
    """Join safe segments with '/'; empty, "." and ".." segments are dropped; at most
    MAX_DEPTH segments and MAX_PATH_CHARS characters (whole segments are dropped from the end,
    a single over-long first segment is cut)."""
    kept: list[str] = []
    length = 0
    for raw in segments:
        if not raw or not raw.strip(" ."):
            continue
        segment = safe_component(raw)
        extra = len(segment) + (1 if kept else 0)
        if len(kept) >= MAX_DEPTH or length + extra > MAX_PATH_CHARS:
            if not kept:
                kept.append(safe_component(segment[:MAX_PATH_CHARS]))
            break
        kept.append(segment)
        length += extra
    return "/".join(kept)


_DATE_TOKEN = re.compile(r"Y{4}|Y{2}|M{3,4}|M{2}|D{2}")


def format_date(iso: str, fmt: str, language: str = "en") -> str:
    """Render YYYY-MM-DD with a pattern of YYYY, YY, MMMM (month name), MMM (abbreviated
    name), MM, DD (e.g. 'DD.MM.YYYY', 'MMMM YYYY'); month names in the output language."""
    y, m, d = iso.split("-")
    standalone = "DD" not in fmt

    def repl(match: re.Match[str]) -> str:
        unit = match.group(0)
        if unit == "YYYY":
            return y
        if unit == "YY":
            return y[2:]
        if unit == "MMMM":
            return month_name(int(m), language, "wide", standalone=standalone)
        if unit == "MMM":
            return month_name(int(m), language, "abbreviated", standalone=standalone)
        return m if unit == "MM" else d

    return _DATE_TOKEN.sub(repl, fmt)


def _field_text(name: str, values: Mapping[str, Any], language: str, date_format: str | None,
                for_folder: bool) -> str | None:
    date = values.get("date")
    if name in ("date", "year", "month", "quarter"):
        if not date:
            return word("undated", language) if for_folder else None
        y, m, _d = date.split("-")
        if name == "year":
            return y
        if name == "month":
            return f"{y}-{m}"
        if name == "quarter":
            return quarter_name((int(m) - 1) // 3 + 1, language)
        return format_date(date, date_format, language) if date_format else date
    value = values.get(name)
    if value is None or value == "":
        if name == "issuer" and for_folder:
            return word("unknown", language).capitalize()
        return None
    if name == "amount":
        return amount_text(str(value), language)
    return str(value)


def folder_for(strategy: str, values: Mapping[str, Any], language: str) -> str:
    """The folderPath of a (non-custom) strategy."""
    parts = [_field_text(f, values, language, None, True) or ""
             for f in STRATEGY_FOLDERS.get(strategy, ())]
    return safe_path(parts)


def render_folder_template(template: str, values: Mapping[str, Any], language: str) -> str:
    """Fill '{year}', '{month}', '{quarter}', '{issuer}', '{document_type}', '{date}' in a
    folder template, one segment at a time: the template is split on "/" first, so a value
    holding "/" ("ACME/x/y GmbH") stays one folder ("ACME-x-y GmbH"). Capped like safe_path."""
    def repl(m: re.Match[str]) -> str:
        return _field_text(m.group(1), values, language, None, True) or ""

    return safe_path([_RX3.sub(repl, segment) for segment in template.split("/")])


@dataclass(frozen=True)
class Part:
    """One element of a file-name pattern: a field (`kind` "field", `value` a field name such
    as "date", `fmt` an optional date format) or literal text (`kind` "text": a separator such
    as " - ", or words such as "Rechnung")."""

    kind: str
    value: str
    fmt: str | None = None

    @property
    def is_separator(self) -> bool:
        return self.kind == "text" and not any(ch.isalnum() for ch in self.value)


def _field_part(part: Part, values: Mapping[str, Any], language: str, inner: str
                ) -> str | None:
    """The text of a field part, or None when the field has no value."""
    text = _field_text(part.value, values, language, part.fmt, False)
    if not text:
        return None
    text = _RX0.sub(inner, text.strip().rstrip("."))
    return "".join("-" if ch in FORBIDDEN else ch for ch in text)


def render_pattern(parts: list[Part], values: Mapping[str, Any], extension: str, *,
                   case: str | None = None, language: str = "en",
                   keep: str | None = None) -> str:
    """The file name of a pattern (a list of `Part`).

    Fields without a value are left out with the separator before them; literal words are
    always written. `keep` (the meaningful part of the original name) stands in the place of
    the first field that could not be read; the other unread fields (a type "other"
    included) are then left out. Never empty: falls back to `keep`, the document type or
    'document'. Returns a safe name with the real type's extension."""
    spaced = any(p.kind == "text" and p.is_separator and " " in p.value for p in parts)
    inner = " " if spaced else "-"
    out: list[tuple[bool, str]] = []  # (is separator, text)
    kept = False
    for part in parts:
        if part.kind == "text":
            if part.is_separator:
                if out and not out[-1][0]:
                    out.append((True, part.value))
            else:
                out.append((False, part.value))
            continue
        if keep is not None and unread_fields([part.value], values):
            if not kept:
                out.append((False, keep))
                kept = True
            continue
        text = _field_part(part, values, language, inner)
        if text:
            out.append((False, text))
    while out and out[-1][0]:
        out.pop()
    stem = "".join(text for _sep, text in out)
    if not stem.strip():
        stem = keep or str(values.get("document_type") or "document")
    if case == "lower":
        stem = stem.lower()
    elif case == "upper":
        stem = stem.upper()
    ext = f".{extension.lstrip('.')}" if extension else ""
    return safe_component(stem, keep_suffix=ext.lower())


def render_name(fields: tuple[str, ...] | list[str], values: Mapping[str, Any], extension: str,
                *, separator: str = "_", case: str | None = None,
                date_format: str | None = None, language: str = "en",
                keep: str | None = None) -> str:
    """The file name: the listed fields that have values, joined by `separator`, with the
    real type's extension. Blanks inside a field become '-' (or stay blanks if the separator
    is one). `keep`: see render_pattern. Never empty: falls back to the document type or
    'document'."""
    parts: list[Part] = []
    for i, name in enumerate(fields):
        if i and separator:
            parts.append(Part("text", separator))
        parts.append(Part("field", name, date_format if name == "date" else None))
    return render_pattern(parts, values, extension, case=case, language=language, keep=keep)


def auto_fields(document_type: str) -> tuple[str, ...]:
    """The auto template's fields for a document type."""
    return AUTO_PATTERNS.get(document_type, AUTO_DEFAULT)
