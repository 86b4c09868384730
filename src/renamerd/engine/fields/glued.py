"""Labels a text layer split from, or ran into, their values.

* Run together: a PDF that places a label and its value as two pieces of text without a blank
  between them reads back as one word ("Bestelldatum08 Oktober 2025",
  "RechnungsnummerES51NKNMSAEUS", "Gesamtpreis891,66 €"). A known label (a date's, a number's
  or a total's, in any lexicon language) directly followed by a digit or by a code in capitals
  gets its blank back. A label followed by lowercase letters is a longer word, and one word of
  capitals after a label's letters ("TotalEnergies") has only one capital: both are left as
  they are.
  A value running into the next label ("Rechnung #: 67389368Datum: 31/08/2022") is cut
  before the label, when that starts with a capital.
* Split: a slash-joined label broken over two lines ("Rechnungsdatum" above
  "/Lieferdatum 29 Dezember 2025") is one line again.
* Shared: one label for a number and its date ("Rechnungsnr./-datum 0000000002 / 27.11.2025",
  "Invoice No./Date 118 / 14.08.2026") is read as two lines, a label and value each.
* Doubled: bold type drawn as each letter twice reads back "EElleeccttrriicc KKiiwwii" (three
  times: "IIInnnvvvoooiiiccceee"); each word whose characters all come in pairs (threes) is
  read once, on a line holding such a word.
* Spaced out: a page drawn one letter at a time reads back with a blank between letters and
  two between words ("I n v o i c e  n u m b e r"); such a page gets its words back.
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import all_tables, alternation, fold, written_unspaced

#: the label kinds whose values are looked for after them
KINDS = ("issue_date", "date", "due_date", "delivery_date", "order_date", "invoice_number",
         "other_number", "order_number", "total")
#: the quick tests: three lowercase letters running into a digit or into two capitals; a
#: digit running into a capitalised word
_RUN_IN = re.compile(r"[^\W\d_A-Z]{3}(?:\d|[A-Z]{2})")
_DIGIT_LABEL = re.compile(r"\d[^\W\d_a-z][^\W\d_A-Z]")
#: the quick test: a word in capitals running into a capitalised one ("BETALINGDatum")
_CAPS_LABEL = re.compile(r"[A-Z]{3}[a-z]{2}")


@functools.cache
def _phrases() -> frozenset[str]:
    # (labels in scripts without blanks touch their values by right)
    return frozenset(p for table in all_tables().values() for kind in KINDS
                     for p in table["labels"].get(kind, ()) if p and not written_unspaced(p))


@functools.cache
def _labels() -> re.Pattern[str]:
    # (followed by a letter or a digit: the value it ran into; the case is checked on the text)
    return re.compile(alternation(set(_phrases()), then=r"(?=[^\W_])"))


@functools.cache
def _labels_after_digits() -> re.Pattern[str]:
    """The same labels, right after a digit (where a value ran into them) and ending a word."""
    return re.compile(alternation(set(_phrases()), before=r"(?<=\d)"))


@functools.cache
def _labels_after_letters() -> re.Pattern[str]:
    """The same labels, right after a letter and before no letter (see unglued: only where a
    word in capitals ran into the label's capital)."""
    return re.compile(alternation(set(_phrases()), before=r"(?<=[^\W\d_])",
                                  then=r"(?![^\W\d_])"))


def _value_starts(text: str, at: int) -> bool:
    """A value begins at `at`: a digit, or two capitals (a code)."""
    head = text[at:at + 2]
    return head[:1].isdigit() or (len(head) == 2 and head.isalpha() and head.isupper())


#: a capitalised word written twice without a blank ("RechnungRechnung": a title drawn twice)
_TWICE = re.compile(r"([A-Z][^\W\d_A-Z]{3,})\1(?![^\W\d_])")


#: three letters each written twice running, or two three times ("EElleeccttrriicc",
#: "IIInnnvvv": bold type drawn as each letter twice or three times, which a text layer reads
#: back doubled or tripled)
_DOUBLED = re.compile(r"([^\W\d_])\1([^\W\d_])\2([^\W\d_])\3|([^\W\d_])\4\4([^\W\d_])\5\5")
#: a word of four characters or more
_WORD = re.compile(r"\S{4,}")


def _undoubled(match: re.Match[str]) -> str:
    word = match.group(0)
    for times in (3, 2):  # (bold type is drawn two or three times over)
        once = word[::times]
        if len(word) % times == 0 and all(word[i::times] == once for i in range(1, times)):
            # (digits written twice may be a number: "1100" stays)
            return once if times == 3 or not any(map(str.isdigit, word)) else word
    return word


def unglued(row: str) -> str:
    """`row` with a blank between each known label and the value it ran into, between a
    value and the label it ran into, and between a word and itself written again; a word of
    bold type read with each character doubled ("KKiiwwii", "##::") read once. Pure."""
    if _DOUBLED.search(row):
        row = _WORD.sub(_undoubled, row)
    if _TWICE.search(row):
        row = _TWICE.sub(r"\1 \1", row)
    if _CAPS_LABEL.search(row):  # "BETALINGDatum22/08/2025": capitals ran into a label
        row = _cut(row, [m.start() for m in _labels_after_letters().finditer(fold(row))
                         if row[m.start() - 1:m.start() + 1].isupper()
                         and row[m.start() + 1].islower()])
    run_in, after_digit = _RUN_IN.search(row), _DIGIT_LABEL.search(row)
    if not run_in and not after_digit:
        return row
    folded = fold(row)
    # (a label of two letters runs into a digit only: "li" of "LIMITED" is no label)
    cuts = [m.end() for m in _labels().finditer(folded) if _value_starts(row, m.end())
            and (m.end() - m.start() > 2 or row[m.end()].isdigit())] if run_in else []
    if after_digit:
        cuts += [m.start() for m in _labels_after_digits().finditer(folded)
                 if row[m.start()].isupper()]
    return _cut(row, cuts)


def _cut(row: str, cuts: list[int]) -> str:
    """`row` with a blank put in at each of `cuts`."""
    for cut in sorted(set(cuts), reverse=True):
        row = row[:cut] + " " + row[cut:]
    return row


#: a blank between letters, two between words: "I n v o i c e  n u m b e r"
_SPACED_WORD = re.compile(r"(?<!\S)\S(?: \S)+(?!\S)")


def spaced_out(page: str) -> str:
    """`page` with its words back when it reads one letter at a time (most of its first
    thousand blank-separated pieces are single characters); else `page` as it is. Pure."""
    pieces = page[:4000].split()
    if len(pieces) < 30 or sum(len(p) == 1 for p in pieces) < 0.7 * len(pieces):
        return page
    return "\n".join(_SPACED_WORD.sub(lambda m: m.group(0).replace(" ", ""), line)
                     for line in page.split("\n"))


#: a word run into the next one, as a text layer without blanks writes them: "InvoiceNumber",
#: "ScottFPSLimited", "InvoiceNo.InvoiceDate"
_CAMEL = re.compile(r"[^\W\d_A-Z][A-Z]")
_CAMEL_JOINT = re.compile(r"(?<=[^\W\d_A-Z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][^\W\d_A-Z]{2})"
                          r"|(?<=[^\W\d_A-Z]\.)(?=[A-Z])")
#: how many of a page's pieces must be such runs (and at least how many) to part them all
_CAMEL_SHARE = 0.15
_CAMEL_MIN = 10


def camel_parted(page: str) -> str:
    """`page` with its words parted where a text layer dropped every blank between them (many
    of its first pieces are words run together: "AnnualExtinguisherMaintenance"); else `page`
    as it is (a brand written so, "TotalEnergies", on a page with blanks stays). Pure."""
    pieces = page[:4000].split()
    runs = sum(1 for p in pieces if len(p) >= 8 and _CAMEL.search(p))
    if runs < _CAMEL_MIN or runs < _CAMEL_SHARE * len(pieces):
        return page
    return _CAMEL_JOINT.sub(" ", page)


def rejoined(rows: list[str]) -> list[str]:
    """`rows` (stripped, non-empty) with a row that opens with a slash and a word joined to the
    row above it when that ends in a letter ("Rechnungsdatum" + "/Lieferdatum ..."), a row
    opening with a colon joined to a short label above it ("No" + ": JKK01202512250148", as
    OCR reads the colon's column of a slip), a row opening with "#" joined to one word above
    it ("INVOICE" + "# DATE": a heading cell too narrow for its label), and a row whose one
    label names a number and its date parted in two (see `_NUMBER_AND_DATE`). Pure."""
    out: list[str] = []
    for row in rows:
        if (out and len(row) > 1 and row[0] == "/" and row[1].isalpha()
                and out[-1][-1:].isalpha()):
            out[-1] += row
        elif (out and row[0] == ":" and len(out[-1]) <= 20 and ":" not in out[-1]
              and out[-1][-1:].isalpha()):
            out[-1] += " " + row  # a label's colon and value read as the next line ("No")
        elif row[0] == "#" and out and out[-1].isalpha() and len(out[-1]) <= 20:
            out[-1] += " " + row  # a narrow heading cell wrapped: "INVOICE" / "# DATE"
        elif "/" in row and (m := _NUMBER_AND_DATE.search(row)) is not None:
            stem = m.group("stem")
            out.append(f"{row[:m.start()]}{stem}{m.group('no')} {m.group('number')}")
            out.append(f"{stem}{m.group('date_word')} {m.group('date')}{row[m.end():]}")
        else:
            out.append(row)
    return out


#: one label for a number and its date, then both values ("Rechnungsnr./-datum 0000000002 /
#: 27.11.2025", "Invoice No./Date: 118 / 14.08.2026")
_NUMBER_AND_DATE = re.compile(
    r"(?<!\w)(?P<stem>[^\W\d_]{3,}\s?)(?P<no>nr\.?|no\.?|nummer|number)\s?/\s?-?"
    r"(?P<date_word>datum|date)\s*:?\s*(?P<number>[\w.-]*\d[\w.-]*)\s?/\s?"
    r"(?P<date>\d{1,2}[./-]\d{1,2}[./-]\d{2,4})(?!\d)", re.I)
