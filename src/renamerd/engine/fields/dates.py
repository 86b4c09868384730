"""The document's own date: every date in the text, scored by the label before it.

Issue-date labels ("invoice date", "Rechnungsdatum", "data wystawienia"...) weigh most, a bare
"date" label less, due/delivery/birth/period labels count against a date. Day/month order for
numeric dates comes from unambiguous dates in the same document, else from the language.
Never invents a date: no candidate, no date. Numeric dates OCR garbled are put right first
(date_repair.py).
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import re
from collections import deque
from dataclasses import dataclass

from renamerd.engine.fields.date_labels import label_pattern as _label_pattern
from renamerd.engine.fields.date_labels import month_table as _month_table
from renamerd.engine.fields.date_repair import with_ocr_digits
from renamerd.engine.fields.doctype import type_pattern
from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.numbers import invoice_number_label_at_end
from renamerd.engine.lexicon import alternation, common, fold

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX0 = re.compile(r"[^\W\d_]+")
_RX1 = re.compile(r"\d")
_RX2 = re.compile(r"[ \t]+")
_RX3 = re.compile(r"[-–]\s*$")

MIN_YEAR = 1980
#: what a label of each kind (fields/date_labels.KINDS, in its order) gives the date after it
LABEL_WEIGHTS = {
    "issue_date": 6.0, "date": 2.5, "due_date": -5.0, "delivery_date": -4.0,
    "birth_date": -8.0, "period": -3.0, "order_date": -3.0,
}
#: an order's date is the document's date when no other date is labelled as the issue date
#: or the date (an order's page, a web shop's receipt); beside them it is another document's
ORDER_AS_ISSUE = 2.5
#: what a browser's print header or footer costs a date: the time the page was printed
PRINT_STAMP = 4.0
#: the time after a date that opens a browser's print header ("7/30/26, 11:02 AM Medium")
_STAMP_TIME = re.compile(r",\s*\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?:\s|$)")
_GAP = re.compile(r"^[\s:.#\-|/()=]*$")
_RANGE_AFTER = re.compile(
    r"^\s*(?:-|–|to|till|until|bis|au|al|a|do|til|till|tot|ile|–|~)\s*\d", re.IGNORECASE
)


@dataclass(frozen=True)
class DateCandidate:
    value: dt.date
    start: int
    end: int
    line: Line
    raw: str
    ambiguous: bool  # numeric with day and month both <= 12
    score: float = 0.0
    label: str = ""
    label_kind: str = ""


@functools.cache
def _months() -> str:
    # a month name may touch the year ("10 Mar2018" in OCR text), not another letter
    # ... nor follow a digit ("15أغسطس 2023" as a text layer may join them)
    return alternation(set(_month_table()), exact=True).replace(
        r"(?!\w)", r"(?![^\W\d_])").replace(r"(?<!\w)", r"(?<![^\W\d_])")


@functools.cache
def month_after_colon() -> re.Pattern[str]:
    """A month name and a day after a colon, in folded text ("order placed: august 3"): a
    label and its date."""
    return re.compile(rf":\s*(?:{_months()})\.?\s*\d")


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    months = _months()
    numeric = re.compile(
        # (after a word's dot or comma too: a till's "Dat.31.08.2015", OCR's "Wien,11.08.2026"
        # with its blank dropped; not a number's "1.31.08" or "1,11.08")
        r"(?:(?<![\w,/.-])|(?<=[^\W\d_][.,]))(\d{1,4})[ ]?([./-])[ ]?(\d{1,2})[ ]?\2[ ]?"
        # the year, or the year with OCR's dropped space before a time ("22/12/201714:03")
        # (a two-digit year so only when the four digits are no year: "01/03/1819:14")
        r"(\d{4}(?=\d{1,2}:\d{2}(?!\d))|(?!19|20)\d{2}(?=\d{2}:\d{2}(?!\d))"
        r"|(?:\d{4}|20[0-9oObBsSlI]{2}|\d{2})(?![\d]))(?!\s*[ap]\.?m\b)"
    )
    # (a day ending its line after a joining word, its month and year opening the next: a
    # title broken in a narrow cell, "Fattura n. 12/2026 del 2" / "marzo 2026")
    broken = "|".join(f"(?<= {w} \\d)|(?<= {w} \\d\\d)"
                      for w in ("del", "du", "vom", "of", "de", "le", "dne", "am"))
    dmy = re.compile(
        r"(?<![\w])(\d{1,2})(?:st|nd|rd|th|er|e|o)?\.?"
        rf"(?:[ \t\-/]*|(?:{broken})\n)"
        r"(?:de[ \t]+|of[ \t]+)?"
        rf"({months})\.?[ \t\-/,]*(?:de[ \t]+)?'?"
        r"(\d{4}(?=\d{1,2}:\d{2}(?!\d))|(?:\d{4}|\d{2})(?!\w))"  # ("12 Mar 201818:19")
    )
    mdy = re.compile(
        # ("August 3, 2014", "August 3 , 2014" as a text layer may space it, "Aug 3,2014",
        # a restaurant till's "Dec27'16")
        rf"(?<![\w])({months})\.?[ \t\-]*(\d{{1,2}})(?:st|nd|rd|th)?"
        r"(?:[ \t]*,[ \t\-]*|[ \t\-]+|[ \t]*')(\d{4}|(?<=')\d{2})(?!\w)"
    )
    return numeric, dmy, mdy


#: OCR often drops the first separator: "1202/2018" for 12/02/2018
_FUSED = re.compile(r"(?<![\w.,/-])(\d{2})(\d{2})([./-])(\d{4})(?![\d])")

#: a date printed (or read by OCR) without separators: "27032018", "20180327"; used only in a
#: document where no other date is found
_COMPACT = re.compile(r"(?<![\w.,/:-])(\d{8})(?![\w.,/:-])")

#: Chinese, Japanese and Korean dates: "2024年5月3日", "2024년 5월 3일", "2024. 5. 3." (full-width
#: digits are folded to ASCII before), and Japanese era years: "令和6年5月3日" (Reiwa 6 = 2024)
_EAST_ASIAN = re.compile(r"(?<!\d)(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일号號]?")
_KOREAN_DOTS = re.compile(r"(?<![\d.])(\d{4})\.\s+(\d{1,2})\.\s+(\d{1,2})\.?(?!\d)")
_ERA = re.compile(r"(令和|平成|昭和)\s*(\d{1,2}|元)\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
#: the year before an era's first year (Reiwa 1 = 2019)
_ERA_BASE = {"令和": 2018, "平成": 1988, "昭和": 1925}


def _east_asian_dates(doc: Doc, text: str) -> list[DateCandidate]:
    """Dates written with 年月日 / 년월일 markers, era years, or Korean "2024. 5. 3."."""
    if text.isascii():
        return []
    out: list[DateCandidate] = []
    found: list[tuple[re.Match[str], int, int, int]] = []
    for m in _EAST_ASIAN.finditer(text):
        found.append((m, int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _KOREAN_DOTS.finditer(text):
        found.append((m, int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _ERA.finditer(text):
        year = 1 if m.group(2) == "元" else int(m.group(2))
        found.append((m, _ERA_BASE[m.group(1)] + year, int(m.group(3)), int(m.group(4))))
    for m, year, month, day in found:
        value = _make(year, month, day)
        if value:
            out.append(DateCandidate(value, m.start(), m.end(), doc.line_at(m.start()),
                                     doc.text[m.start():m.end()], False))
    return out


_OCR_DIGITS = str.maketrans("OoBbSsIl", "00885511")
#: digits OCR confuses in a year's decade ("2078", "2048" for 2018)
_DECADE_FIX = {"7": "1", "4": "1", "9": "0", "6": "0", "8": "0", "3": "2"}


def _year(y: str) -> int:
    y = y.translate(_OCR_DIGITS)
    n = int(y)
    if len(y) == 4 and n > dt.date.today().year + 2 and y[:2] == "20" and y[2] in _DECADE_FIX:
        return int(y[:2] + _DECADE_FIX[y[2]] + y[3])
    if len(y) == 2:
        return 2000 + n if n <= 69 else 1900 + n
    return n


def _make(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def find_dates(doc: Doc, day_first: bool) -> list[DateCandidate]:
    """Every plausible date in the document, unscored, in text order.

    `day_first` decides numeric dates where both orders are valid.
    """
    numeric, dmy, mdy = _patterns()
    months = _month_table()
    max_year = dt.date.today().year + 2
    out: list[DateCandidate] = []
    taken_starts: list[int] = []  # dmy matches: in text order, never overlapping
    taken_ends: list[int] = []
    text = with_ocr_digits(doc.folded)
    for m in dmy.finditer(text):
        value = _make(_year(m.group(3)), months[m.group(2)], int(m.group(1)))
        if value:
            out.append(DateCandidate(value, m.start(), m.end(), doc.line_at(m.start()),
                                     doc.text[m.start():m.end()], False))
            taken_starts.append(m.start())
            taken_ends.append(m.end())
    for m in mdy.finditer(text):
        i = bisect.bisect_right(taken_starts, m.start()) - 1
        if i >= 0 and m.start() < taken_ends[i]:
            continue
        value = _make(_year(m.group(3)), months[m.group(1)], int(m.group(2)))
        if value:
            out.append(DateCandidate(value, m.start(), m.end(), doc.line_at(m.start()),
                                     doc.text[m.start():m.end()], False))
    for m in numeric.finditer(text):
        a, _sep, b, c = m.group(1), m.group(2), m.group(3), m.group(4)
        ambiguous = False
        if len(a) == 4:
            if len(c) == 4:
                continue
            value = _make(int(a), int(b), int(c))
        elif len(a) <= 2:
            x, y, year = int(a), int(b), _year(c)
            if x > 12 and y <= 12:
                value = _make(year, y, x)
            elif y > 12 and x <= 12:
                value = _make(year, x, y)
            elif x <= 12 and y <= 12:
                ambiguous = x != y
                value = _make(year, y, x) if day_first else _make(year, x, y)
            else:
                value = None
        else:
            continue
        if value:
            out.append(DateCandidate(value, m.start(), m.end(), doc.line_at(m.start()),
                                     doc.text[m.start():m.end()], ambiguous))
    for m in _FUSED.finditer(text):
        x, y = int(m.group(1)), int(m.group(2))
        d, mo = (x, y) if day_first or y > 12 else (y, x)
        value = _make(int(m.group(4)), mo, d)
        if value:
            out.append(DateCandidate(value, m.start(), m.end(), doc.line_at(m.start()),
                                     doc.text[m.start():m.end()], x <= 12 and y <= 12))
    starts = {c.start for c in out}
    out.extend(c for c in _east_asian_dates(doc, text) if c.start not in starts)
    out = [c for c in out if MIN_YEAR <= c.value.year <= max_year]
    if not out:
        out = _compact_dates(doc, text, day_first, max_year)
    out.sort(key=lambda c: c.start)
    return out


def _compact_dates(doc: Doc, text: str, day_first: bool, max_year: int) -> list[DateCandidate]:
    """Dates of eight digits and no separator ("27032018" day first, "03272018" month first,
    "20180327" year first), of a plausible year. Counted as ambiguous: eight digits may be a
    number too."""
    out = []
    for m in _COMPACT.finditer(text):
        digits = m.group(1)
        year_first = _make(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
        a, b, year = int(digits[:2]), int(digits[2:4]), int(digits[4:])
        day_month = _make(year, b, a) if day_first or b > 12 else _make(year, a, b)
        for value in (year_first, day_month):
            if value and MIN_YEAR <= value.year <= max_year:
                out.append(DateCandidate(value, m.start(), m.end(), doc.line_at(m.start()),
                                         doc.text[m.start():m.end()], True))
                break
    return out


def infer_day_first(doc: Doc, default: bool) -> tuple[bool, bool]:
    """(day_first, decided_by_document): from numeric dates with a part above 12, and from
    dates written after their weekday ("Fri 04/07/2017" is 7 April: 4 July 2017 was a
    Tuesday), which count twice."""
    numeric, _, _ = _patterns()
    votes_day = votes_month = 0
    weekdays = _weekdays() if _WEEKDAY_HINT.search(doc.folded) else None
    for m in numeric.finditer(doc.folded):
        if len(m.group(1)) > 2:
            continue
        x, y = int(m.group(1)), int(m.group(3))
        if 12 < x <= 31 and y <= 12:
            votes_day += 1
        elif 12 < y <= 31 and x <= 12:
            votes_month += 1
        elif weekdays is not None and x != y:
            day = _weekday_before(doc.folded, m.start(), weekdays)
            if day is not None:
                year = _year(m.group(4))
                as_day, as_month = _make(year, y, x), _make(year, x, y)
                if as_day and as_day.weekday() == day and not (as_month and
                                                              as_month.weekday() == day):
                    votes_day += 2
                elif as_month and as_month.weekday() == day:
                    votes_month += 2
    if votes_day == votes_month:
        return default, False
    return votes_day > votes_month, True


#: a word of two letters or more, a blank and a digit: what every weekday before a date shows
#: (from a word's start only: from every letter of a long word, the search would be quadratic)
_WEEKDAY_HINT = re.compile(r"(?<![^\W\d_])[^\W\d_]{2,}\.?,?\s\d")


@functools.cache
def _weekdays() -> dict[str, int]:
    """Folded weekday names and abbreviations of the lexicon languages (CLDR's, through babel)
    -> 0 (Monday) .. 6."""
    from babel import Locale

    names: dict[str, int] = {}
    for code in ("en", "de", "fr", "es", "it", "nl", "pl", "pt", "sv", "da", "nb", "fi", "cs",
                 "tr", "id"):
        days = Locale.parse(code).days
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in days[context][width].items():
                    key = fold(name).rstrip(".")
                    if len(key) >= 2:
                        names.setdefault(key, number)
    return names


def _weekday_before(folded: str, start: int, weekdays: dict[str, int]) -> int | None:
    """The weekday (0-6) written just before offset `start` ("fri 04/07", "sat., 03/02"), if
    any."""
    before = folded[max(0, start - 16):start].rstrip(" ,.")
    word = before.rsplit(None, 1)[-1].rstrip(".,") if before.strip() else ""
    return weekdays.get(word)


#: longest gap between a label and its date that still counts (see _label_before)
MAX_LABEL_GAP = 40


def _label_before(doc: Doc, cand: DateCandidate, language: str,
                  blank_until: dict[int, int]) -> tuple[str, str, float]:
    """(label text, kind, distance factor) of the label just before the candidate, if any.

    Only a fixed window before the date is searched (the longest label plus the longest gap
    that counts): a line of a million dates costs a million small searches, not a million
    rescans of the line. `blank_until` caches, per line, where its first character other
    than " :|-" is.
    """
    pattern, kinds, longest = _label_pattern(language)
    line = cand.line
    window_start = max(line.start, cand.start - longest - MAX_LABEL_GAP - 8)
    prefix = doc.folded[window_start:cand.start]
    last = _last_match(pattern, prefix)
    if last is not None:
        gap = prefix[last.end():]
        if _GAP.match(gap) and len(gap) <= MAX_LABEL_GAP:
            kind = _kind_of(last.group(0), kinds)
            joined = _joined_label(prefix[:last.start()], pattern, kinds)
            if joined is not None:  # "Rechnungsdatum/Lieferdatum": the same date is both
                return joined
            if _CONNECTOR.fullmatch(last.group(0)):
                # (a title alone on the line above: "Facture" / "FAC0049472 du ...")
                above = (doc.lines[line.index - 1].folded
                         if window_start == line.start and line.index > 0 else None)
                return _before_connector(prefix[:last.start()], above, last.group(0), kind,
                                         language, pattern, kinds)
            return last.group(0), _unless_to_come(kind, prefix, last), 1.0
        words = _RX0.findall(gap)
        # (words in a bracket the date closes are an aside's own: "30 days from date of
        # invoice (due 14 May 2026)")
        aside = gap.count("(") > gap.count(")") and gap.rpartition("(")[2].strip()
        if len(gap) <= 30 and len(words) <= 3 and not _RX1.search(gap) and not aside:
            if _another_documents().search(gap):
                # "Date de facture associée", "Original invoice date": another document's
                return last.group(0), "period", 0.6
            return last.group(0), _unless_to_come(_kind_of(last.group(0), kinds), prefix,
                                                  last), 0.6
    if _date_line(doc, cand):
        return "place, date", "date", 1.0
    if line.index > 0 and cand.start <= _first_content(line, blank_until):
        prev = doc.lines[line.index - 1]
        pm = _last_match(pattern, prev.folded)
        if pm is not None and _GAP.match(prev.folded[pm.end():]):
            return pm.group(0), _kind_of(pm.group(0), kinds), 0.8
    if _lone_date_line(doc, cand):
        return "date line", "date", 1.0
    return ("", "", 0.0)


#: the lines of a letter's first page its date may stand alone on, under the address
LONE_DATE_LINES = 16


def _lone_date_line(doc: Doc, cand: DateCandidate) -> bool:
    """`cand` is all of its line, near the top of the first page, with no time after it and
    no label above it: a letter's date under the address ("28. Januar 2026"), not a till
    slip's stamp, a row of a table or a labelled value."""
    line = cand.line
    return (line.page == 1 and line.index < LONE_DATE_LINES
            and not doc.folded[line.start:cand.start].strip()
            and not doc.folded[cand.end:line.start + len(line.text)].strip(" .")
            # (under a label of its own, even one not known: "Inv Due Date:")
            and not (line.index and doc.lines[line.index - 1].text.rstrip().endswith(":")))


#: a letter's date line before its date: a place and a comma ("Frankfurt, "), and the word
#: that joins them in some languages ("Paris, le ", "Salzburg, am ", "Praha, dne ")
_DATELINE = re.compile(r"[^\W\d_][^\W\d_.'-]*(?:[ -][^\W\d_][^\W\d_.'-]*){0,2}, ?"
                       r"(?:(?:le|am|den|dne|dnia|il|el|a|em|op|d\.) )?")
#: the longest place name (with its comma) before a letter's date
MAX_PLACE = 40


def _unless_to_come(kind: str, prefix: str, label: re.Match[str]) -> str:
    """`kind`, or "period" for an issue date's label after a word saying it is still to come
    ("Your next invoice date is March 22"): a billing date ahead, not this document's."""
    if kind == "issue_date" and _next_before().search(prefix, 0, label.start()):
        return "period"
    return kind


@functools.cache
def _another_documents() -> re.Pattern[str]:
    """A word after a date's label saying the date is another document's ("associée",
    "d'origine", "referenced")."""
    return re.compile(alternation(common()["referenced_words"]))


@functools.cache
def _next_before() -> re.Pattern[str]:
    """A word saying that what follows is still to come ("next", "nächste", "prochaine"),
    right before a label or up to three words before it ("Votre prochaine facture sera émise
    le 5 décembre 2019")."""
    return re.compile("(?:" + alternation(common()["next_words"])
                      + r")(?:\s+[^\W\d_]+){0,3}\s*$")


def _date_line(doc: Doc, cand: DateCandidate) -> bool:
    """`cand` is a letter's date line: a place, a comma and the date, nothing else
    ("Frankfurt am Main, 01.04.2022")."""
    start, end = cand.line.start, cand.line.start + len(cand.line.text)
    return (cand.start - start <= MAX_PLACE
            and _DATELINE.fullmatch(doc.folded, start, cand.start) is not None
            and not doc.folded[cand.end:end].strip(" ."))


#: a short word that joins a date to what comes before it ("le", "du", "vom", "del", "dnia")
_CONNECTOR = re.compile(r"[^\W\d_]{2,4}\.?")
#: what may stand between a label and its connector ("Date limite de paiement le")
_CONNECTOR_GAP = re.compile(r"^[\s:,]{0,3}$")


def _joined_label(before: str, pattern: re.Pattern[str],
                  kinds: dict[str, str]) -> tuple[str, str, float] | None:
    """An issue-date label joined to the label just before the date by a slash
    ("Rechnungsdatum/Lieferdatum", "Invoice date / Tax point"): the date is the issue date."""
    before = before.rstrip()
    if not before.endswith("/"):
        return None
    before = before[:-1]
    earlier = _last_match(pattern, before)
    if earlier is None or before[earlier.end():].strip():
        return None
    if _kind_of(earlier.group(0), kinds) != "issue_date":
        return None
    return earlier.group(0), "issue_date", 1.0


def _before_connector(before: str, above: str | None, connector: str, kind: str,
                      language: str, pattern: re.Pattern[str],
                      kinds: dict[str, str]) -> tuple[str, str, float]:
    """The label of a date written after a connector word: the label just before the
    connector when there is one ("date limite de paiement le 05 juillet": a due date), an
    issue date after an invoice number ("Facture n° 562044387 du 02 juillet 2015", "Rechnung
    Nr. 123 vom 5. Mai", also with the title on the line `above`), the sender's own earlier
    paper's ("unserer Zahlungserinnerung vom": a period's, against), else the connector's own
    kind."""
    earlier = _last_match(pattern, before)
    if earlier is not None and _CONNECTOR_GAP.match(before[earlier.end():]):
        earlier_kind = _kind_of(earlier.group(0), kinds)
        if earlier_kind not in ("date", "period"):
            return earlier.group(0), earlier_kind, 1.0
    if invoice_number_label_at_end(before, language) or (
            above is not None and invoice_number_label_at_end(f"{above} {before}", language)):
        if _ours_before().search(before if above is None else f"{above} {before}"):
            # "unserer Rechnung nc-5287300 vom 22.06.2026": a reminder's or a letter's words
            # about an earlier document of the sender's (also over two lines: "zu Rechnung
            # RE-2026-0187" / "vom 09.02.2026")
            return connector, "period", 0.6
        return connector, "issue_date", 0.8
    if (ours := _ours_before().search(before)) and type_pattern(language).search(ours.group(0)):
        # "trotz unserer Zahlungserinnerung vom 12. August", "our reminder of 3 May": the
        # sender's earlier paper, without its number
        return connector, "period", 0.6
    return connector, kind, 1.0


@functools.cache
def _ours_before() -> re.Pattern[str]:
    """A sender's word for what is its own ("our", "unserer", "notre") a few words before the
    end: "unserer Rechnung nc-5287300 "."""
    return re.compile(r"(?<!\w)(?:" + alternation(common()["our_words"]) + r")(?:\s+\S+){1,3}\s*$")


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    tail = deque(pattern.finditer(text), maxlen=1)
    return tail[0] if tail else None


def _first_content(line: Line, cache: dict[int, int]) -> int:
    """Offset (in Doc.text) of the line's first character other than " :|-" (cached)."""
    offset = cache.get(line.index)
    if offset is None:
        stripped = line.folded.lstrip(" :|-")
        offset = cache[line.index] = line.start + len(line.folded) - len(stripped)
    return offset


def _kind_of(label: str, kinds: dict[str, str]) -> str:
    return kinds.get(_RX2.sub(" ", label), "date")


def _print_stamp(doc: Doc, line: Line, after: str) -> bool:
    """A date at the start of `line` (`after`: the folded text following it) is a browser's
    print stamp: a date, a comma and a time, on a page's first or last line."""
    if not _STAMP_TIME.match(after):
        return False
    i = line.index
    return (i == 0 or doc.lines[i - 1].page != line.page
            or i + 1 == len(doc.lines) or doc.lines[i + 1].page != line.page)


def best_date(
    doc: Doc, language: str, day_first: bool, order_known: bool = True
) -> tuple[list[DateCandidate], float]:
    """Scored candidates (best first) and the confidence in the first one (0 when none).

    Never returns today's date unless the document states it.
    """
    cands = find_dates(doc, day_first)
    if not cands:
        return [], 0.0
    counts: dict[dt.date, int] = {}
    for c in cands:
        counts[c.value] = counts.get(c.value, 0) + 1
    today = dt.date.today()
    scored: list[DateCandidate] = []
    blank_until: dict[int, int] = {}
    labelled = [(c, *_label_before(doc, c, language, blank_until)) for c in cands]
    issued = any(kind in ("issue_date", "date") for _c, _label, kind, _factor in labelled)
    for c, label, kind, factor in labelled:
        score = 1.0
        if kind == "order_date" and not issued:
            score += ORDER_AS_ISSUE * factor
        elif kind:
            score += LABEL_WEIGHTS[kind] * factor
        score += 0.8 * (1.0 - doc.relative_position(c.line))
        score += 0.4 * min(counts[c.value] - 1, 2)
        after = doc.folded[c.end:c.end + 12]
        before = doc.folded[max(c.start - 4, c.line.start):c.start]
        if _RANGE_AFTER.match(after) or _RX3.search(before):
            score -= 2.5
        if c.value > today:
            score -= 1.0
        if c.start == c.line.start and _print_stamp(doc, c.line, after):
            score -= PRINT_STAMP
        if c.line.page > 1:
            score -= 0.5
        scored.append(DateCandidate(c.value, c.start, c.end, c.line, c.raw, c.ambiguous,
                                    score, label, kind))
    scored.sort(key=lambda c: (-c.score, c.start))
    top = scored[0]
    rival = next((c.score for c in scored if c.value != top.value), None)
    if top.label_kind == "issue_date":
        conf = 0.93
    elif top.label_kind == "date":
        conf = 0.8
    else:
        conf = 0.55
    if rival is not None:
        margin = top.score - rival
        if margin < 1.0:
            conf -= 0.2
        elif margin < 3.0:
            conf -= 0.08
    else:
        conf += 0.15 if not top.label_kind else 0.04  # the only date in the document
    if top.ambiguous and not order_known:
        conf -= 0.1
    if top.raw.isdigit():  # eight digits without separators
        conf -= 0.2
    return scored, max(0.05, min(conf, 0.99))


def date_lines(text: str) -> list[str]:
    """The lines of `text` that hold a plausible date (either day/month order), in order.

    Used to decide on a second OCR pass (no such line: the first reading missed the date) and
    to take only the date lines from it. Pure, a few ms.
    """
    doc = Doc.from_pages([text])
    seen: list[int] = []
    for cand in find_dates(doc, day_first=True):
        if cand.line.index not in seen:
            seen.append(cand.line.index)
    return [doc.lines[i].text for i in seen]
