"""The text of a document as the field extractors see it: lines with offsets, folded once."""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field

from renamerd.engine.fields.columns import pair_header_rows, pair_label_columns
from renamerd.engine.fields.glued import camel_parted, rejoined, spaced_out, unglued
from renamerd.engine.lexicon import fold

_SPACES = re.compile(r"[ \t\u00a0\u2009\u202f]+")
#: what text layers put inside words that no reader sees: a soft hyphen, zero-width spaces, a
#: word joiner, a byte-order mark (not the zero-width (non-)joiners, which Persian and Indic
#: scripts need), typographic ligatures ("ﬁ", "ﬀ") and the hyphens that are not "-" (the
#: Unicode hyphen and the non-breaking one: "RCPT\u20116280974"), and a NUL: a dash whose
#: glyph a font maps to nothing (Stripe's invoices: "88IB6AXP\x000003", "May 8\x00Jun 8")
_HIDDEN = re.compile("[\u00ad\u200b\u2060\ufeff\ufb00-\ufb06\u2010\u2011\x00]")
_WRITTEN_AS = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
_WRITTEN_AS |= {"\u2010": "-", "\u2011": "-", "\x00": "-"}


def plain_text(page: str) -> str:
    """`page` as a reader sees it: composed (NFC: "é" one character, as every pattern expects),
    ligatures spelled out, hyphens written "-", invisible characters inside words removed.
    Pure."""
    if _HIDDEN.search(page):
        page = _HIDDEN.sub(lambda m: _WRITTEN_AS.get(m.group(0), ""), page)
    if not unicodedata.is_normalized("NFC", page):
        page = unicodedata.normalize("NFC", page)
    return page


@dataclass(frozen=True)
class Line:
    index: int
    start: int  # offset of the line in Doc.text
    text: str
    folded: str
    page: int  # 1-based


@dataclass
class Doc:
    """Pages joined with newlines; `folded` has the same offsets as `text`."""

    text: str
    folded: str
    lines: list[Line]
    pages: int
    _starts: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def from_pages(cls, pages: list[str]) -> Doc:
        """Build from page texts (blank runs collapsed, empty lines dropped). Pure."""
        parts: list[str] = []
        page_of: list[int] = []
        for page_no, page in enumerate(pages, start=1):
            # (blank runs never hold a line break)
            page = _SPACES.sub(" ", camel_parted(spaced_out(plain_text(page))))
            rows = [unglued(clean)
                    for raw in page.replace("\r", "\n").replace("\f", "\n").split("\n")
                    if (clean := raw.strip())]
            rows = rejoined(rows)  # a slash-joined label broken over two lines
            rows = pair_label_columns(rows)  # labels and values drawn as two columns
            rows = pair_header_rows(rows)  # a row of labels over a row of values
            parts.extend(rows)
            page_of.extend([page_no] * len(rows))
        text = "\n".join(parts)
        folded = fold(text)  # once: folding keeps offsets, so a line's slice is its fold
        lines: list[Line] = []
        offset = 0
        for index, (clean, page_no) in enumerate(zip(parts, page_of, strict=True)):
            end = offset + len(clean)
            lines.append(Line(index, offset, clean, folded[offset:end], page_no))
            offset = end + 1
        doc = cls(text=text, folded=folded, lines=lines, pages=len(pages))
        doc._starts = [ln.start for ln in lines]
        return doc

    def line_at(self, offset: int) -> Line:
        """The line holding `offset` (an offset into `text`)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        return self.lines[max(i, 0)]

    def relative_position(self, line: Line) -> float:
        """0.0 for the first line, 1.0 for the last."""
        return line.index / max(len(self.lines) - 1, 1)
