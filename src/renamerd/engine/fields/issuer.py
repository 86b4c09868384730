"""The issuer (sender) of a document: letterhead, sender line, footer, legal suffixes, ids.

Lines in the recipient block ("Bill to", "Rechnungsempfänger", the address window under a
DIN sender line...) never count. Each candidate line is scored by where it sits and what it
carries (legal suffix, nearby VAT/registration id, match with an e-mail or web domain,
repetition); the best one wins. What the words around a name say (seller and operator labels,
legal details, two names side by side, greetings) is in fields/issuer_labels.py.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from renamerd.engine.fields.dates import month_after_colon
from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.issuer_labels import (
    GREETING,
    SALUTATION,
    SENTENCE_WORDS,
    colon_below,
    find_label,
    label_only,
    legal_named,
    side_by_side,
)
from renamerd.engine.fields.names import (
    address_words,
    all_capitals,
    business_words,
    clean_name,
    fix_ocr_suffixes,
    garbage,
    legal_suffix,
    letters_ratio,
    mend_digits,
    name_words,
    never_names,
    short_name,
    strip_debris,
)
from renamerd.engine.fields.places import BANKISH, PHONE, POSTCODE, address
from renamerd.engine.lexicon import LANGUAGES, alternation, fold, load

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX0 = re.compile(r"[^\W\d_]{3,}")
_RX1 = re.compile(r"\s+")
_RX2 = re.compile(r"[^0-9a-z]+")
_RX3 = re.compile(r"(?:&|\band)\s*$", re.I)
_RX4 = re.compile(r"https?://|www\.")
_RX5 = re.compile(r"\d[.,]\d{2}\b")
_RX1D = re.compile(r"\d")
_RX6 = re.compile(r"\s:\s*\S|[^\W\d_]{2}\s?:\s*\d")
#: a row of an items table: position, a description of one to three words, a quantity
#: ("4 Bâtiment 15" where a text layer drew the table's columns apart)
_TABLE_ROW = re.compile(r"\d{1,3}(?: [^\W\d_][\w.&'-]*){1,3} \d+(?:[.,]\d+)?")

#: (the address part starts where its run of characters starts: without the lookbehind, every
#: offset inside a long word would be tried, each scanning to the word's end)
_DOMAIN = re.compile(r"(?:(?<![\w.+-])[\w.+-]+@|www\.|https?://)([\w-]+(?:\.[\w-]+)*)\.[a-z]{2,6}\b",
                     re.I)
_GENERIC_DOMAINS = {"gmail", "yahoo", "hotmail", "outlook", "web", "gmx", "mail", "icloud",
                    "t-online", "live", "orange", "free", "aol", "protonmail", "example"}
_DOMAIN_TOKEN = re.compile(r"\w\.(?:com|net|org|co|de|fr|es|it|nl|pl|se|dk|no|fi|cz|my|uk|eu)\b",
                           re.I)
_SEPARATORS = re.compile(r"\s[·|•]\s|\s[-–]\s|,\s")
#: a blank, then a dot or bar and a blank, or two blanks more, or nothing more after a tab (the
#: same as "\s[·|•]\s|\s{3,}|\t", written to start with "\s" so that `re` skips other characters)
_SEGMENT = re.compile(r"\s(?:[·|•]\s|\s{2,}|(?<=\t))")
_DASH_BEFORE_LAST = re.compile(r"\s[-–|·]\s(?=\S+$)")


MIN_SCORE = 1.0  # below this a line is no evidence of an issuer at all
#: distinct e-mail/web domains compared with each candidate (a letter names a handful)
MAX_DOMAINS = 20
#: candidates taken from body lines (a legal form outside the letterhead and the footer);
#: each is compared with the whole text, so a list of a million companies costs no more
MAX_BODY_CANDIDATES = 100


@dataclass(frozen=True)
class IssuerCandidate:
    value: str
    line: Line
    score: float
    reasons: tuple[str, ...]


@functools.cache
def _vocab(language: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    langs = {language, "en"}
    recipient: set[str] = set()
    words: set[str] = set()
    for lang in langs:
        table = load(lang)
        recipient.update(table["labels"]["recipient"])
        for kind, phrases in table["labels"].items():
            if kind not in ("recipient",):
                words.update(p for p in phrases if len(p) > 3)
        for phrases in table["types"].values():
            words.update(p.lstrip("^") for p in phrases)
    registration: set[str] = set()
    for lang in LANGUAGES:
        registration.update(load(lang)["labels"].get("registration", []))
    rec = re.compile(r"^(?:" + alternation(recipient) + r")\s*(?::|$)")
    return rec, re.compile(alternation(words)), re.compile(alternation(registration))


def _recipient_lines(doc: Doc, rec: re.Pattern[str]) -> tuple[set[int], int | None]:
    """Indexes of lines in recipient blocks, and the index of a DIN sender line if found.

    A block starts at a recipient label and ends with the first line holding a postcode
    (the city line), at most five lines on.
    """
    skip: set[int] = set()
    sender_line: int | None = None

    def block_from(first: int) -> None:
        for j in range(first, min(first + 5, len(doc.lines))):
            skip.add(j)
            if POSTCODE.search(doc.lines[j].text) and j > first:
                break

    for line in doc.lines[:40]:
        m = rec.match(line.folded)
        if m:
            skip.add(line.index)
            rest = line.folded[m.end():].strip(" :")
            block_from(line.index if rest else line.index + 1)
    # (a sender line sits above the address window: in the top half, never in the footer)
    for line in doc.lines[:min(14, len(doc.lines) // 2)]:
        if (len(_SEGMENT.findall(line.text)) >= 2 and POSTCODE.search(line.text)
                and len(line.text) < 130 and line.index not in skip):
            sender_line = line.index
            block_from(line.index + 1)
            break
    return skip, sender_line


def _plausible_name_line(line: Line, vocab: re.Pattern[str]) -> bool:
    text = line.text
    words = [w for w in text.split() if w[:1].isalpha()]
    if not words or sum(1 for w in words if w[0].islower()) * 2 > len(words):
        return False
    return (letters_ratio(text) >= 0.7 and sum(map(str.isdigit, text)) <= 2
            and not vocab.search(line.folded) and not address(text)
            and not address_words().search(text) and not POSTCODE.search(text)
            and len(text) <= 60 and sum(map(str.isalpha, text)) >= 4)


def _domains(doc: Doc) -> list[str]:
    """The distinct e-mail/web domain names of the document (at most MAX_DOMAINS, in order)."""
    out: list[str] = []
    if "@" not in doc.text and "www" not in doc.folded and "http" not in doc.folded:
        return out
    for line in doc.lines:  # (an address never spans lines: only lines that may hold one)
        if "@" not in line.text and "www" not in line.folded and "http" not in line.folded:
            continue
        for m in _DOMAIN.finditer(line.text):
            parts = m.group(1).lower().split(".")
            label = parts[-1] if parts else ""
            if label and label not in _GENERIC_DOMAINS and len(label) >= 3 and label not in out:
                out.append(label)
                if len(out) >= MAX_DOMAINS:
                    return out
    return out


def _key(text: str) -> str:
    return _RX2.sub("", fold(text))


_KEY_LINES = re.compile(r"[^0-9a-z\n]+")


@dataclass
class _Page:
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
    #: (line, segment) pairs that follow a seller label / an operating company's label
    sold_by: set[tuple[int, int]] = field(default_factory=set)
    operated_by: set[tuple[int, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.domain_keys = [d.replace("-", "") for d in self.domains]

    def fixed_line(self, index: int) -> str:
        """Line `index` with its legal forms' OCR slips fixed (computed once)."""
        text = self.fixed.get(index)
        if text is None:
            text = self.fixed[index] = fix_ocr_suffixes(self.doc.lines[index].text)
        return text


def _score_segment(ctx: _Page, line: Line, text: str, seg_no: int,
                   segments: int) -> IssuerCandidate | None:
    """One segment of a line as an issuer candidate, or None when it cannot be one.

    The steps, in order: cut a registration label off; the name's extent (a legal form may
    continue from the line above or below); the cleaned value and the vetoes; what speaks
    for it (position, legal form, capitals, kind of business, ids, repetition, domain);
    what speaks against it (penalties, cheapest first, stopping once too low)."""
    cut = cut_registration(text, ctx.registration)
    if cut is None or label_only(cut) or colon_below(ctx.doc, line):
        return None
    suffix = legal_suffix(cut)
    if line.index not in ctx.wanted and not suffix:
        return None
    reasons: list[str] = []
    text, suffix = _name_extent(ctx, line, cut, suffix, seg_no, segments, reasons)
    value = mend_digits(strip_debris(clean_name(text if suffix else _SEPARATORS.split(text)[0])))
    # "Électricité de France - SA": the form follows the name without a dash; without a form,
    # a registration number after the name is no part of it ("99 SPEED MART (519537-X)")
    value = (_DASH_BEFORE_LAST.sub(" ", value) if suffix
             else _without_bracketed_number(value))
    if _vetoed(value, ctx.vocab):
        return None
    if suffix is not None and _weak_suffix(suffix, value):
        suffix = None
    first = ctx.doc.lines[line.index - 1] if _CONTINUED in reasons else line
    score = _merits(ctx, first, value, suffix, seg_no, reasons)
    if _unclosed(cut) and "(" not in value:
        score -= 1.5  # the name goes on in brackets on the next line ("ACME (SETIA" / "ALAM) BHD")
    if score < MIN_SCORE:
        return None  # what follows only lowers the score
    score = _after_penalties(ctx, value, text, suffix, score, line, reasons)
    if score < MIN_SCORE:
        return None
    return IssuerCandidate(value, line, score, tuple(reasons))


def cut_registration(text: str, registration: re.Pattern[str]) -> str | None:
    """`text` up to a registration label ("ACME Ltd Company Reg. No 123" -> "ACME Ltd"); None
    when nothing is left before the label."""
    reg = registration.search(fold(text))
    if reg is None:
        return text
    text = text[:reg.start()].rstrip(" (,;:-")
    return text or None


def _name_extent(ctx: _Page, line: Line, text: str, suffix: re.Match[str] | None,
                 seg_no: int, segments: int,
                 reasons: list[str]) -> tuple[str, re.Match[str] | None]:
    """The name's text and legal form: with a legal form, from the last ": " or ", " before
    it to its end, preceded by the line above when only the form or the kind of business
    is left ("RESTAURANT SDN BHD" under "LIAN CHI VEGETARIAN"); without one, followed by
    the next line when that is a lone legal form or the name ends in "&"."""
    doc, n = ctx.doc, len(ctx.doc.lines)
    if suffix and suffix.start() == 0 and suffix.group(0).strip() in PREFIX_FORMS \
            and text[suffix.end():].strip():
        return text, suffix  # the form comes first ("PT Sinar Jaya", "주식회사 한빛전자")
    if suffix:
        head = text[:suffix.start()]
        # (a comma right before the form belongs to the name: "Amazon Web Services, Inc.")
        bare = head.rstrip()
        bare = bare[:-1] if bare.endswith(",") else head
        cut = max(bare.rfind(": "), bare.rfind(", "))
        start = cut + 2 if cut >= 0 else 0
        start = _after_lower_case_words(text, start, suffix.start())
        text = text[start:suffix.end()]
        prev = doc.lines[line.index - 1] if line.index > 0 else None
        if (seg_no == 0 and prev is not None and prev.index not in ctx.skip
                and _unclosed(prev.text) and text.count(")") > text.count("(")):
            reasons.append(_CONTINUED)  # "ACME ENTERPRISE (SETIA" / "ALAM) SDN BHD"
            return f"{prev.text} {text}", suffix
        short = all(len(w.strip("().,")) <= 3 for w in text[:suffix.start()].split())
        # only the kind of business before the form ("RESTAURANT SDN BHD"): the name is above
        # (one name word is a name: "AEON CO. (M) BHD" under "Welcome" stays as it is)
        head = fold(text[:suffix.start()])
        short = short or (business_words().search(head) is not None
                          and not _RX0.search(business_words().sub(" ", head)))
        if (seg_no == 0 and short and prev is not None
                and prev.index not in ctx.skip and _plausible_name_line(prev, ctx.vocab)
                and legal_suffix(prev.text) is None):
            text = f"{prev.text} {text}"
            reasons.append(_CONTINUED)
        return text, suffix
    if line.index + 1 < n and line.index + 1 not in ctx.skip and seg_no == segments - 1:
        nxt = doc.lines[line.index + 1]
        nxt_text = ctx.fixed_line(nxt.index)
        sm = legal_suffix(nxt_text)
        if (sm is not None and sm.start() <= 2 and len(nxt_text) <= 25
                and not ctx.registration.search(nxt.folded)):
            text = f"{text} {nxt_text[:sm.end()]}"
            return text, legal_suffix(text)
        # (a text ending in "&" or "and" ends in one of these: tested first, for speed)
        if (text.rstrip()[-1:] in ("&", "d", "D") and _RX3.search(text)
                and _plausible_name_line(nxt, ctx.vocab)):
            text = f"{text} {nxt.text}"
    return text, suffix


#: legal forms written before the name (Indonesia, Korea)
PREFIX_FORMS = frozenset({"PT", "PT.", "CV", "CV.", "주식회사", "(주)", "㈜", "유한회사"})

#: lower-case words that belong inside company names ("Banco de Sabadell", "Smit & de Vries")
_NAME_PARTICLES = frozenset({"de", "van", "der", "den", "la", "le", "les", "di", "du", "del",
                             "della", "des", "y", "e", "et", "und", "and", "of", "the", "for",
                             "für", "i", "og", "och", "ve", "a", "&"})


def _after_lower_case_words(text: str, start: int, end: int) -> int:
    """Where the name before a legal form (at `end`) starts, from `start`: after the last
    lower-case word that is no name particle ("Operated by Kingsley Software Inc.",
    "Geëxploiteerd door Meijer B.V.": the name starts after "by", "door")."""
    position = start
    offset = start
    for word in text[start:end].split():
        offset = text.index(word, offset) + len(word)
        bare = word.strip("().,:;")
        if bare[:1].islower() and bare.isalpha() and bare not in _NAME_PARTICLES:
            position = offset
    while position < end and text[position] == " ":
        position += 1
    # nothing but the form left: the lower-case words are the name's ("Au bon moulin SARL")
    return position if position < end else start


_CONTINUED = "name continues from the line above"
#: a group in round brackets without brackets inside (checked for a digit by the caller: one
#: pattern "[^..]*\d[^..]*" tries every split of an unclosed run, 17 s for 20,000 characters)
_BRACKETED = re.compile(r"\([^()]*\)")


def _without_bracketed_number(value: str) -> str:
    """`value` without a group in brackets holding a digit at its end."""
    if not value.endswith(")"):
        return value
    groups = list(_BRACKETED.finditer(value))
    last = groups[-1] if groups else None
    if last is None or last.end() != len(value) or not _RX1D.search(last.group(0)):
        return value
    return value[:last.start()].rstrip(" ,;:-") or value


def _unclosed(text: str) -> bool:
    """`text` opens a bracket it does not close."""
    return text.count("(") > text.count(")")


#: a page's number ("Page 1 of 2", "Seite 1 von 2", "Página 1 de 2", "Strona 1 z 2")
_PAGE_NUMBER = re.compile(
    r"(?:page|seite|página|pagina|pag\.|strona|sida|side|sivu|strana|stránka|sayfa|halaman|"
    r"blad|blatt|feuille|hoja|foglio)\s*\d+\s*(?:of|von|de|di|z|ze|av|af|sur|van|/|aus|"
    r"fra|/)\s*\d+", re.I)


def _vetoed(value: str, vocab: re.Pattern[str]) -> bool:
    """What can never be a name: too short or long, debris (letters under 60%), a document
    word alone, a phone number, an e-mail address or a web address, a table's column heading
    or a country's name alone, a page's number."""
    if len(value) < 2 or len(value) > 80 or (garbage(value) and not short_name(value)):
        return True
    if _PAGE_NUMBER.fullmatch(value):
        return True
    folded = fold(value)
    if vocab.fullmatch(folded.strip(" .:")) or PHONE.search(value) or "@" in value:
        return True
    return bool(_RX4.search(folded)) or folded.strip(" .:,") in never_names()


def _weak_suffix(suffix: re.Match[str], value: str) -> bool:
    """A two-letter form ("SE", "AG", "SA") in an address line is a word of the address."""
    return len(suffix.group(0).strip(". ")) <= 2 and bool(
        address_words().search(value) or address(value))


def _merits(ctx: _Page, line: Line, value: str, suffix: re.Match[str] | None, seg_no: int,
            reasons: list[str]) -> float:
    """What speaks for `value` as the issuer (reasons appended to `reasons`)."""
    score = 0.0
    if (line.index, seg_no) in ctx.sold_by and not _addressee(ctx, value):
        score += 4.0
        reasons.append("after a seller label")
    if line.index in ctx.legal_named and seg_no == 0:
        score += 4.5  # a customer's capital or registered office is never printed
        reasons.append("named with its legal details")
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
        score += 4.0 if near_top else 2.5 if line.index in ctx.wanted else 2.0
        reasons.append("legal suffix")
        if name_words(value) == 0:
            score -= 3.0
    return (score + _place_merits(ctx, line, value, suffix is not None, reasons)
            + _text_merits(ctx, value, reasons))


def _addressee(ctx: _Page, value: str) -> bool:
    """`value` is named in the recipient block: an account holder who is the customer (a
    direct debit's "Kontoinhaber: Max Mustermann"), not the seller."""
    key = _key(value)
    return len(key) >= 4 and any(key in _key(ctx.doc.lines[i].text) for i in ctx.skip)


def _place_merits(ctx: _Page, line: Line, value: str, legal_form: bool,
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
            and _RX0.search(business_words().sub(" ", folded))):  # a name beside the kind
        score += 1.5
        reasons.append("names a kind of business")
    if not ctx.reg_lines.isdisjoint(range(line.index - 2, line.index + 3)):
        score += 1.0
        reasons.append("near registration id")
    return score


def _text_merits(ctx: _Page, value: str, reasons: list[str]) -> float:
    """The name repeated elsewhere in the document, or matching an e-mail or web domain."""
    score = 0.0
    k = _key(value)
    if len(k) >= 3 and ctx.all_keys.count(k) >= 2:
        score += 1.5
        reasons.append("repeated")
    if ctx.domains and len(k) >= 3 and any(
            d in k or (len(k) >= 4 and k[:6] in d) for d in ctx.domain_keys):
        score += 2.0
        reasons.append("matches e-mail/web domain")
    return score


def _after_penalties(ctx: _Page, value: str, text: str, suffix: re.Match[str] | None,
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


def _penalties(ctx: _Page, value: str, text: str, suffix: re.Match[str] | None, line: Line,
               reasons: list[str]) -> Iterator[float]:
    """The cost of each thing that speaks against `value`, in _after_penalties' order (each
    test runs only when the one before has been answered)."""
    split = value.split()
    words = [w for w in split if w[:1].isalpha()]
    folded = fold(value)
    if value.startswith("("):
        yield 2.0
    if GREETING.match(value):
        yield 4.0
    if not suffix and SENTENCE_WORDS.search(value):
        yield 2.5
    if not suffix and SALUTATION.match(value):
        yield 3.0
    if sum(map(str.isdigit, value)) > 3:
        yield 1.5
    # (a branch in brackets, "(SETIA ALAM)", is no sentence)
    if len(_BRACKETED.sub(" ", value).split()) > 7:
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
            POSTCODE.search(value) or address_words().search(value))):
        yield 3.0
    if BANKISH.search(value):
        yield 4.0
    # a legal form between the bank details ("IBAN ... · BNP Paribas SA · BIC ..."): a bank
    if suffix and "after a seller label" not in reasons and BANKISH.search(line.text):
        yield 3.0


def _blank_if_digits(match: re.Match[str]) -> str:
    return " " if _RX1D.search(match.group(0)) else match.group(0)


def _title_line(line: Line, vocab: re.Pattern[str]) -> bool:
    """A short heading naming the kind of document ("SIMPLIFIED TAX INVOICE"), no value."""
    text = line.folded.strip(" .:-*=_")
    return (0 < len(text.split()) <= 4 and not _RX1D.search(text) and ":" not in text
            and vocab.search(text) is not None and line.text.upper() == line.text)


def _address_start(doc: Doc, rank: dict[int, int]) -> int | None:
    """The first letterhead line after the first one that is an address or a phone number
    (a street, a postcode, an address word) without a legal form: where the letterhead's
    address block starts. None when there is none."""
    for index in sorted(rank)[1:]:
        text = doc.lines[index].text
        if legal_suffix(text) is None and (
                address(text) or POSTCODE.search(text) or PHONE.search(text)
                or address_words().search(text)):
            return index
    return None


def issuer_candidates(doc: Doc, language: str) -> list[IssuerCandidate]:
    """Scored issuer candidates, best first. Pure; a few ms on a page of text."""
    if not doc.lines:
        return []
    rec, vocab, registration = _vocab(language)
    skip, sender_line = _recipient_lines(doc, rec)
    domains = _domains(doc)
    n = len(doc.lines)
    # (one pass over the text: a label never spans lines)
    reg_lines = {doc.line_at(m.start()).index for m in registration.finditer(doc.folded)}
    all_keys = _KEY_LINES.sub("", doc.folded)  # _key() of every line, one per line
    wanted = set(range(min(12, n))) | set(range(max(0, n - 10), n))
    rank: dict[int, int] = {}
    body: set[int] = set()
    for ln in doc.lines[:14]:
        if len(rank) >= 3 and _title_line(ln, vocab):
            # the letterhead ends at the document's title ("TAX INVOICE", "RECEIPT"); what
            # follows up to the footer is the body (a customer, the items)
            body = set(range(ln.index, max(n - 10, ln.index)))
            wanted -= body
            break
        # a registration number in brackets ("ACME SDN BHD (12345-X)") is not debris
        bare = _BRACKETED.sub(_blank_if_digits, ln.text)
        if ln.index not in skip and (not garbage(bare) or short_name(bare.strip())):
            rank[ln.index] = len(rank)
    candidates: list[IssuerCandidate] = []
    ctx = _Page(doc, sender_line, reg_lines, all_keys, domains, vocab, skip, wanted, rank,
                registration, body, _address_start(doc, rank))
    ctx.legal_named = legal_named(doc, skip)
    ctx.wanted |= ctx.legal_named
    from_body = 0
    for line in doc.lines:
        if line.index in skip:
            continue
        in_body = line.index not in wanted
        if in_body and from_body >= MAX_BODY_CANDIDATES:
            continue
        # segments of the line with its legal forms' OCR slips fixed ("5DN BHD" -> "SDN BHD")
        segments = [part for seg in _SEGMENT.split(ctx.fixed_line(line.index))
                    for part in side_by_side(seg) if part.strip()]
        for seg_no, segment in enumerate(segments):
            segment = _after_seller_label(ctx, line, segment, seg_no, language)
            if not segment:
                continue
            cand = _score_segment(ctx, line, segment, seg_no, len(segments))
            if cand is not None:
                candidates.append(cand)
                from_body += in_body
    if not candidates and domains:
        first = doc.lines[0]
        candidates.append(IssuerCandidate(domains[0].replace("-", " ").title(), first, 0.5,
                                          ("e-mail/web domain only",)))
    candidates.sort(key=lambda c: (-c.score, c.line.index))
    return candidates


def _after_seller_label(ctx: _Page, line: Line, segment: str, seg_no: int,
                        language: str) -> str:
    """`segment` without a seller (or operator) label in it (issuer_labels.find_label),
    marking what follows as sold (operated) by: the rest of the segment, or the first line
    below not in brackets when nothing is left; "" when only the label was there. A label
    over another label (a table's header row, "Dodavatel" over "Odběratel") marks nothing;
    a two-column header ("Sprzedawca: Nabywca:") marks the line below, whose first name is
    the seller's."""
    label = find_label(segment, language)
    if label is None:
        return segment
    marks = ctx.sold_by if label.kind == "sender" else ctx.operated_by
    if label.rest and not label_only(label.rest):
        marks.add((line.index, seg_no))
        ctx.wanted.add(line.index)
        return label.rest
    if label.rest and label.at_start:  # a header over two columns
        if line.index + 1 < len(ctx.doc.lines):
            marks.add((line.index + 1, 0))
            ctx.wanted.add(line.index + 1)
        return ""
    for below in ctx.doc.lines[line.index + 1:line.index + 3]:
        if below.text.rstrip().endswith(":") or ctx.vocab.fullmatch(below.folded.strip(" :")):
            break
        if below.index not in ctx.skip and not below.text.startswith("("):
            marks.add((below.index, 0))
            ctx.wanted.add(below.index)
            break
    return ""


def issuer_confidence(cands: list[IssuerCandidate]) -> float:
    """How sure the best candidate is right (0 when there is none)."""
    if not cands:
        return 0.0
    top = cands[0].score
    rival = next((c.score for c in cands[1:] if _key(c.value) != _key(cands[0].value)), None)
    conf = 0.35 + 0.07 * max(min(top, 8.0), 0.0)
    if rival is not None and top - rival < 1.5:
        conf -= 0.2
    return max(0.05, min(conf, 0.97))
