"""How likely a line of a page is to be its issuer's name: what speaks for it (the sender
line, a legal form, a letterhead's rank, a registration id nearby, a seller's label, the name
repeated or matching an e-mail domain) and what speaks against it (a sentence, an amount, an
address, a bank, a document word...). fields/issuer.py finds the candidate lines and their
extent; the scores are here. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from renamerd.engine.fields.date_labels import month_table
from renamerd.engine.fields.dates import month_after_colon
from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.issuer_labels import GREETING, SALUTATION, SENTENCE_WORDS
from renamerd.engine.fields.names import (
    BRAND_NUMBER,
    address_words,
    all_capitals,
    business_words,
    fix_ocr_suffixes,
    garbage,
    name_words,
    never_names,
    short_name,
)
from renamerd.engine.fields.places import BANKISH, PHONE, POSTCODE, address
from renamerd.engine.lexicon import fold

MIN_SCORE = 1.0  # below this a line is no evidence of an issuer at all
#: a bank's name among the letterhead's first lines (by rank) is the sender's, not where to pay
BANK_LETTERHEAD = 2
#: a run of three letters or more (a word)
LETTER_RUN = re.compile(r"[^\W\d_]{3,}")
#: a web address ("https://", "www.", or a domain with a path: "boltra.eu/pl/support")
_RX4 = re.compile(r"https?://|www\.|[^\W\d_]\.[a-z]{2,6}/[a-z]")
_RX5 = re.compile(r"\d[.,]\d{2}\b")
_RX6 = re.compile(r"\s:\s*\S|[^\W\d_]{2}\s?:\s*\d")
_NOT_KEY = re.compile(r"[^0-9a-z]+")
_DOMAIN_TOKEN = re.compile(r"\w\.(?:com|net|org|co|de|fr|es|it|nl|pl|se|dk|no|fi|cz|my|uk|eu)\b",
                           re.I)

#: a row of an items table: position, a description of one to three words, a quantity
#: ("4 Bâtiment 15" where a text layer drew the table's columns apart)
_TABLE_ROW = re.compile(r"\d{1,3}(?: [^\W\d_][\w.&'-]*){1,3} \d+(?:[.,]\d+)?")

#: a group in round brackets without brackets inside (checked for a digit by the caller: one
#: pattern "[^..]*\d[^..]*" tries every split of an unclosed run, 17 s for 20,000 characters)
BRACKETED = re.compile(r"\([^()]*\)")


def key(text: str) -> str:
    """`text` folded, with only its letters and digits: how names are compared."""
    return _NOT_KEY.sub("", fold(text))


@dataclass(frozen=True)
class IssuerCandidate:
    """A name for the sender: its `value`, the `line` it stands on, its `score` and the
    `reasons` for it (shown as the rename's evidence)."""

    value: str
    line: Line
    score: float
    reasons: tuple[str, ...]


@dataclass
class Page:
    """What the scoring of every segment shares: computed once per document."""

    doc: Doc
    sender_line: int | None
    reg_lines: set[int]
    all_keys: str
    domains: list[str]
    vocab: re.Pattern[str]
    skip: set[int]
    wanted: set[int]
    rank: dict[int, int]
    registration: re.Pattern[str]
    body: set[int]
    #: the first letterhead line that is an address or a phone (lines below it in the
    #: letterhead are the address block, unless they carry a legal form)
    address_from: int | None = None
    fixed: dict[int, str] = field(default_factory=dict)
    #: lines that name a company just before its legal details
    legal_named: set[int] = field(default_factory=set)
    #: (line, segment) pairs that follow a seller label / an operating company's label / that
    #: are the name in a team's sign-off ("Your A&O Team")
    sold_by: set[tuple[int, int]] = field(default_factory=set)
    operated_by: set[tuple[int, int]] = field(default_factory=set)
    signed_by: set[tuple[int, int]] = field(default_factory=set)
    #: (line, segment) pairs holding a copyright notice ("© 1996-2023, Amazon.com, Inc.")
    noticed: set[tuple[int, int]] = field(default_factory=set)
    #: key() of the persons named after a contact's or a reference's label
    persons: set[str] = field(default_factory=set)
    #: the document's language (the lexicon's code)
    language: str = "en"
    #: what may name the buyer: its recipient blocks' lines, each up to its first comma
    buyers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.domain_keys = [d.replace("-", "") for d in self.domains]

    def fixed_line(self, index: int) -> str:
        """Line `index` with its legal forms' OCR slips fixed (computed once)."""
        text = self.fixed.get(index)
        if text is None:
            text = self.fixed[index] = fix_ocr_suffixes(self.doc.lines[index].text)
        return text


#: a business's founding year, as letterheads print it beside the name
#: (folded: "fondée" is "fondee")
_FOUNDED = re.compile(r"(?:since|est\.?|established|founded(?: in)?|seit|gegrundet|depuis|"
                      r"fondee? en|desde|dal|sinds|opgericht in|od roku|od|sedan|siden|"
                      r"vuodesta|kurulus)\s+(?:1[6-9]|20)\d\d")
#: a page's number ("Page 1 of 2", "Seite 1 von 2", "Página 1 de 2", "Strona 1 z 2")
_PAGE_NUMBER = re.compile(
    r"(?:page|seite|página|pagina|pag\.|strona|sida|side|sivu|strana|stránka|sayfa|halaman|"
    r"blad|blatt|feuille|hoja|foglio)(?:\s*\d+\s*(?:of|von|de|di|z|ze|av|af|sur|van|/|aus|"
    r"fra|/)\s*\d+)?", re.I)


#: letters OCR reads for others in document words: "INUOICE", "1NVOICE", "0RDER"
_OCR_LOOKALIKES = str.maketrans("u015", "vois")


#: a letter four times running ("LEESEEEEEEE"); inside a longer word no name is spelled so
_STUTTER = re.compile(r"([^\W\d_])\1{3,}")


def _stutters(folded: str) -> bool:
    """A word holds a letter four times running and other letters too (OCR's noise; "AAAA"
    alone may be a name)."""
    for m in _STUTTER.finditer(folded):
        before = folded[m.start() - 1:m.start()]
        after = folded[m.end():m.end() + 1]
        if before.isalpha() or after.isalpha():
            return True
    return False


def vetoed(value: str, vocab: re.Pattern[str]) -> bool:
    """What can never be a name: too short or long, debris (letters under 60%), a document
    word alone, a phone number, an e-mail address or a web address, a table's column heading
    (or a row of them) or a country's name alone, a page's number or the word "page" alone,
    a month's name and a day, OCR's noise (a letter four times running in a word)."""
    if len(value) < 2 or len(value) > 80 or (garbage(value) and not short_name(value)):
        return True
    if _PAGE_NUMBER.fullmatch(value):
        return True
    folded = fold(value)
    if vocab.fullmatch(folded.strip(" .:")) or PHONE.search(value) or "@" in value:
        return True
    if any(ch in folded for ch in "u015") and vocab.fullmatch(
            folded.translate(_OCR_LOOKALIKES).strip(" .:")):
        return True  # a document word as OCR misreads it ("TAX INUOICE")
    if _RX4.search(folded) or folded.strip(" .:,") in never_names():
        return True
    if _stutters(folded):
        return True  # OCR's noise of a smudge or a logo ("LEESEEEEEEE IChk Copy 31 SRL")
    words = [w.strip(".:,") for w in folded.split()]
    if len(words) == 2 and _month_and_day(words):
        return True  # a date ("October 22", "22 Okt.")
    if _FOUNDED.fullmatch(folded):
        return True  # a letterhead's "Depuis 1924", "Since 1897", "Seit 1962"
    if branch_line(value):
        return True  # a branch under the brand ("Station Hamm-Süd", "Filiale Köln-Deutz")
    # a row of column headings ("UND PVP", "DESCRIPTION QUANTITY")
    return len(words) >= 2 and all(w in never_names() for w in words)


#: a branch's word and its place, nothing else ("Station Hamm-Süd", "Filiale Lüneburg Am
#: Sande", "Branch: Orchard Road")
_BRANCH_LINE = re.compile(
    r"(?i:station|filiale|filiaal|filial|branch|tankstelle|succursale|sucursal|oddzia[lł]|"
    r"pobočka|outlet):?\s+[^\W\d_][\w.'-]*(?:[ -][^\W\d_][\w.'-]*){0,2}")


def branch_line(text: str) -> bool:
    """`text` is a branch's word and its place, a line under a shop's brand that names no
    one ("Station Café" is a café's name: a kind of business after the word)."""
    text = text.strip()
    return (_BRANCH_LINE.fullmatch(text) is not None
            and not business_words().search(fold(text).split(" ", 1)[1]))


def _month_and_day(words: list[str]) -> bool:
    """Two folded words that are a month's name and a day of it, in either order."""
    month, day = words if words[0] in month_table() else words[::-1]
    return month in month_table() and day.isdigit() and 1 <= int(day) <= 31


#: what comes before a unit ("PR.KG", "per KG", "0,270KG")
_PER_UNIT = re.compile(r"(?:\b(?:pr|per)\.?\s*|\d\s*)$", re.I)


def weak_suffix(suffix: re.Match[str], value: str) -> bool:
    """A two-letter form ("SE", "AG", "SA") in an address line is a word of the address (after
    a comma, a state's or a province's code: "Edmonton, AB"); in a unit ("€/KG") or after a
    table's headings only ("DESCRIPTION QUANTITY KG"), a unit."""
    if len(suffix.group(0).strip(". ")) > 2:
        return False
    form = suffix.group(0).strip()
    before = value[:-len(form)] if value.endswith(form) else value
    words = fold(before).split()
    # (after a comma: a state, province or canton, "Edmonton, AB", "Baden, AG")
    return (before.endswith(("/", ", ")) or _PER_UNIT.search(before) is not None
            or bool(words) and all(w in never_names() for w in words)
            or bool(address_words().search(value) or address(value)))


def merits(ctx: Page, line: Line, value: str, suffix: re.Match[str] | None, seg_no: int,
            reasons: list[str]) -> float:
    """What speaks for `value` as the issuer (reasons appended to `reasons`)."""
    score = 0.0
    if (line.index, seg_no) in ctx.sold_by and not _addressee(ctx, value):
        score += 4.0
        reasons.append("after a seller label")
    if (line.index, seg_no) in ctx.signed_by:
        score += 4.0
        reasons.append("signs as its team")
    if line.index in ctx.legal_named and seg_no == 0:
        score += 4.5  # a customer's capital or registered office is never printed
        reasons.append("named with its legal details")
    if (line.index, seg_no) in ctx.noticed:
        score += 4.5  # nor is a customer named in a copyright notice
        reasons.append("named in a copyright notice")
    if (line.index, seg_no) in ctx.operated_by:
        score -= 3.0  # either is a good issuer; the brand the customer knows is preferred
        reasons.append("operating company of a brand")
    if ctx.sender_line == line.index and seg_no == 0:
        score += 3.5
        reasons.append("sender line")
    elif seg_no > 0:
        score -= 0.5
    if suffix:
        # a legal form weighs most in the letterhead; in the footer, where the operating
        # company of a brand (a hotel, a shop chain) is named, less than the brand on top
        near_top = line.index < 15 and line.index not in ctx.body and (
            ctx.rank.get(line.index, 99) < 6 or line.index < len(ctx.doc.lines) - 10)
        # (an operating company's or owner's form weighs as a footer's wherever it stands:
        # "Backstube Kröger" / "Inh. Jürgen Meißner e.K." names the bakery first)
        operated = (line.index, seg_no) in ctx.operated_by
        score += 4.0 if near_top and not operated else 2.5 if line.index in ctx.wanted else 2.0
        reasons.append("legal suffix")
        if name_words(value) == 0:
            score -= 3.0
    return (score + _place_merits(ctx, line, value, suffix is not None, reasons)
            + _text_merits(ctx, value, reasons))


def _addressee(ctx: Page, value: str) -> bool:
    """`value` is named in the recipient block: an account holder who is the customer (a
    direct debit's "Kontoinhaber: Max Mustermann"), not the seller."""
    wanted = key(value)
    return len(wanted) >= 4 and any(wanted in key(ctx.doc.lines[i].text) for i in ctx.skip)


def _place_merits(ctx: Page, line: Line, value: str, legal_form: bool,
                  reasons: list[str]) -> float:
    """Letterhead rank (not for the address block under the name, unless with a legal
    form), footer, capitals and a kind of business in the letterhead, a registration id
    nearby."""
    score = 0.0
    position = ctx.rank.get(line.index)
    if (position is not None and not legal_form and ctx.address_from is not None
            and line.index > ctx.address_from):
        position = None
    if position is not None and position < 6:
        score += 3.0 - 0.5 * position
        reasons.append("letterhead")
    elif line.index >= len(ctx.doc.lines) - 10:
        score += 1.0
        reasons.append("footer")
    if position is not None and len(value.split()) >= 2 and all_capitals(value):
        score += 1.0  # receipts and letterheads print the name in capitals
    folded = fold(value)
    kind = business_words().search(folded)
    if (position is not None and position < 6 and kind is not None
            and LETTER_RUN.search(business_words().sub(" ", folded))):  # a name beside the kind
        score += 1.5
        reasons.append("names a kind of business")
    if not ctx.reg_lines.isdisjoint(range(line.index - 2, line.index + 3)):
        score += 1.0
        reasons.append("near registration id")
    return score


def _text_merits(ctx: Page, value: str, reasons: list[str]) -> float:
    """The name repeated elsewhere in the document, or matching an e-mail or web domain."""
    score = 0.0
    k = key(value)
    if len(k) >= 3 and ctx.all_keys.count(k) >= 2:
        score += 1.5
        reasons.append("repeated")
    if ctx.domains and len(k) >= 3 and any(
            d in k or (len(k) >= 4 and k[:6] in d) or _initials_of(value, d)
            for d in ctx.domain_keys):
        score += 2.0
        reasons.append("matches e-mail/web domain")
    return score


def _initials_of(value: str, domain: str) -> bool:
    """`domain` spells the initials of `value`'s first words, three letters at least ("ups"
    for "United Parcel Service Deutschland ...", "ibm" for "International Business
    Machines")."""
    if len(domain) < 3 or not domain.isalpha():
        return False
    initials = "".join(fold(w[0]) for w in value.split() if w[:1].isupper() and w[:1].isalpha())
    return len(initials) >= len(domain) and initials.startswith(domain)


def after_penalties(ctx: Page, value: str, text: str, suffix: re.Match[str] | None,
                     score: float, line: Line, reasons: list[str]) -> float:
    """`score` less what speaks against `value` (tests cheapest first; stops once the score
    is under MIN_SCORE, since each test only lowers it)."""
    if score < MIN_SCORE:
        return score
    for cost in _penalties(ctx, value, text, suffix, line, reasons):
        score -= cost
        if score < MIN_SCORE:
            break  # (the tests after this one are not run)
    return score


_TRADING_AS = re.compile(r"\s+t/a\s+", re.I)


def _form_words(value: str, suffix: re.Match[str] | None) -> int:
    """How many words the legal form ending `value` has (0 without one)."""
    if suffix is None or not value.endswith(suffix.group(0).strip()):
        return 0
    return len(suffix.group(0).split())


def _penalties(ctx: Page, value: str, text: str, suffix: re.Match[str] | None, line: Line,
               reasons: list[str]) -> Iterator[float]:
    """The cost of each thing that speaks against `value`, in _after_penalties' order (each
    test runs only when the one before has been answered)."""
    split = value.split()
    # (a trading name after "t/a" may be written in small letters: "David Campbell t/a little
    # luxuries"; the owner's name before it says how the name is written)
    owner = _TRADING_AS.split(value, 1)[0].split() if "t/a" in value.lower() else split
    words = [w for w in owner if w[:1].isalpha()]
    folded = fold(value)
    if value.startswith("("):
        yield 2.0
    if ctx.persons and key(value) in ctx.persons:
        yield 3.0  # a contact person or a reference's name
    if GREETING.match(value):
        yield 4.0
    if not suffix and SENTENCE_WORDS.search(value):
        yield 2.5
    if not suffix and SALUTATION.match(value):
        yield 3.0
    if sum(map(str.isdigit, value)) > 3 and not BRAND_NUMBER.fullmatch(value):
        yield 1.5
    # (a branch in brackets, "(SETIA ALAM)", is no sentence; nor is a long legal form,
    # "... SANAYİ VE TİCARET LİMİTED ŞİRKETİ", "Sociedad de Responsabilidad Limitada")
    if len(BRACKETED.sub(" ", value).split()) - _form_words(value, suffix) > 7:
        yield 2.0
    if value[-1:] in ".!" and len(split) >= 3 and not suffix:
        yield 2.5
    # a line that goes on after a comma is part of an address ("Aeon Tebrau City,")
    if not suffix and text.rstrip().endswith(","):
        yield 1.0
    # names are written in Title Case or CAPITALS, sentences are not
    if words and sum(1 for w in words if w[0].islower()) * 2 > len(words):
        yield 2.5
    if ctx.vocab.search(folded):
        yield 2.5
    if ctx.registration.search(folded):
        yield 3.0
    if _DOMAIN_TOKEN.search(value):
        yield 2.0
    # an amount or a "label : value" pair ("Total: 5.00", "Order Placed: August 3")
    if (_RX5.search(value) or _RX6.search(value)
            or (":" in folded and month_after_colon().search(folded))):
        yield 3.0
    if not suffix and _TABLE_ROW.fullmatch(value):
        yield 3.0
    if address(value) or (not suffix and (
            (POSTCODE.search(value) and not BRAND_NUMBER.fullmatch(value))
            or address_words().search(value))):
        yield 3.0
    # a bank named on a bill is where to pay; at the top of the letterhead it is the sender
    # (a bank's statement, a broker's confirmation)
    if BANKISH.search(value) and ctx.rank.get(line.index, 99) >= BANK_LETTERHEAD:
        yield 4.0
    # a legal form beside bank details ("BNP Paribas SA · IBAN ... · BIC ..."): a bank; not a
    # company opening its own legal line ("Putsgruppen AB | Org.nr ... | Bankgiro ...")
    if suffix and "after a seller label" not in reasons and BANKISH.search(line.text) and (
            line.index not in ctx.reg_lines or not line.text.startswith(value)):
        yield 3.0
