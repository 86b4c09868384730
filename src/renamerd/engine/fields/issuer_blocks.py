"""Where the sender and the recipient stand on a page, for the issuer scorer
(fields/issuer.py): the recipient's blocks ("Bill to", "Rechnungsempfänger", the address
window under a DIN sender line), the sender line above that window (with dots or with
commas), a seller's label stacked over a buyer's ("Sprzedawca" / "Nabywca"), the payee of a
remittance slip, a customer printed right under the title, and the payer of a direct debit.
Pure.
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.fields.columns import opens_with_known_label
from renamerd.engine.fields.doctype import type_pattern
from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.issuer_labels import SALUTATION, find_label
from renamerd.engine.fields.issuer_scores import Page, key
from renamerd.engine.fields.names import legal_suffix
from renamerd.engine.fields.places import PHONE, POSTCODE, address
from renamerd.engine.lexicon import alternation, common, fold, load

#: a sender line written with commas: a name, a street, a postcode and a town
#: ("Deutsche Kreditbank, Taubenstr. 7-9, 10117 Berlin")
_COMMA_SENDER = re.compile(r"[^,\d][^,]{2,40}, [^,]{3,40}, (?:[A-Z]{1,2}-)?\d{4,5} [^,\d]{2,30}")
#: a person's attention line, under the company that is addressed ("Attn:", "z. Hd.")
_ATTENTION = re.compile(r"[\s|*]*(?:attn|attention|z\.\s?hd|zu handen|a l'attention|t\.a\.v\.)")
#: a form of address alone on its line, over the addressee's name ("Herrn", "Firma",
#: Portugal's "Exmos. Senhores", Italy's "Spett.le")
_FORM_ALONE = re.compile(r"herrn?|frau|firma|mme|mlle|m\.|exm[oa]s?\.?(?: senhor(?:es|as?)?)?|"
                         r"spett\.?(?:le)?")
#: a town and its postcode after it ("Jakarta 10207", "Milano 20121")
_TOWN_POSTCODE = re.compile(r"[^\W\d_][^\d]{1,30} \d{4,6}")
#: a line opening with a postcode and a town ("10117 Berlin", "D-80331 München")
_CITY_LINE = re.compile(r"(?:[A-Z]{1,2}-)?\d{4,5} [^\W\d_]")
#: where a line parts into segments: a blank, then a dot or bar and a blank, or two blanks
#: more, or nothing more after a tab (the same as "\s[·|•]\s|\s{3,}|\t", written to start
#: with "\s" so that `re` skips other characters)
SEGMENT = re.compile(r"\s(?:[·|•]\s|\s{2,}|(?<=\t))")


def recipient_lines(doc: Doc, rec: re.Pattern[str],
                    seller: re.Pattern[str]) -> tuple[set[int], int | None]:
    """Indexes of lines in recipient blocks, and the index of a DIN sender line if found.

    A block starts at a recipient label, or at an addressee's form of address with a postcode
    in the next four lines ("M. Grégoire Lefèvre", "Herrn" alone), and ends with the first line
    holding a postcode (the city line), at most five lines on, or before a line opening with a
    `seller` label ("Invoice to: <name, address>" / "From: <the seller>").
    """
    skip: set[int] = set()
    sender_line: int | None = None

    def block_from(first: int) -> None:
        for j in range(first, min(first + 5, len(doc.lines))):
            if j > first and seller.match(doc.lines[j].folded):
                break
            skip.add(j)
            if POSTCODE.search(doc.lines[j].text) and j > first:
                break

    for line in doc.lines[:40]:
        m = rec.match(line.folded)
        if m and not _debris(doc, line, m):
            skip.add(line.index)
            rest = line.folded[m.end():].strip(" :")
            block_from(line.index if rest else line.index + 1)
            if line.index and _ATTENTION.match(line.folded):
                skip.add(line.index - 1)  # the company above "Attn: Dana Kowalczyk"
    # (an attention line in words no recipient's label holds: "t.a.v. Sanne de Vries" under
    # the company addressed, its address below)
    for line in doc.lines[1:20]:
        if line.index not in skip and _ATTENTION.match(line.folded):
            skip.add(line.index - 1)
            block_from(line.index)
    # (an addressee's form of address opens an address block too: "M. Grégoire Lefèvre" /
    # "7, rue Mercière" / "69002 Lyon", "Herrn" / "DI Florian Größwang" / ... / "5020 Salzburg")
    for line in doc.lines[:20]:
        if (line.index not in skip and (SALUTATION.match(line.text)
                                        or _FORM_ALONE.fullmatch(line.folded.strip()))
                and any(POSTCODE.search(below.text)
                        for below in doc.lines[line.index + 1:line.index + 5])):
            block_from(line.index)
    # (a sender line sits above the address window: in the top half, never in the footer)
    for line in doc.lines[:min(14, len(doc.lines) // 2)]:
        if ((len(SEGMENT.findall(line.text)) >= 2 or _dashed_sender(line.text)
             or _comma_sender(doc, line) or _blurred_sender(doc, line))
                and POSTCODE.search(line.text) and len(line.text) < 130
                and line.index not in skip and not opens_with_known_label(line.text)):
            # (a row of labelled dates is no sender line: "Data wystawienia: 12.10.2026 · ...")
            sender_line = line.index
            block_from(line.index + 1)
            break
    if sender_line is None and (split := _split_sender_line(doc, skip)) is not None:
        sender_line = split
        block_from(split + 2)
    return skip, sender_line


#: a whole address on one line: a street and its number, a postcode and a town
#: ("Elektronikring 1 26452 Sande", "Hauptstr. 5a, 10115 Berlin")
_ONE_LINE_ADDRESS = re.compile(
    r"[^\W\d_][^\d,]{2,40} \d{1,4}[a-z]?,? (?:[A-Z]{1,2}-)?\d{4,5} [^\W\d_][^\d]{1,30}")


def _split_sender_line(doc: Doc, skip: set[int]) -> int | None:
    """A DIN sender line a text layer broke in two: a name with its legal form over its whole
    address on one line, then the window's name and address ending in a postcode's line
    ("reichelt elektronik GmbH" / "Elektronikring 1 26452 Sande" / "ZEYTOON GMBH" /
    "UNGARGASSE 6/1" / "1030 WIEN"). The name's index, or None."""
    for line in doc.lines[1:8]:
        name = doc.lines[line.index - 1]
        if (line.index in skip or name.index in skip
                or not _ONE_LINE_ADDRESS.fullmatch(line.text)
                or legal_suffix(name.text) is None):
            continue
        window = doc.lines[line.index + 2:line.index + 5]
        if any(_CITY_LINE.match(below.text) for below in window):
            return name.index
    return None


def _debris(doc: Doc, line: Line, label: re.Match[str]) -> bool:
    """`line` is a two-letter label alone ("AN", "TO") under OCR's debris (a few letters:
    "OP"): more debris atop a photographed slip, not the start of an addressee's block; or
    the last word of a sentence broken over lines ("... wenden Sie sich bitte" / "an:")."""
    above = doc.lines[line.index - 1].text if line.index else ""
    if len(label.group(0).strip(" :")) > 2 or line.folded[label.end():].strip():
        return False
    return (len(above) <= 3 and above.isalpha()) or _SENTENCE_GOES_ON.search(above) is not None


#: a sentence that goes on below: words in small letters at the end of a long line
_SENTENCE_GOES_ON = re.compile(r".{20}\b[^\W\d_A-Z]+ [^\W\d_A-Z]+$")


#: what parts a sender line written with stars or dashes ("Name * Street * 32339 Town")
_DASHES = re.compile(r" [-–*] ")


def _dashed_sender(text: str) -> bool:
    """`text` is a sender line parted by stars or dashes, ending in a postcode and a town
    ("CPB Software (Germany) GmbH - Im Bruch 3 - 63897 Miltenberg/Main")."""
    parts = _DASHES.split(text) if " " in text else []
    return len(parts) >= 3 and _CITY_LINE.match(parts[-1]) is not None


def _blurred_sender(doc: Doc, line: Line) -> bool:
    """`line` is a sender line whose first mark OCR lost (a middle dot read as a blank): a
    name and its street, a dash, the town ("CV Sumber Energi Jl. Sudirman No. 21 - Jakarta
    10207"), above the address it was sent to (a name without digits, then a town's line
    within the next four): not a letterhead's own street and town."""
    parts = _DASHES.split(line.text)
    if len(parts) != 2 or not (_CITY_LINE.match(parts[1])
                               or _TOWN_POSTCODE.fullmatch(parts[1].strip())):
        return False
    words = parts[0].split()
    if len(words) < 4 or not address(parts[0]) or address(" ".join(words[:2])):
        return False
    return _above_an_address(doc, line)


def _comma_sender(doc: Doc, line: Line) -> bool:
    """`line` is a sender line written with commas, above the address it was sent to (a name
    without digits, then a line opening with a postcode and a town within the next four):
    not a customer's address written on one line."""
    return _COMMA_SENDER.fullmatch(line.text) is not None and _above_an_address(doc, line)


def _above_an_address(doc: Doc, line: Line) -> bool:
    """The lines under `line` are an address: a name without digits, then a town's line
    (a postcode and a town, or a town and its postcode) within the next four."""
    below = doc.lines[line.index + 1:line.index + 5]
    return (bool(below) and not any(ch.isdigit() for ch in below[0].text)
            and any(_CITY_LINE.match(b.text) or _TOWN_POSTCODE.fullmatch(b.text.strip())
                    for b in below[1:]))


def stacked_headers(ctx: Page, rec: re.Pattern[str], language: str) -> None:
    """A seller's label over a buyer's, each alone on its line ("Sprzedawca" / "Nabywca": a
    two-column header read one cell a line): the first line after them is the seller's, the
    first column's, not the buyer's."""
    lines = ctx.doc.lines
    for line in lines[:40]:
        below = line.index + 1
        if below + 1 >= len(lines) or below not in ctx.skip or line.index in ctx.skip:
            continue
        m = rec.match(lines[below].folded)
        if m is None or lines[below].folded[m.end():].strip(" :"):
            continue
        label = find_label(line.text, language)
        if label is not None and label.kind == "sender" and not label.rest:
            ctx.skip.discard(below + 1)
            ctx.sold_by.add((below + 1, 0))
            ctx.wanted.add(below + 1)


@functools.cache
def _remittance_heading(language: str) -> re.Pattern[str]:
    phrases = {p for lang in {language, "en"} for p in load(lang)["labels"].get("remittance", [])}
    return re.compile(alternation(phrases))


#: how many lines under a remittance slip's heading its "To:" may stand
_SLIP_LINES = 5
_TO = re.compile(r"to\s*:")


def remittance_payee(ctx: Page, rec: re.Pattern[str], language: str) -> None:
    """Under a remittance slip's heading ("PAYMENT ADVICE", "Remittance advice"), the "To:"
    names whom the customer pays, the seller (Xero prints the slip above its invoices): that
    line (or the one below a bare "To:") is sold by, not the recipient's."""
    lines, heading = ctx.doc.lines, _remittance_heading(language)
    for line in lines[:40]:
        if not heading.fullmatch(line.folded.strip(" :")):
            continue
        # (the "To:" under the heading, or under the slip's number, amount and date lines)
        for below in range(line.index + 1, min(line.index + 1 + _SLIP_LINES, len(lines))):
            fixed = ctx.fixed_line(below)
            m = rec.match(fold(fixed))  # (folding keeps offsets)
            # (further down only a "To:", not the slip's "Customer:")
            if m is not None and (below == line.index + 1 or _TO.match(fold(fixed))):
                break
        else:
            continue
        rest = fixed[m.end():].strip(" :")
        if rest:
            ctx.fixed[below] = rest
        else:
            below += 1
        if below < len(lines):
            ctx.skip.discard(below)
            ctx.sold_by.add((below, 0))
            ctx.wanted.add(below)


#: what a line holding a label and its value has, a name alone has not
_LABEL_MARKS = re.compile(r"[:#]")


def customer_under_title(ctx: Page, title: int) -> None:
    """A name alone right under the title at the top ("TAX INVOICE" / "Gorilla Grind"), with the
    invoice's date and number labels after it instead of an address, while a name further down
    has a postcode's line of its own: the customer, printed first (Xero's layout), the seller
    below the labels. The name's line is the recipient's."""
    lines = ctx.doc.lines
    name = title + 1
    if (name + 2 >= len(lines) or name in ctx.skip or _LABEL_MARKS.search(lines[name].text)
            or opens_with_known_label(lines[name].text)
            or not opens_with_known_label(lines[name + 1].text)):
        return
    if any(POSTCODE.search(line.text) and line.index not in ctx.skip
           for line in lines[name + 3:name + 20]):
        ctx.skip.add(name)


def address_under_title(ctx: Page, title: int) -> None:
    """A name and its address right under the title ("LASKU" / "Tietotoimisto Mäkelä &
    Härkönen Oy" / "Hämeenkatu 25 B" / "33200 Tampere"), the date's and number's labels
    after it, with no phone, e-mail or registration of its own, on a page where no recipient's
    block was found and a company signs the footer with its legal form and registration: the
    customer's, where a window envelope shows it; the seller is the footer's."""
    lines = ctx.doc.lines
    first = title + 1
    if ctx.skip or first + 3 >= len(lines) or any(map(str.isdigit, lines[first].text)):
        return
    end = next((j for j in range(first + 1, min(first + 5, len(lines)))
                if POSTCODE.search(lines[j].text)), None)
    if end is None or end + 1 >= len(lines) or not opens_with_known_label(lines[end + 1].text):
        return
    if any(PHONE.search(line.text) or "@" in line.text or ctx.registration.search(line.folded)
           for line in lines[first:end + 1]):
        return
    if any(legal_suffix(line.text) is not None and ctx.registration.search(line.folded)
           for line in lines[max(end + 4, len(lines) - 5):]):
        ctx.skip.update(range(first, end + 1))


def customer_under_letterhead(ctx: Page, language: str) -> None:
    """A name alone right under the title ("Factuur F/2026/00164" / "RUBY-TOYS B.V.") that
    follows a whole letterhead (a name without digits, then its address down to a postcode's
    line: "Vossepoel Group" / "Leo Driessenstraat 3" / "6006 JV Weert"): the customer, the
    page's second name; its line is the recipient's."""
    lines = ctx.doc.lines
    if len(lines) < 6 or 0 in ctx.skip or any(map(str.isdigit, lines[0].text)):
        return
    for title in range(2, 6):
        line = lines[title]
        if title + 1 >= len(lines) or not POSTCODE.search(lines[title - 1].text):
            continue
        name = lines[title + 1]
        if (type_pattern(language).match(line.folded) is not None and len(line.text) <= 40
                and name.index not in ctx.skip and not any(map(str.isdigit, name.text))
                and not opens_with_known_label(name.text) and ":" not in name.text):
            ctx.skip.add(name.index)
        return


#: a label of the reader's own number opening a line, folded: "Ihre Kunden-Nr.:", "Your
#: customer no.", "Votre n° client", "Uw klantnummer", "Ihre USt-IdNr."; or the customer's
#: number under its own label: "Customer ID", "Kunden-Nr.", "N° client", "Klantnummer",
#: "Číslo zákazníka" ("cislo zakaznika"), "Número de cliente"
_YOUR_NUMBER = re.compile(r"(?:your|ihre?|votre|vos|uw|su|vostro|vostra|seu|sua|din|ditt)\s"
                          r"[^:\d]{0,30}?(?:n[ro°º]\b|no\b|number|nummer|numero|id\b|idnr|ust)"
                          r"|(?:customer|client|kunden?|klant|cliente|kund|asiakas|zakaznik)"
                          r"[ -]?(?:id\b|n[ro°º]\b|no\b|number|nummer|numero|nr\.?)"
                          r"|(?:n[°º]|numero|numer|cislo)\s?(?:de\s)?"
                          r"(?:client|cliente|klienta|zakaznika)\b")


#: a row of the first column opening a line: a label, its value (a number, a date's first
#: part), then what a second column printed beside it ("Číslo zákazníka: 78065 Svoboda s.r.o.")
_LABEL_VALUE_REST = re.compile(r"[^\W\d][^:]{1,40}:\s*\S*\d\S*\s+(\S.{2,})")
#: rows of a second column's block read after its heading
_SECOND_COLUMN_ROWS = 3


def customer_in_second_column(ctx: Page, heading_end: re.Pattern[str]) -> None:
    """A recipient's label ending a line that opens with another label and its value
    ("Číslo faktury: INV2024-57733 Odběratel:"): a second column's heading read onto the
    first column's row, so the next rows, which end in the customer's block after their own
    label and value ("Číslo zákazníka: 78065 Svoboda Tiskárna s.r.o."), are the customer's
    lines for the issuer. `heading_end` matches a recipient's label and its colon ending a
    folded text."""
    lines = ctx.doc.lines
    for line in lines[:20]:
        head = heading_end.search(line.folded)
        if head is None or head.start() == 0 or ":" not in line.folded[:head.start()]:
            continue
        for row in lines[line.index + 1:line.index + 1 + _SECOND_COLUMN_ROWS]:
            if not _LABEL_VALUE_REST.fullmatch(row.text.strip()):
                break
            ctx.skip.add(row.index)


def customer_above_your_number(ctx: Page) -> None:
    """A name opening the page with its address down to a postcode's line, followed by the
    reader's own numbers ("Artesta Store, S.L." / ... / "08035 Barcelona" / "Spanien" /
    "Ihre Kunden-Nr.: 90698"), while the page's web or e-mail addresses spell another name:
    the block is the customer's (a bill whose sender shows only in its logo and its site)."""
    lines = ctx.doc.lines
    if not ctx.domains or len(lines) < 5 or 0 in ctx.skip or any(map(str.isdigit,
                                                                      lines[0].text)):
        return
    k = key(lines[0].text)
    if any(d in k or k[:6] in d for d in ctx.domains):
        return  # the sender's own letterhead
    postcode = next((i for i in range(1, 6) if POSTCODE.search(lines[i].text)), None)
    if postcode is None:
        return
    if any(_YOUR_NUMBER.match(lines[j].folded) for j in range(postcode + 1, postcode + 6)
           if j < len(lines)):
        ctx.skip.update(range(postcode + 1))


@functools.cache
def _direct_debit() -> re.Pattern[str]:
    """A direct debit's words in every lexicon language (`direct_debit_words`)."""
    return re.compile(alternation(common()["direct_debit_words"]))


def payers(doc: Doc, language: str) -> set[str]:
    """The key()s of the names after a seller's label ("Account name") under a direct debit:
    the customer's, wherever else they stand."""
    out: set[str] = set()
    if not _direct_debit().search(doc.folded):
        return out  # (the quick test)
    debits = [line.index for line in doc.lines if _direct_debit().search(line.folded)]
    for index in dict.fromkeys(i for d in debits for i in range(d, d + 4)):
        label = find_label(doc.lines[index].text, language) if index < len(doc.lines) else None
        if label is not None and label.kind == "sender" and len(key(label.rest)) >= 4:
            out.add(key(label.rest))
    return out


def direct_debit_above(doc: Doc, line: Line) -> bool:
    """A direct debit is named on `line` or the three above it: the account that follows is
    the one the bill is debited from, the customer's."""
    return any(_direct_debit().search(above.folded)
               for above in doc.lines[max(0, line.index - 3):line.index + 1])
