"""Labels and their values drawn as two columns: a text layer that writes a block of labels and
then the block of their values ("Numero de Orden / Fecha de Compra / Factura", then
"ES9812110233 / 21.03.24 / 1 24 0005 0001201345") is read back as one "label: value" line
per pair, as the page shows them side by side; and so is a row of labels over a row of values
("INVOICE # | DATE | DUE DATE" over "1087 | 05/14/2024 | 06/13/2024", as OCR joins a table's
cells across wide gaps); and a column of labels with colons whose values follow a few
lines on, past another column's label and value."""

from __future__ import annotations

import functools
import re
from itertools import accumulate

from renamerd.engine.fields.date_labels import month_table
from renamerd.engine.lexicon import LANGUAGES, alternation, fold, load

#: fewest pairs that make two columns (two could be a heading and a number by chance)
MIN_PAIRS = 3
#: a label: one to four words of letters, a word hyphened ("Kunden-Nr.", "Invoice #",
#: "Amount Due (JMD)" too), no digit, no colon with a value after it
_LABEL_PART = r"[^\W\d_][^\W\d_.'’ºª°/-]*(?:-[^\W\d_][^\W\d_.'’ºª°/-]*)?\.?[°º]?"
_LABEL = re.compile(
    rf"{_LABEL_PART}(?: {_LABEL_PART}){{0,3}}(?: ?[#№])?"
    r"(?: \([^\W\d_]{1,5}\))? ?:?")
#: a value: holds a digit, at most five blank-separated parts, short
_VALUE = re.compile(r"(?=[^\n]*\d)\S+(?: \S+){0,4}")
_MAX_VALUE = 30


def pair_label_columns(lines: list[str]) -> list[str]:
    """`lines` (stripped, non-empty) with each run of MIN_PAIRS or more labels followed by as
    many values replaced by "label: value" lines, in order. Pure; lines are never dropped:
    a run whose counts differ is left as it is. Linear in the lines (each is tested once)."""
    is_label = [_is_label(line) for line in lines]
    label_run = _runs(is_label)
    value_run = _runs([_is_value(line) for line in lines])
    known = list(accumulate((is_label[i] and _known_label(line) for i, line in enumerate(lines)),
                            initial=0))
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        labels = label_run[i]
        values = value_run[i + labels] if labels >= MIN_PAIRS else 0
        # (fewer values than labels: the labels right above the values are theirs, the lines
        # before them a name or a heading in a few words: "WOCOM" over "Invoice Number")
        first = i + max(labels - values, 0) if values >= MIN_PAIRS else i
        pairs = labels - (first - i)
        # (two of the labels at least are a date or number label of some language: a block
        # of labels, not a letterhead's lines in capitals over an address)
        if pairs >= MIN_PAIRS and values >= pairs and known[i + labels] - known[first] >= 2:
            # (more values than labels: the first ones after the labels are theirs)
            out.extend(lines[i:first])
            out.extend(f"{lines[first + k].rstrip(' :')}: {lines[i + labels + k]}"
                       for k in range(pairs))
            i += labels + pairs
            continue
        apart = _values_apart(lines, i, labels, value_run, known) if values == 0 else None
        if apart is not None:
            count, at = apart
            out.extend(f"{lines[i + k].rstrip(' :')}: {lines[at + k]}" for k in range(count))
            out.extend(lines[i + count:at])
            i = at + count
            continue
        if labels == 2 and _two_with_colons(lines, i, value_run, known):
            out.extend(f"{lines[i + k].rstrip(' :')}: {lines[i + 2 + k]}" for k in range(2))
            i += 4
            continue
        out.append(lines[i])
        i += 1
    return out


#: lines that may stand between a column of labels and its values (another column's label
#: and value: "Team ID" / "do:team:a9d0...")
_MAX_BETWEEN = 3


def _values_apart(lines: list[str], i: int, labels: int, value_run: list[int],
                  known: list[int]) -> tuple[int, int] | None:
    """MIN_PAIRS or more labels written with their colons opening the run of labels at `i`,
    two of them a date or number label, whose values follow as many lines on, after at most
    _MAX_BETWEEN other lines ("Invoice number:" / "Date of issue:" / "Payment due on:" /
    "Team ID" / "do:team:..." / "509772997" / "April 1, 2025" / "April 1, 2025"): (how many
    labels, the index of their first value), or None."""
    count = 0
    while count < labels and lines[i + count].endswith(":"):
        count += 1
    if count < MIN_PAIRS or known[i + count] - known[i] < 2:
        return None
    for at in range(i + count + 1, min(i + count + 1 + _MAX_BETWEEN, len(lines))):
        if value_run[at] >= count:
            return count, at
    return None


def _two_with_colons(lines: list[str], i: int, value_run: list[int], known: list[int]) -> bool:
    """Lines `i` and `i + 1` are two labels written with their colons, one of them a date or
    number label, over two values ("Rechnung:" / "Kunde:" / "3081253" / "57312126P"): the
    colons say they are labels, where two lines in capitals could be a name and a heading."""
    return (value_run[i + 2] >= 2 and known[i + 2] - known[i] >= 1
            and lines[i].endswith(":") and lines[i + 1].endswith(":"))


#: how the page text separates the cells of a row (OCR's wide gaps)
_CELL = " | "


def pair_header_rows(lines: list[str]) -> list[str]:
    """`lines` with each row of labels (two of them a date or number label at least) that
    stands over a row of as many short values replaced by "label: value" lines; and a row
    opening with date and number labels one blank apart ("Invoice Number Invoice Date
    Customer Number Page") over a row opening with as many values, each one word holding a
    digit ("4700367116 19-DEC-2025 4668565 1 / 1"): those pairs, then the rest of each row.
    Pure; linear in the lines."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if i + 1 < n and _CELL in lines[i] and _CELL in lines[i + 1]:
            heads, cells = _row_cells(lines[i]), _row_cells(lines[i + 1])
            table = _another_row(lines, i + 2, cells)
            if (len(heads) == len(cells) and all(map(_is_label, heads))
                    and sum(map(_known_label, heads)) >= 2 and not table
                    and all(len(c) <= _MAX_VALUE for c in cells) and any(map(_is_value, cells))):
                out.extend(f"{h.rstrip(' :')}: {c}" for h, c in zip(heads, cells, strict=True))
                i += 2
                continue
            # (a date's or a number's label among the headings of address blocks: "Invoice
            # date / Tax point | Billing address | Delivery address" over "09 March 2021 |
            # Mr Owen Prichard | ...": its pair, then both rows as they are)
            if not table:
                out.extend(_known_cells(heads, cells))
        if i + 1 < n and (paired := _pair_spaced_row(lines[i], lines[i + 1])):
            out.extend(paired)
            i += 2
            continue
        # (the row of values wrapped onto two lines: "Due date Issue date Invoice number" over
        # "£149.83 28 Sept 2026" and "29 Aug 2026 INV-1085", as Xero's text layer writes it)
        if i + 2 < n and (paired := _pair_spaced_row(lines[i], f"{lines[i + 1]} {lines[i + 2]}",
                                                     least=MIN_PAIRS)):
            out.extend(paired)
            i += 3
            continue
        # (an Italian e-invoice's copy: "... Numero documento Data documento ..." over
        # "TD01 fattura FPR 112/26 11/03/2026 M5UXCR1", a number of two words)
        if i + 1 < n and (paired := _pair_sdi_row(lines[i], lines[i + 1])):
            out.extend(paired)
            i += 2
            continue
        # (a row of labels each ending in a colon, known or not, over as many values:
        # "PERIODO DE FACTURACIÓN: Nº FACTURA:" over "27/04/2026 - 31/05/2026 2126060801")
        if i + 1 < n and (paired := _pair_colon_row(lines[i], lines[i + 1])):
            out.extend(paired)
            i += 2
            continue
        # (a line of words between the rows: the name of a column beside them, "Invoice No.
        # Dated" / "Mateshwari Mines and Minerals" / "222/26-27 29-Jun-26"; one with digits, an
        # address, when every value of the row below pairs with a label)
        if (i + 2 < n and (paired := _pair_spaced_row(lines[i], lines[i + 2]))
                and (not any(map(str.isdigit, lines[i + 1]))
                     or _all_paired(paired, lines[i + 2]))):
            out.append(lines[i + 1])
            out.extend(paired)
            i += 3
            continue
        out.append(lines[i])
        i += 1
    return out


def _another_row(lines: list[str], at: int, cells: list[str]) -> bool:
    """The line at `at` is a second row of values like `cells`, as many cells, its first one
    holding a digit: the rows of a table (the invoices a reminder lists), not a heading's one
    row of values."""
    if at >= len(lines) or _CELL not in lines[at]:
        return False
    row = _row_cells(lines[at])
    return len(row) == len(cells) and any(map(str.isdigit, row[0]))


def _row_cells(row: str) -> list[str]:
    """The cells of a row joined by " | ", without the empty ones OCR makes of a table's
    ruling ("Votre commande | | Date")."""
    return [cell.strip(" |") for cell in row.split(_CELL) if cell.strip(" |")]


def _known_cells(heads: list[str], cells: list[str]) -> list[str]:
    """The "label: value" lines of the cells of a row of headings (`heads`) that are a date's
    or a number's label, "Invoice date / Tax point" by its first label, over a value that
    fits it in the row below (`cells`, as many); [] unless every heading is a label."""
    labels = [head.split(" / ", 1)[0] for head in heads]
    if len(labels) != len(cells) or not all(map(_is_label, labels)):
        return []
    pairs = [(label.rstrip(" :"), cell) for label, cell in zip(labels, cells, strict=True)]
    return [f"{label}: {cell}" for label, cell in pairs
            if _known_label(label) and len(cell) <= _MAX_VALUE and _fits(fold(label), cell)]


#: the row of values under an Italian e-invoice's "Tipologia documento ... Numero documento
#: Data documento" (the SdI's stylesheet): the document's kind ("TD01 fattura"), its number
#: (a series and a number: "FPR 112/26"), its date
_SDI_VALUES = re.compile(r"TD\d{2}[A-Z]?\s+[^\d|]+?\s+(\S.*?)\s+"
                         r"(\d{2}[/-]\d{2}[/-]\d{4}|\d{4}-\d{2}-\d{2})(?!\S)")


def _pair_sdi_row(heads: str, cells: str) -> list[str]:
    """The two rows and their number's and date's "label: value" lines, when `heads` holds
    an Italian e-invoice's "Numero documento" and "Data documento" and `cells` is its row of
    values (_SDI_VALUES); [] otherwise."""
    if not cells.startswith("TD") or "numero documento" not in heads.lower():
        return []
    m = _SDI_VALUES.match(cells)
    if m is None or "data documento" not in heads.lower():
        return []
    return [heads, f"Numero documento: {m.group(1)}", f"Data documento: {m.group(2)}", cells]


#: a date written with its month's name between blanks ("29 May 25", "11 Nov 2025"): one cell
_SPACED_DATE = re.compile(r"(?<!\S)\d{1,2} [^\W\d_]{3,9}\.? \d{2,4}(?!\S)")


def _cells(row: str, whole: re.Pattern[str] = _SPACED_DATE) -> list[str]:
    """The blank-separated cells of a row of values, what `whole` matches one cell (by
    default a date with its month's name)."""
    if not whole.search(row):
        return row.split(" ")
    cells: list[str] = []
    at = 0
    for m in whole.finditer(row):
        cells.extend(row[at:m.start()].split())
        cells.append(m.group(0))
        at = m.end()
    return cells + row[at:].split()


def _all_paired(paired: list[str], cells: str) -> bool:
    """Every value of the row `cells`, three at least, is in a "label: value" line of
    `paired`, in order."""
    values = [line.split(": ", 1)[1] for line in paired if ": " in line]
    return len(values) >= 3 and " ".join(values) == cells


def _pair_spaced_row(heads: str, cells: str, least: int = 2) -> list[str]:
    """The "label: value" lines (then the rest of each row) that the row `heads` over the row
    `cells` stand for (see pair_header_rows), or [] when they are no such rows. A row of
    values may open with words of its own ("Factuur 9000415 104346 12/12/2022" under three
    labels) and end early (an empty last column); each value must fit its label: a date under
    a date's label, no date under a number's. `least`: the fewest pairs that count."""
    if len(heads) > 120 or not any(map(str.isdigit, cells)):  # (the quick test)
        return []
    folded = fold(heads)
    labels = _known_labels_row(heads, folded)
    if len(labels) < 2:
        return _pair_row_ends(heads, cells, folded, least)
    values = _cells(cells)
    lead = 0
    while lead < len(values) and not any(map(str.isdigit, values[lead])):
        lead += 1
    if lead and len(values) - lead != len(labels):
        return []
    pairs: list[str] = []
    start = 0
    for end, value in zip(labels, values[lead:], strict=False):
        if len(value) > _MAX_VALUE or not _fits(folded[start:end].strip(" :#."), value):
            break
        pairs.append(f"{heads[start:end].strip(' :#.')}: {value}")
        start = end
    if len(pairs) < least:
        return []
    rest = [heads[start:].strip(), " ".join(values[:lead] + values[lead + len(pairs):])]
    return pairs + [part for part in rest if part]


#: a row's label ending in its colon (after any words a column beside it put first, up to
#: a semicolon: "Madrid; DIAS FACTURADOS:")
_COLON_LABEL = re.compile(r"(?:^|[;|] ?| )([^\W\d_][^\W\d_.ºª°]*[ºª°]?\.?"
                          r"(?: [^\W\d_][^\W\d_.ºª°]*[ºª°]?\.?){0,3}):(?= |$)")
#: cells of more than one word: a period ("27/04/2026 - 31/05/2026"), a date written with
#: "de" ("8 de junio de 2026"), a date with its month's name ("29 May 25")
_MULTI_WORD_CELL = re.compile(r"\S*\d\S* [-–] \S*\d\S*|\d{1,2} de [^\W\d_]{3,10} de \d{4}"
                              rf"|{_SPACED_DATE.pattern}")


def _pair_colon_row(heads: str, cells: str) -> list[str]:
    """The "label: value" lines of a row of labels that each end in a colon (two at least,
    one of them a known date's or number's) over a row of as many values ("PERIODO DE
    FACTURACIÓN: Nº FACTURA:" over "27/04/2026 - 31/05/2026 21260608010256253"; words
    without a digit opening the row of values, a column beside it, come first), or []."""
    if not heads.endswith(":") or heads.count(":") < 2 or not any(map(str.isdigit, cells)):
        return []
    labels = [m.group(1) for m in _COLON_LABEL.finditer(heads)]
    # (the labels are most of the row: not a sentence with two colons in it)
    if len(labels) < 2 or len(" ".join(labels)) + 2 * len(labels) < len(heads) // 2:
        return []
    dates, numbers = _label_kinds()
    if not any(fold(label) in dates | numbers for label in labels):
        return []
    values = _cells(cells, _MULTI_WORD_CELL)
    lead = 0
    while lead < len(values) and not any(map(str.isdigit, values[lead])):
        lead += 1
    if len(values) - lead != len(labels):
        return []
    pairs = [f"{label}: {value}" for label, value in zip(labels, values[lead:], strict=True)]
    if not all(len(value) <= _MAX_VALUE and _fits(fold(label), value)
               for label, value in zip(labels, values[lead:], strict=True)):
        return []
    return [" ".join(values[:lead]), *pairs] if lead else pairs


def _pair_row_ends(heads: str, cells: str, folded: str, least: int = 2) -> list[str]:
    """The pairs of a row of labels that ends `heads` after words of its own over as many
    values ending `cells` ("JINENDRA TRADERS Invoice No. e-Way Bill No. Dated" over "R M C
    Yard GST-80-26-27 132546527517 10-Sep-26", a name and an address in a column beside
    them): the words before the labels, the pairs, the words before the values; [] when the
    rows are no such rows (every value must fit its label)."""
    if folded.rsplit(" ", 1)[-1].strip(" :#.") not in _label_last_words():
        return []  # (the quick test)
    at = 0
    while (at := folded.find(" ", at) + 1) > 0:
        ends = _known_labels_row(heads, folded, at)
        if len(ends) >= least and not folded[ends[-1]:].strip():
            break
    else:
        return []
    values = _cells(cells)
    if len(values) <= len(ends):
        return []
    values, lead = values[-len(ends):], values[:-len(ends)]
    starts = [at, *ends[:-1]]
    heads_of = [folded[a:b].strip(" :#.") for a, b in zip(starts, ends, strict=True)]
    if not all(len(v) <= _MAX_VALUE and _fits(h, v)
               for h, v in zip(heads_of, values, strict=True)):
        return []
    pairs = [f"{heads[a:b].strip(' :#.')}: {v}"
             for a, b, v in zip(starts, ends, values, strict=True)]
    return [heads[:at].strip(), *pairs, " ".join(lead)]


@functools.cache
def _label_last_words() -> frozenset[str]:
    """The last word of every lexicon language's date and number labels, folded."""
    dates, numbers = _label_kinds()
    return frozenset(label.rsplit(" ", 1)[-1].strip(" :#.") for label in dates | numbers)


#: a date as a table's cell prints it ("19-DEC-2025", "12/12/2022", "2024-03-05", "8 de junio
#: de 2026"; not an Indian invoice's number with its financial year, "222/26-27")
_DATE_CELL = re.compile(r"(\d{1,2}|\d{4})[./-](\d{1,2}|[^\W\d_]{3,4})[./-]\d{2,4}"
                        r"|(\d{1,2}) (?:de )?([^\W\d_]{3,9})\.?(?: de)? \d{2,4}")


def date_cell(value: str) -> bool:
    """`value` is a date as a table's cell prints it: a day and a month in either order, or a
    year first ("26-27/1979" is a number: no month is 26 or 27; so is "2025-04-0077": a day
    has two digits at most)."""
    m = _DATE_CELL.fullmatch(value)
    if m is None:
        return False
    if m.group(1) and len(m.group(1)) == 4 and len(value) - m.end(2) - 1 > 2:
        return False
    first, second = m.groups()[:2] if m.group(1) else m.groups()[2:]
    if m.group(1) is None and fold(second) not in month_table():
        return False  # ("12 Items 2025")
    if len(first) == 4 or not second.isdigit():
        return True
    return min(int(first), int(second)) <= 12 and max(int(first), int(second)) <= 31


def _fits(label: str, value: str) -> bool:
    """`value` may stand under the folded `label`: it holds a digit, and it is a date when
    the label is only a date's (and not when it is only a number's)."""
    if not any(map(str.isdigit, value)):
        return False
    dates, numbers = _label_kinds()
    if label in dates and label not in numbers:
        return date_cell(value)
    if label in numbers and label not in dates:
        return not date_cell(value)
    return True


@functools.cache
def _label_row() -> re.Pattern[str]:
    """One date or number label of some lexicon language, at a row's start or after a blank,
    with its "#", colon or dot."""
    return re.compile(r"(?:" + _label_words().pattern + r")(?: ?[#:.])?(?= |$)")


def _known_labels_row(heads: str, folded: str, at: int = 0) -> list[int]:
    """Where each known label ends in the run of them, one blank apart, that opens `heads`
    from `at` (`folded` is its fold; the last one not when a word in lower case follows it:
    it may be the start of a longer label, "Número" of "Número do documento")."""
    ends: list[int] = []
    while (m := _label_row().match(folded, at)) is not None:
        ends.append(m.end())
        at = m.end() + 1
    if ends and heads[ends[-1]:].lstrip()[:1].islower():
        ends.pop()
    return ends


def _runs(passed: list[bool]) -> list[int]:
    """For each index (and one past the end): how many items from there on passed."""
    runs = [0] * (len(passed) + 1)
    for index in range(len(passed) - 1, -1, -1):
        runs[index] = runs[index + 1] + 1 if passed[index] else 0
    return runs


def _is_label(line: str) -> bool:
    return len(line) <= 40 and _LABEL.fullmatch(line) is not None


def _is_value(line: str) -> bool:
    return len(line) <= _MAX_VALUE and _VALUE.fullmatch(line) is not None


#: label kinds whose values are dates and numbers (what a column of labels mostly holds)
_KINDS = ("issue_date", "date", "due_date", "delivery_date", "order_date", "invoice_number",
          "other_number", "order_number")


@functools.cache
def _label_words() -> re.Pattern[str]:
    """Every lexicon language's date and number labels, folded."""
    dates, numbers = _label_kinds()
    return re.compile(alternation(set(dates | numbers)))


@functools.cache
def _label_kinds() -> tuple[frozenset[str], frozenset[str]]:
    """Every lexicon language's date labels, and its number labels, folded."""
    def phrases(kinds: tuple[str, ...]) -> frozenset[str]:
        return frozenset(fold(p) for code in LANGUAGES for kind in kinds
                         for p in load(code)["labels"].get(kind, []))
    return phrases(_KINDS[:5]), phrases(_KINDS[5:])


def opens_with_known_label(line: str) -> bool:
    """`line` opens with a date or number label of some lexicon language ("Invoice Date",
    "Rechnungsnummer: 17")."""
    return _label_row().match(fold(line)) is not None


@functools.cache
def _label_with_colon() -> re.Pattern[str]:
    return re.compile(r"(?<= )(?:" + _label_words().pattern + r") ?:")


def before_known_label(text: str) -> str:
    """`text` up to a date or number label with its colon that follows two words or more
    ("Brightwater Energy Account number: 9100 ..." -> "Brightwater Energy": a name and a
    column of labels on one line); `text` as it is otherwise."""
    if ":" not in text:
        return text
    m = _label_with_colon().search(fold(text))
    if m is None or len(text[:m.start()].split()) < 2:
        return text
    return text[:m.start()].rstrip(" ,;|-–")


def _known_label(line: str) -> bool:
    """`line` is a date or number label of some lexicon language."""
    return _label_words().fullmatch(fold(line).strip(" :.")) is not None
