"""Labels a text layer split from, or ran into, their values.

* Run together: a PDF that places a label and its value as two pieces of text without a blank
  between them reads back as one word ("Bestelldatum08 Oktober 2025",
  "RechnungsnummerES51NKNMSAEUS", "Gesamtpreis891,66 €"). A known label (a date's, a number's
  or a total's, in any lexicon language) directly followed by a digit or by a code in capitals
  gets its blank back. A label followed by lowercase letters is a longer word, and one word of
  capitals after a label's letters ("TotalEnergies") has only one capital: both are left as
  they are.
* Split: a slash-joined label broken over two lines ("Rechnungsdatum" above
  "/Lieferdatum 29 Dezember 2025") is one line again.
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import all_tables, alternation, fold, written_unspaced

#: the label kinds whose values are looked for after them
KINDS = ("issue_date", "date", "due_date", "delivery_date", "order_date", "invoice_number",
         "other_number", "order_number", "total")
#: the quick test: three lowercase letters running into a digit or into two capitals
_RUN_IN = re.compile(r"[^\W\d_A-Z]{3}(?:\d|[A-Z]{2})")


@functools.cache
def _labels() -> re.Pattern[str]:
    phrases = {p for table in all_tables().values() for kind in KINDS
               for p in table["labels"].get(kind, ()) if p and not written_unspaced(p)}
    # (followed by a letter or a digit: the value it ran into; the case is checked on the text;
    # labels in scripts without blanks touch their values by right)
    return re.compile(alternation(phrases, then=r"(?=[^\W_])"))


def _value_starts(text: str, at: int) -> bool:
    """A value begins at `at`: a digit, or two capitals (a code)."""
    head = text[at:at + 2]
    return head[:1].isdigit() or (len(head) == 2 and head.isalpha() and head.isupper())


def unglued(row: str) -> str:
    """`row` with a blank between each known label and the value it ran into. Pure."""
    if not _RUN_IN.search(row):
        return row
    cuts = [m.end() for m in _labels().finditer(fold(row)) if _value_starts(row, m.end())]
    for cut in reversed(cuts):
        row = row[:cut] + " " + row[cut:]
    return row


def rejoined(rows: list[str]) -> list[str]:
    """`rows` (stripped, non-empty) with a row that opens with a slash and a word joined to the
    row above it when that ends in a letter ("Rechnungsdatum" + "/Lieferdatum ..."). Pure."""
    out: list[str] = []
    for row in rows:
        if (out and len(row) > 1 and row[0] == "/" and row[1].isalpha()
                and out[-1][-1:].isalpha()):
            out[-1] += row
        else:
            out.append(row)
    return out
