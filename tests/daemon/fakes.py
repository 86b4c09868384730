"""Test doubles for the daemon tests: a text engine (reads "key=value" lines, no PDF) and a
controllable clock. The real engine is used by the end-to-end tests."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from renamerd.engine.types import (
    DocumentTooLarge,
    RenameOptions,
    RenameResult,
    UnreadableDocument,
    UnsupportedDocument,
)
from renamerd.storage.models import utcnow


def doc(date: str, issuer: str, kind: str = "invoice") -> bytes:
    """A fake document the fake engine understands."""
    return f"FAKEDOC\ndate={date}\nissuer={issuer}\ntype={kind}\n".encode()


def fake_engine(data: bytes, filename: str, options: RenameOptions, config: Any) -> RenameResult:
    """Name `data` from its key=value lines: folder "<year>/<type>", "<date>_<issuer>.pdf".

    b"BIN..." is unsupported, b"BROKEN" unreadable, b"HUGE" too large, b"BOOM" raises a plain
    RuntimeError (a transient engine failure).
    """
    if data.startswith(b"BIN"):
        raise UnsupportedDocument("not a document format")
    if data.startswith(b"BROKEN"):
        raise UnreadableDocument("the file is damaged")
    if data.startswith(b"HUGE"):
        raise DocumentTooLarge("too many pages")
    if data.startswith(b"BOOM"):
        raise RuntimeError("engine exploded")
    fields = dict(
        line.split("=", 1) for line in data.decode().splitlines() if "=" in line
    )
    date, issuer, kind = fields["date"], fields["issuer"], fields.get("type", "other")
    return RenameResult(
        original_filename=filename, suggested_filename=f"{date}_{issuer}.pdf",
        extracted_info={"date": date, "issuer": issuer, "document_type": kind},
        folder_path=f"{date[:4]}/{kind}", organization_strategy=options.strategy,
        template_used=options.template_mode, confidence=0.9,
    )


class Clock:
    """now() that tests move forward by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t = start or utcnow()

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)
