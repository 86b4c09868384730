"""Text from documents and uploads made harmless before it is echoed or used in a path.

`clean_text` is applied to every `extractedInfo` value; `clean_filename` to the original file
name the API echoes (`originalFilename`). Both remove control and format characters (bidi
overrides such as U+202E that make "gpj.exe" read as "exe.jpg", zero-width characters) and
replace path separators ("/" and "\\") with "-", so no value can add a folder level or hide
what it says. Pure and idempotent.
"""

from __future__ import annotations

import re
import unicodedata

#: character categories removed: control, format (bidi overrides, zero-width), surrogates,
#: private use, unassigned; line and paragraph separators become blanks
_DROP = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_BLANK = frozenset({"Zl", "Zp", "Zs"})
_SPACES = re.compile(r"\s+")
MAX_FILENAME_BYTES = 255


def clean_text(text: str) -> str:
    """`text` in NFC without control or format characters, "/" and "\\" replaced by "-",
    blank runs collapsed to one space, stripped. Pure; clean_text(clean_text(x)) == clean_text(x)."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in "/\\":
            out.append("-")
            continue
        category = unicodedata.category(ch)
        if ch in "\t\n\r" or category in _BLANK:
            out.append(" ")
        elif category not in _DROP:
            out.append(ch)
    return _SPACES.sub(" ", "".join(out)).strip()


def clean_filename(name: str, max_bytes: int = MAX_FILENAME_BYTES) -> str:
    """An uploaded file name cleaned like `clean_text`, cut to `max_bytes` UTF-8 bytes at a
    character boundary keeping its extension (a 10,000-character name is echoed as 255 bytes).
    May return "" for a name made only of removed characters. Pure; idempotent."""
    clean = clean_text(name)
    encoded = clean.encode("utf-8")
    if len(encoded) <= max_bytes:
        return clean
    stem, dot, ext = clean.rpartition(".")
    suffix = f".{ext}" if dot and stem and 0 < len(ext) <= 10 else ""
    budget = max_bytes - len(suffix.encode("utf-8"))
    head = (clean[: -len(suffix)] if suffix else clean).encode("utf-8")[:budget]
    return head.decode("utf-8", errors="ignore").rstrip() + suffix


def clean_values(values: dict[str, object]) -> dict[str, object]:
    """`extractedInfo` with every string value cleaned; values that end empty are dropped."""
    out: dict[str, object] = {}
    for key, value in values.items():
        if isinstance(value, str):
            value = clean_text(value)
            if not value:
                continue
        out[key] = value
    return out
