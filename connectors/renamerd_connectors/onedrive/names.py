"""The names OneDrive refuses, and how to make one acceptable.

OneDrive (and SharePoint) refuse " * : < > ? / \\ | in names, leading or trailing spaces, names
over 255 characters, and a few reserved names (CON, PRN, AUX, NUL, COM0-9, LPT0-9, .lock,
desktop.ini, ~$*, anything with _vti_). `move` refuses such a name before any call.
"""

from __future__ import annotations

INVALID_CHARS = frozenset('"*:<>?/\\|')
RESERVED_NAMES = frozenset({".lock", "con", "prn", "aux", "nul", "desktop.ini"}
                           | {f"{p}{n}" for p in ("com", "lpt") for n in range(10)})


def name_problem(name: str) -> str | None:
    """Why OneDrive would refuse `name` (a reason), or None when it is acceptable."""
    if not name or name != name.strip():
        return "empty, or leading/trailing spaces"
    if any(c in INVALID_CHARS for c in name):
        return 'contains one of " * : < > ? / \\ |'
    low = name.lower()
    if low in RESERVED_NAMES or low.startswith("~$") or "_vti_" in low:
        return "a reserved name"
    if len(name) > 255:
        return "longer than 255 characters"
    return None


def clean_name(name: str) -> str:
    """`name` made acceptable to OneDrive: forbidden characters become "_", spaces trimmed,
    reserved names prefixed with "_". Pure; safe to repeat."""
    out = "".join("_" if c in INVALID_CHARS or ord(c) < 32 else c for c in name).strip()
    low = out.lower()
    if not out or low in RESERVED_NAMES or low.startswith("~$"):
        out = "_" + out
    out = out.replace("_vti_", "_vti-")
    if len(out) > 255:
        stem, dot, ext = out.rpartition(".")
        out = (stem[: 255 - len(ext) - 1] + "." + ext) if dot and len(ext) < 16 else out[:255]
    return out
