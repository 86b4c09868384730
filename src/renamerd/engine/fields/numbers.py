"""Document numbers: an invoice's (after its labels, in every lexicon language), an order's."""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, replace

from renamerd.engine.fields.columns import date_cell
from renamerd.engine.fields.date_labels import label_pattern
from renamerd.engine.fields.doctype import label_kind, type_pattern
from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.names import address_words
from renamerd.engine.fields.places import street_named
from renamerd.engine.lexicon import alternation, common, fold, kin, load

#: a code: letters and digits, joined by "-", "/", ".", "_" (a UUID's 36 characters too)
_CODE = r"[A-Za-z0-9][A-Za-z0-9\-/._]{0,38}[A-Za-z0-9]"
# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX0 = re.compile(r"[ \t]+")
_VALUE = re.compile(
    # digits in groups with single blanks, as telecoms and shops print them ("987 654 3210",
    # "1 24 0005 0001201345"), first
    r"\d{1,6}(?: \d{2,12}){1,4}(?![\w.,/:-])"
    # a document series and its number, as Portugal's certified invoicing writes them
    # ("FT 2024/1532", "FR A1/87"), and Polish invoicing ("F 1234K20/1234/12")
    r"|[A-Z]{1,3} [A-Z0-9]{1,20}(?:/[A-Z0-9]{1,10}){1,3}(?![\w/])"
    # a series code (with its year), a spaced dash or slash and the number ("ACPIT - 311630",
    # "FAC-2026 / 8740")
    r"|[A-Z]{2,6}(?:-\d{4})? [-–/] \d{3,12}(?![\w/.,-])"
    # Stripe's invoice number, its hyphen read as a blank by text layers ("3466BF65 0030")
    r"|[0-9A-F]{8} \d{4}(?![\w/.,-])"
    # a series code and the number, a blank apart, its digits maybe in groups ("IGNIS
    # 260266119", "A 260266119", "RE 2026 118 40573"; not a currency and an amount)
    r"|(?!(?:EUR|USD|GBP|CHF|PLN|CZK|SEK|NOK|DKK) )[A-Z]{1,6} \d{4,12}(?: \d{2,12}){0,3}"
    r"(?![\w/.,-])"
    rf"|{_CODE}|[0-9]")
#: (the same label in a second language after a slash: "N° / Nr : VD-2025-00311", "Invoice
#: No. / बीजक सं .: TIPL/25-26/0893")
_NUMBER_GAP = re.compile(r"[\s:.,#°º\-|=：＃№*)\]]*(?:(?:/\s*)?(?:no|nr|n|num|number|nummer|numero"
                         r"|číslo|č)\.?[\s:.#°º]+|/[^\d:/\n]{1,30}:\s*)?", re.I)
_WORD_BEFORE = re.compile(r"[^\W\d_]+$")
#: what follows a value that is an amount's whole part, or an amount: its decimals after a
#: comma, or a currency
_AMOUNT_AFTER = re.compile(r",\d{2}(?!\d)|\s?(?:€|\$|£|EUR|USD|GBP|CHF)(?!\w)")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


#: the most a label that is also a document's title scores (a specific label scores 5)
TITLE_SCORE = 4.0
#: an order's number: the document's number only when it has no other (an order's page, a
#: web shop's receipt), below a weak label ("No.", 2.5)
ORDER_SCORE = 1.0
#: what a value printed again under another label gains
REPEATED = 0.25
#: the document types whose number an order's number may be: the order's own page or
#: confirmation, a web shop's receipt for it, an unnamed kind (an invoice has a number of its
#: own, and a reminder or a delivery note merely refers to the order)
ORDER_NUMBERED = frozenset({"order_confirmation", "receipt", "other"})
#: the papers whose type's words before a short label ("Hyvityslasku nro") name their own
#: number (a policy's or a contract's number is another's)
OWN_NUMBERED = frozenset({"invoice", "receipt", "credit_note", "reminder", "quote",
                          "order_confirmation", "delivery_note"})


@dataclass(frozen=True)
class NumberCandidate:
    value: str
    line: Line
    score: float
    label: str
    #: after an order's number label: the document's own number only on a document about
    #: that order (see ORDER_NUMBERED)
    order: bool = False


def _abbreviated(phrases: list[str]) -> list[str]:
    """`phrases` and each "...nummer" label as Germanic and Nordic pages shorten it
    ("Kvittonummer": "Kvittonr", "Kvitto-nr", "Kvittonr.", and its two words written apart,
    "Rechnungs Nr"), and each "... nr" label written with a hyphen ("Gutschrift nr":
    "Gutschrift-Nr.")."""
    short = [f"{p[:-6]}{end}" for p in phrases if p.endswith("nummer") and len(p) >= 9
             for end in ("nr", "-nr", "nr.", " nr")]
    hyphened = [f"{p[:-3]}-nr{end}" for p in phrases if p.endswith(" nr") and len(p) >= 6
                for end in ("", ".")]
    return list(dict.fromkeys([*phrases, *short, *hyphened]))


@functools.cache
def _number_labels(language: str) -> tuple[re.Pattern[str], set[str], set[str], set[str]]:
    """(every number label as one pattern, the specific invoice-number labels, the weak ones
    ("no", "nr"), an order's number labels); other numbers' labels (a customer's, a VAT id's)
    are in the pattern so that the weak labels inside them are not taken for a number's."""
    strong: set[str] = set()
    weak: set[str] = set()
    other: set[str] = set()
    orders: set[str] = set()
    for lang in dict.fromkeys((language, "en", *kin(language))):
        labels = load(lang)["labels"]
        titles = {fold(p.lstrip("^*")) for ps in load(lang)["types"].values() for p in ps}
        for p in _abbreviated(labels["invoice_number"]):
            if lang == language or lang == "en" or len(p) > 6:
                # Chinese, Japanese and Korean labels are short in characters, not in meaning;
                # a type's word and a number's is specific however short ("Fiş No")
                specific = (len(p) > 7 or "#" in p or (len(p) >= 3 and _UNSPACED.search(p))
                            or (" " in p and fold(p).split()[0] in titles))
                (strong if specific else weak).add(fold(p))
        for p in labels["other_number"]:
            if lang == language or lang == "en" or len(p) > 5:
                other.add(fold(p))
        for p in _abbreviated(labels.get("order_number", [])):
            if lang == language or lang == "en" or len(p) > 5:
                orders.add(fold(p))
    # (a label ending in "#" may touch its number: "Receipt #2931", which the whole-word
    # alternation would not match)
    # (and "Invoice#" for "Invoice #": the blank before the sign dropped)
    hashed = sorted({v for p in strong | weak | orders if p.endswith("#")
                     for v in (p, p.replace(" #", "#"))}, key=len, reverse=True)
    touching = r"|(?<!\w)(?:" + "|".join(map(re.escape, hashed)) + ")" if hashed else ""
    # (a label ending in an abbreviation's dot, its number run into it, is tried first: the
    # whole-word alternation would take a shorter label inside it: "nr" of "nr wydr.077614")
    dotted = sorted((p for p in strong | weak | orders if p.endswith(".")), key=len, reverse=True)
    glued = r"(?<!\w)(?:" + "|".join(map(re.escape, dotted)) + r")(?=[^\W_])|" if dotted else ""
    pattern = re.compile(glued + alternation(strong | weak | other | orders) + touching)
    return pattern, strong, weak, orders


@functools.cache
def _title_labels(language: str) -> frozenset[str]:
    """The number labels that are a document's title word, which longer labels extend
    ("Rechnung" of "Rechnungsnummer", "Invoice" of "Invoice number"): "Rechnung LU-BIO-04" may
    be a heading beside a code; "Rechnungsnummer DE37ST38" says what follows."""
    types: set[str] = set()
    labels: set[str] = set()
    for lang in dict.fromkeys((language, "en", *kin(language))):
        table = load(lang)
        for phrases in table["types"].values():
            types.update(fold(p.lstrip("^")) for p in phrases)
        labels.update(fold(p) for p in table["labels"]["invoice_number"])
    return frozenset(label for label in labels & types if " " not in label
                     and any(other != label and other.startswith(label) for other in labels))


def _inside_date_label(folded: str, label: re.Match[str], language: str) -> bool:
    """The number label `label` is part of a longer date label on its line (looked for
    around it only, as far as the longest date label reaches: a line may be a whole
    document's text)."""
    dates, _kinds, longest = label_pattern(language)
    return any(d.start() <= label.start() and label.end() <= d.end()
               and d.end() - d.start() > label.end() - label.start()
               for d in dates.finditer(folded, max(0, label.start() - longest),
                                       label.end() + longest))


def _spaced_sign(label: str) -> str:
    """A label's sign written apart, as the lexicon has it ("invoice#" -> "invoice #")."""
    if label.endswith("#") and not label.endswith(" #"):
        return label[:-1] + " #"
    return label


def invoice_number_label_at_end(text: str, language: str) -> bool:
    """`text` (folded) ends with a specific invoice-number label and a value after it
    ("facture n° 562044387 ", "invoice no. a-17 "), or it is a weaker one and a value, all
    of it ("facture fac0049472 "). Pure."""
    pattern, strong, weak, _orders = _number_labels(language)
    tail = text[-60:]
    for m in pattern.finditer(tail):
        label = _spaced_sign(_RX0.sub(" ", m.group(0)))
        if label not in strong and not (m.start() == 0 and len(tail) == len(text)
                                        and label in weak):
            continue
        gap_m = _NUMBER_GAP.match(tail, m.end())
        offset = gap_m.end() if gap_m else m.end()
        vm = _VALUE.match(tail, offset)
        if vm and any(ch.isdigit() for ch in vm.group(0)) and not tail[vm.end():].strip():
            return True
    return False


@functools.cache
def _other_words_before() -> re.Pattern[str]:
    """A word saying which other number a weak label's ("No.") is, at most three words before
    it: an authorisation's, a licence's (`other_number_words` in common.json)."""
    words = alternation(common()["other_number_words"])
    return re.compile(rf"(?:{words})(?:\s+[^\W\d_]+){{0,2}}\s*$")


#: a trade registry's volume before a label ("Tomo 10.482, Folio 77, Hoja V-183204")
_REGISTRY_BEFORE = re.compile(r"(?<![^\W\d_])tomo\s+[\d.]+,?\s*(?:libro\s+[\d.]+,?\s*)?$")


def _house_number(folded: str) -> bool:
    """The line is an address: a street's or a building's word is on it."""
    return street_named(folded) or address_words().search(folded) is not None


#: one code alone before a label ending its line
_VALUE_BEFORE = re.compile(rf"{_CODE} ")


#: a label ending in a number's own word ("faktura nr", "invoice no.", "n°", "#")
_NUMBERS_WORD = re.compile(r"(?<![^\W\d_])(?:nr|no|n[°º]|number|nummer|numero|cislo|numara|nro)"
                           r"\.?$|#$")


def invoice_numbers(doc: Doc, language: str) -> list[NumberCandidate]:
    """Values following an invoice-number label (same line or the line below), best first."""
    pattern, strong, weak, orders = _number_labels(language)
    titles = _title_labels(language)
    out: list[NumberCandidate] = []
    for line in doc.lines:
        address: bool | None = None  # (the line is an address: found once, when needed)
        for m in pattern.finditer(line.folded):
            label = _spaced_sign(_RX0.sub(" ", m.group(0)))
            if label not in strong and label not in weak and label not in orders:
                continue
            # (a short label after a type's words says whose number it is, "Faktura
            # korygująca nr" on a sender line: no house's number)
            typed = _type_before(line.folded, m.start(), language) if label in weak else ""
            if label in weak and address is None and not typed:
                address = _house_number(line.folded)
            if _names_another_number(line.folded, m, label, (strong, weak),
                                     label in weak and bool(address) and not typed, language):
                continue
            # (matched in place: slicing the rest of the line for every label is quadratic)
            gap_m = _NUMBER_GAP.match(line.text, m.end())
            offset = gap_m.end() if gap_m else m.end()
            vm = _VALUE.match(line.text, offset)
            source_line = line
            if not vm and label in strong and offset >= len(line.text):
                # (a value a text layer wrote before its label: "IEE2026001813920 Número de
                # factura", a right-aligned column read first)
                vm = _VALUE_BEFORE.fullmatch(line.text[:m.start()])
            if not vm and offset >= len(line.text) and line.index + 1 < len(doc.lines):
                source_line = doc.lines[line.index + 1]
                vm = _VALUE.match(source_line.text)
            if not vm:
                continue
            value = vm.group(0).rstrip("./-_ ")
            if not _number_value(value, vm, source_line, label, source_line is line):
                continue
            value = _as_printed_elsewhere(value, doc)
            score = 5.0 if label in strong else 2.5 if label in weak else ORDER_SCORE
            if label in titles:
                score = min(score, TITLE_SCORE)
            if source_line is not line:
                score -= 1.0
            score -= 0.3 * min(line.index, 10) / 10
            if line.page > 1:
                score -= 0.5
            out.append(NumberCandidate(value, source_line, score,
                                       f"{typed} {m.group(0)}" if typed else m.group(0),
                                       label in orders))
    out.extend(_signed_lines(doc, language))
    out.extend(_titled_numbers(doc, language, strong | weak | orders))
    if language == "pt":
        out.extend(_certified_codes(doc))
    # (a value printed under two labels is surer: a title's and a slip's, "NÚMERO: 788" and
    # "PROTOCOLO DE ENTREGA DA FATURA Nº: 788", beside a contract's "Nº 702")
    counts = Counter(c.value for c in out)
    out = [replace(c, score=c.score + REPEATED) if counts[c.value] > 1 else c for c in out]
    out.sort(key=lambda c: (-c.score, c.line.index))
    return out


def _type_before(folded: str, at: int, language: str) -> str:
    """The words of a numbered paper's type ending right before `at` in `folded` ("faktura
    korygujaca" of "Faktura korygująca nr"; not a policy's or a contract's), or ""."""
    before = folded[max(0, at - 40):at].rstrip()
    found = [m for m in type_pattern(language).finditer(before) if m.end() == len(before)]
    if not found or label_kind(found[-1].group(0), language) not in OWN_NUMBERED:
        return ""
    return found[-1].group(0)


def _names_another_number(folded: str, m: re.Match[str], label: str,
                          labels: tuple[set[str], set[str]], on_address: bool,
                          language: str) -> bool:
    """The label at `m` in a line's `folded` text (`labels`: the strong and the weak ones) is
    another paper's or thing's: a date's label ("Date de la facture", "Rechnung vom"), a weak
    label on an address's line (`on_address`: "Jl. Sudirman No. 1"), a trade registry's folio
    ("Tomo 10.482, Folio 77"), a weak label after an authorisation's or licence's word
    ("Autorización facturación electrónica No. ..."), a weak label hyphened to a word that
    makes no number label of ours ("Karten-Nr.", "UID-Nr.")."""
    if _inside_date_label(folded, m, language) or on_address:
        return True
    if _REGISTRY_BEFORE.search(folded, 0, m.start()):
        return True
    strong, weak = labels
    if label in weak:
        if _other_words_before().search(folded, 0, m.start()):
            return True
        if folded[m.start() - 1:m.start()] == "-":
            word = _WORD_BEFORE.search(folded, 0, m.start() - 1)
            return word is None or (f"{word.group(0)} {label}" not in strong
                                    and f"{word.group(0)} {label}" not in weak)
    return False


def _number_value(value: str, vm: re.Match[str], line: Line, label: str, same_line: bool) -> bool:
    """`value` (matched by `vm` on `line`) may be a number: it holds a digit; it is no date
    but right after a number's own word on the label's line ("FAKTURA nr 7/04/2026", the
    seventh of April's invoices); no label follows it ("S1ip:", a misread "Slip:"); no amount
    ("TOTAL IMPORTE FACTURA 112,30 €"); two characters only when digits."""
    if not any(ch.isdigit() for ch in value):
        return False
    if date_cell(value) and (not same_line or not _NUMBERS_WORD.search(label)):
        return False
    if line.text[vm.end():vm.end() + 1] == ":" or _AMOUNT_AFTER.match(line.text, vm.end()):
        return False
    return len(value) >= 3 or value.isdigit()


def _as_printed_elsewhere(value: str, doc: Doc) -> str:
    """`value` with its letter O read as 0 where the page prints it so elsewhere (OCR's
    "O5EA1062-0039" under its label, "05EA1062-0039 - $29.97 due" in the footer)."""
    if "O" not in value:
        return value
    zeros = value.replace("O", "0")
    return zeros if zeros in doc.text else value


#: a line that is a number sign and one code holding a digit ("# AETI2324/0119", as Zoho
#: prints an invoice's number under its title)
_SIGNED = re.compile(rf"#\s?({_CODE})\s*")
#: how far down a page that line is its number
_SIGNED_LINES = 10


#: a Portuguese certified program's document code, its type, series and number ("FT
#: 2026/118", "FR A2026/1187", "NC FT26/7"), at a cell's start: SAF-T's invoices (FT, FR,
#: FS), notes (NC, ND), guides (GR, GT, GD), receipts (RC, RG), quotes (OR, PF), orders (NE)
_CERTIFIED = re.compile(r"(?:^|(?<=\| ))((?:FT|FR|FS|NC|ND|GR|GT|GD|RC|RG|OR|PF|NE) [A-Z0-9]{1,12}"
                        r"/\d{1,10})(?![\w/])")
#: the unique code ATCUD that ends in the document's number ("JJ7K4M2P-118")
_ATCUD = re.compile(r"(?<![\w-])[A-Z0-9]{8}-(\d{1,10})(?![\w-])")
#: the first lines where a certified code opening a cell is the document's own (the header)
CERTIFIED_LINES = 20


def _certified_codes(doc: Doc) -> list[NumberCandidate]:
    """A Portuguese bill's document code opening a cell near the top without a label (a row
    of values under "Fatura Data Vencimento ..."): scored as a title's label; the surer when
    the page's ATCUD ends in its number."""
    atcud = {m.group(1).lstrip("0") for m in _ATCUD.finditer(doc.text)}
    out = []
    for line in doc.lines[:CERTIFIED_LINES]:
        for m in _CERTIFIED.finditer(line.text):
            number = m.group(1).rsplit("/", 1)[1].lstrip("0")
            score = TITLE_SCORE + (REPEATED if number in atcud else 0.0)
            out.append(NumberCandidate(m.group(1), line, score, "series"))
    return out


def _signed_lines(doc: Doc, language: str) -> list[NumberCandidate]:
    """The number of a line that is "#" and a code (see _SIGNED), near the top or right under
    the title ("TAX INVOICE" / "# INV-1229" after the totals a text layer wrote first): scored
    as a title's label."""
    out = []
    for line in doc.lines:
        if not line.text.startswith("#"):
            continue
        m = _SIGNED.fullmatch(line.text)
        if not m or not any(ch.isdigit() for ch in m.group(1)) or date_cell(m.group(1)):
            continue
        above = doc.lines[line.index - 1].folded.strip() if line.index else ""
        if line.index < _SIGNED_LINES or type_pattern(language).fullmatch(above):
            out.append(NumberCandidate(m.group(1), line, TITLE_SCORE, "#"))
    return out


#: a code after a title, alone with it on its line ("Auftragsbestätigung AB-26-00731",
#: "NOTE DE CRÉDIT NC-26-0058", a Portuguese "Nota de Crédito NC 2026/37"), maybe after a
#: number's word
_TITLE_CODE = re.compile(rf"\s*(?:(?:nr|no|n[°º]|#)\.?\s*)?"
                         rf"([A-Z]{{2}} [A-Z0-9]{{1,12}}/\d{{1,10}}|{_CODE})\s*")
#: how far down page 1 such a title stands
TITLED_LINES = 30


def _titled_numbers(doc: Doc, language: str, labels: set[str]) -> list[NumberCandidate]:
    """The code following a numbered paper's title alone on its line near the top of page 1,
    where the title is no number label of ours (`labels`): scored as a title's label, its
    label the title (so its type is known: a credit note's own number)."""
    out = []
    for line in doc.lines[:TITLED_LINES]:
        m = type_pattern(language).match(line.folded)
        if line.page != 1 or m is None or _RX0.sub(" ", m.group(0)) in labels:
            continue
        code = _TITLE_CODE.fullmatch(line.text, m.end())
        if (code is None or not any(ch.isdigit() for ch in code.group(1))
                or date_cell(code.group(1))
                or label_kind(m.group(0), language) not in OWN_NUMBERED):
            continue
        out.append(NumberCandidate(code.group(1), line, TITLE_SCORE, m.group(0)))
    return out


def number_confidence(cands: list[NumberCandidate]) -> float:
    if not cands:
        return 0.0
    top = cands[0]
    rival = next((c for c in cands[1:] if c.value != top.value), None)
    conf = 0.92 if top.score >= 4 else 0.6
    if rival is not None and top.score - rival.score < 1.0:
        conf -= 0.25
    return max(0.05, conf)
