"""The issuer (sender) of a document: letterhead, sender line, footer, legal suffixes, ids.

Lines in the recipient block ("Bill to", "Rechnungsempfänger", the address window under a
DIN sender line...) never count. Each candidate line is scored by where it sits and what it
carries (legal suffix, nearby VAT/registration id, match with an e-mail or web domain,
repetition); the best one wins. What the words around a name say (seller and operator labels,
legal details, two names side by side, greetings) is in fields/issuer_labels.py; where the
recipient's blocks and the sender line stand in fields/issuer_blocks.py; what speaks for and
against a line as the name (the scores) in fields/issuer_scores.py; how far a name goes on its
line and onto the lines around it in fields/issuer_extent.py; which of the best candidates
names the sender (a brand, a wordmark's whole name) in fields/issuer_order.py.
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.fields.columns import before_known_label
from renamerd.engine.fields.doctype import till_cues, type_compound
from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.issuer_blocks import (
    SEGMENT,
    address_under_title,
    customer_above_your_number,
    customer_in_second_column,
    customer_under_letterhead,
    customer_under_title,
    direct_debit_above,
    payers,
    recipient_lines,
    remittance_payee,
    stacked_headers,
)
from renamerd.engine.fields.issuer_cuts import before_title, cut_registration, despaced
from renamerd.engine.fields.issuer_extent import (
    CONTINUED,
    name_extent,
    name_from_above,
    name_goes_on,
    plausible_name_line,
    unclosed,
    without_bracketed_number,
)
from renamerd.engine.fields.issuer_labels import (
    colon_below,
    contact_persons,
    find_label,
    footer_named,
    label_only,
    legal_named,
    mail_header,
    seller_labels,
    side_by_side,
    signed_off,
    thanks_goes_on,
)
from renamerd.engine.fields.issuer_order import best_first
from renamerd.engine.fields.issuer_scores import (
    BRACKETED,
    MIN_SCORE,
    IssuerCandidate,
    Page,
    after_penalties,
    key,
    merits,
    vetoed,
    weak_suffix,
)
from renamerd.engine.fields.names import (
    address_words,
    clean_name,
    copyright_notice,
    garbage,
    legal_suffix,
    made_with,
    mend_digits,
    short_name,
    strip_debris,
    without_branch,
    without_department,
    without_phone,
)
from renamerd.engine.fields.places import PHONE, POSTCODE, address
from renamerd.engine.lexicon import LANGUAGES, alternation, fold, load

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX1D = re.compile(r"\d")

#: (the address part starts where its run of characters starts: without the lookbehind, every
#: offset inside a long word would be tried, each scanning to the word's end)
_DOMAIN = re.compile(r"(?:(?<![\w.+-])[\w.+-]+@|www\.|https?://)([\w-]+(?:\.[\w-]+)*)\.[a-z]{2,6}\b",
                     re.I)
_GENERIC_DOMAINS = {"gmail", "yahoo", "hotmail", "outlook", "web", "gmx", "mail", "icloud",
                    "t-online", "live", "orange", "free", "aol", "protonmail", "example"}
#: a country's second-level domains, before its own ("com" of ".com.au", "gov" of ".gov.za")
_SECOND_LEVEL = frozenset({"com", "co", "org", "net", "gov", "govt", "edu", "ac", "ltd", "plc",
                           "or", "ne", "go", "gob", "gouv", "nom", "biz"})
#: what parts a name from what follows on its line (a star only between words: "Name *
#: Street", not "Razão Social: * Name")
_SEPARATORS = re.compile(r"\s[·|•]\s|(?<=\w)\s\*\s(?=\w)|\s[-–]\s|,\s")
#: a barcode's text as Code 39 prints it under the bars, between stars ("*26000730013333*")
_CODE39 = re.compile(r"\s*\*(?=[^*]*\d)[0-9A-Z.$/+%-]{4,40}\*\s*")
_DASH_BEFORE_LAST = re.compile(r"\s[-–|·]\s(?=\S+$)")


#: distinct e-mail/web domains compared with each candidate (a letter names a handful)
MAX_DOMAINS = 20
#: candidates taken from body lines (a legal form outside the letterhead and the footer);
#: each is compared with the whole text, so a list of a million companies costs no more
MAX_BODY_CANDIDATES = 100


@functools.cache
def _recipient_labels(language: str) -> tuple[str, str]:
    """The recipient's labels of `language` and English as one pattern, and those of two
    words or more ("Bill to", "Customer Name & Address": a heading) as another."""
    labels = set(load(language)["labels"]["recipient"]) | set(load("en")["labels"]["recipient"])
    return alternation(labels), alternation({p for p in labels if len(p.split()) >= 2})


@functools.cache
def _vocab(language: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    langs = {language, "en"}
    words: set[str] = set()
    for lang in langs:
        table = load(lang)
        for kind, phrases in table["labels"].items():
            if kind not in ("recipient", "sign_off", "thanks"):  # (frames hold "{name}")
                words.update(p for p in phrases if len(p) > 3)
        for phrases in table["types"].values():
            words.update(p.lstrip("^") for p in phrases)
    registration: set[str] = set()
    for lang in LANGUAGES:
        registration.update(load(lang)["labels"].get("registration", []))
    # (a label glossed by another in brackets, "Buyer (Bill to)", "Consignee (Ship to)", is one
    # whatever follows it on its line: a second column's labels; a table's bars around it,
    # "| Dados do Tomador |", are no text)
    # (a heading of two words or more, "Customer Name & Address", "Bill to", may have a
    # second column's label and value beside it: "... Order Contact: Junus Pan")
    labels, headings = _recipient_labels(language)
    # (and so is a label glossed in a second language after a slash: "Client / Klant :")
    rec = re.compile(rf"^[|*•·\s]*(?:(?:{labels})\s*(?:/\s*[^\W\d][^/:\d]{{1,24}}?\s*)?"
                     rf"(?::|[|\s]*$|\((?:{labels})\))"
                     rf"|(?:{headings})(?=\s+[^\W\d][^:\d]{{0,30}}:))")
    return rec, re.compile(alternation(words)), re.compile(alternation(registration))


@functools.cache
def _recipient_heading_end(language: str) -> re.Pattern[str]:
    """A recipient's heading of two words or more ending a text (folded): the next column's
    ("Dagster Labs Bill to")."""
    return re.compile(rf" (?:{_recipient_labels(language)[1]})\s*:?$")


def without_recipient_heading(segment: str, language: str) -> str:
    """`segment` without the recipient's heading a second column put at its end ("Dagster
    Labs Bill to" -> "Dagster Labs"); as it is otherwise."""
    found = _recipient_heading_end(language).search(fold(segment))
    return segment[:found.start()] if found and found.start() >= 3 else segment


@functools.cache
def _recipient_before(language: str) -> re.Pattern[str]:
    """A recipient's label and its colon ending a text (folded)."""
    return re.compile(rf"(?:{_recipient_labels(language)[0]})\s*:\s*$")


def _after_recipient_label(segment: str, name: str, language: str) -> bool:
    """`name` follows a recipient's label inside `segment` (a line holding two columns'
    labels and values)."""
    at = segment.find(name)
    return at > 0 and ":" in segment[:at] and (
        _recipient_before(language).search(fold(segment[:at])) is not None)


def _domains(doc: Doc, web_only: bool = False) -> list[str]:
    """The distinct e-mail/web domain names of the document (at most MAX_DOMAINS, in order);
    `web_only`: of its web addresses only ("www.", "http")."""
    out: list[str] = []
    if "@" not in doc.text and "www" not in doc.folded and "http" not in doc.folded:
        return out
    for line in doc.lines:  # (an address never spans lines: only lines that may hold one)
        if "@" not in line.text and "www" not in line.folded and "http" not in line.folded:
            continue
        for m in _DOMAIN.finditer(line.text):
            if web_only and "@" in m.group(0):
                continue
            parts = m.group(1).lower().split(".")
            if len(parts) >= 2 and parts[-1] in _SECOND_LEVEL:  # "selectprovidores.com.au"
                parts.pop()
            label = parts[-1] if parts else ""
            if label and label not in _GENERIC_DOMAINS and len(label) >= 3 and label not in out:
                out.append(label)
                if len(out) >= MAX_DOMAINS:
                    return out
    return out


_KEY_LINES = re.compile(r"[^0-9a-z\n]+")
#: a word going on after a two-letter legal form, which is then a word of a phrase
_WORD_AFTER = re.compile(r" ([^\W\d_]{2,})(?: |$)")


def _score_segment(ctx: Page, line: Line, text: str, seg_no: int,
                   segments: int) -> IssuerCandidate | None:
    """One segment of a line as an issuer candidate, or None when it cannot be one.

    The steps, in order: cut a registration label off; the name's extent (a legal form may
    continue from the line above or below); the cleaned value and the vetoes; what speaks
    for it (position, legal form, capitals, kind of business, ids, repetition, domain);
    what speaks against it (penalties, cheapest first, stopping once too low)."""
    cut = cut_registration(despaced(text), ctx.registration)
    if (cut is None or label_only(cut) or colon_below(ctx.doc, line) or made_with(cut)
            or mail_header(cut)):
        return None
    suffix = legal_suffix(cut)
    if (suffix is not None and len(suffix.group(0).strip(". ")) <= 2
            and suffix.group(0).isupper()
            and (after := _WORD_AFTER.match(cut, suffix.end())) and after.group(1).isupper()):
        # a word of a phrase in capitals: "DOCUMENTO AUXILIAR DA NOTA FISCAL" ("DA": of the;
        # but "SA au capital de", "Oy Puhelin": a form, a column's word after it)
        suffix = None
    if line.index not in ctx.wanted and not suffix:
        return None
    reasons: list[str] = []
    text, suffix = name_extent(ctx, line, cut, suffix, seg_no, segments, reasons)
    if _after_recipient_label(cut, text, ctx.language):
        return None  # "Číslo faktury : 2600178 Odběratel : MADREV s.r.o.": the customer
    if "*" in text and (code := _CODE39.search(text)):
        # (the name printed again after it: "PRAKASH MEDICAL STORES *2600...* PRAKASH ...")
        text = text[:code.start()] if code.start() >= 3 else text[code.end():]
    value = mend_digits(strip_debris(clean_name(text if suffix else _SEPARATORS.split(text)[0])))
    value = without_phone(without_branch(without_department(value)))
    if not suffix and value[-1:].isdigit():
        value = _without_store_number(ctx, line, value)
    # "Électricité de France - SA": the form follows the name without a dash; without a form,
    # a registration number after the name is no part of it ("99 SPEED MART (519537-X)")
    value = (_DASH_BEFORE_LAST.sub(" ", value) if suffix
             else without_bracketed_number(value))
    if vetoed(value, ctx.vocab) or (" " not in value and type_compound(value, ctx.language)):
        return None
    if suffix is not None and weak_suffix(suffix, value):
        suffix = None
    first = ctx.doc.lines[line.index - 1] if CONTINUED in reasons else line
    score = merits(ctx, first, value, suffix, seg_no, reasons)
    if unclosed(cut) and "(" not in value:
        score -= 1.5  # the name goes on in brackets on the next line ("ACME (SETIA" / "ALAM) BHD")
    if score < MIN_SCORE:
        return None  # what follows only lowers the score
    score = after_penalties(ctx, value, text, suffix, score, line, reasons)
    if score < MIN_SCORE:
        return None
    return IssuerCandidate(value, line, score, tuple(reasons))


#: a number of four or five digits after two words or more of a name ("Albert Heijn 2308";
#: three digits may be the name's: "TRIPLE SIX POINT ENTERPRISE 666")
_NUMBER_AT_END = re.compile(r"(?<=[^\W\d_]) \d{4,5}$")


def _without_store_number(ctx: Page, line: Line, value: str) -> str:
    """A shop's name opening a till slip without its store's number ("Albert Heijn 2308"
    over "Stationsplein 45"): a number after the first line's name words, with the street
    on the next line, is no postcode (those follow the street)."""
    found = _NUMBER_AT_END.search(value)
    head = value[:found.start()] if found else ""
    if (found is None or len(head.split()) < 2 or ctx.rank.get(line.index) != 0
            or line.index + 1 >= len(ctx.doc.lines)
            or not address(ctx.doc.lines[line.index + 1].text)):
        return value
    return head


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
    skip, sender_line = recipient_lines(doc, rec, seller_labels(language))
    domains = _domains(doc)
    n = len(doc.lines)
    # (one pass over the text: a label never spans lines)
    reg_lines = {doc.line_at(m.start()).index for m in registration.finditer(doc.folded)}
    all_keys = _KEY_LINES.sub("", doc.folded)  # key() of every line, one per line
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
        bare = without_branch(without_phone(despaced(BRACKETED.sub(_blank_if_digits,
                                                                    ln.text))))
        if ln.index not in skip and (not garbage(bare) or short_name(bare.strip())):
            rank[ln.index] = len(rank)
    candidates: list[IssuerCandidate] = []
    ctx = Page(doc, sender_line, reg_lines, all_keys, domains, vocab, skip, wanted, rank,
                registration, body, _address_start(doc, rank))
    _read_blocks(ctx, rec, language)
    from_body = 0
    for line in doc.lines:
        if line.index in skip:
            continue
        in_body = line.index not in wanted
        if in_body and from_body >= MAX_BODY_CANDIDATES:
            continue
        # segments of the line with its legal forms' OCR slips fixed ("5DN BHD" -> "SDN BHD")
        segments = [part for seg in SEGMENT.split(ctx.fixed_line(line.index))
                    for part in side_by_side(seg) if part.strip()]
        if len(segments) >= 3 and all(s.strip().isalpha() for s in segments):
            continue  # a list of what the business does ("APK · Onderhoud · Schadeherstel")
        for seg_no, segment in enumerate(segments):
            segment = _name_in(ctx, line, segment, seg_no, seg_no == len(segments) - 1)
            if not segment:
                continue
            cand = _score_segment(ctx, line, segment, seg_no, len(segments))
            if cand is not None:
                candidates.append(cand)
                from_body += in_body
    candidates.sort(key=lambda c: (-c.score, c.line.index))
    if domains and (not candidates or _weak_everywhere(ctx, candidates)):
        # nothing names the sender but its addresses: "kontakt@lizenzero.de" is Lizenzero
        candidates.insert(0, IssuerCandidate(
            domains[0].replace("-", " ").title(), doc.lines[0],
            max([0.5, *(c.score + 0.1 for c in candidates[:1])]), ("e-mail/web domain only",)))
    return best_first(ctx, candidates)


def _weak_everywhere(ctx: Page, cands: list[IssuerCandidate]) -> bool:
    """The best candidate stands on its place on the page alone (a line of the footer, score
    1 or less), and the page's only letterhead was the customer's (its first line skipped)."""
    return cands[0].score <= 1.0 and 0 in ctx.skip


def _read_blocks(ctx: Page, rec: re.Pattern[str], language: str) -> None:
    """Mark on `ctx` what the page's blocks say before any line is scored: the customer's
    lines (stacked headers, a remittance slip, a name under the title), the names named with
    their legal details, the persons and payers that are no seller, the buyer's names."""
    doc = ctx.doc
    stacked_headers(ctx, rec, language)
    remittance_payee(ctx, rec, language)
    title = next((ln.index for ln in doc.lines[:2] if _title_line(ln, ctx.vocab)), None)
    if title is not None:
        customer_under_title(ctx, title)
        address_under_title(ctx, title)
    customer_under_letterhead(ctx, language)
    customer_above_your_number(ctx)
    customer_in_second_column(ctx, _recipient_before(language))
    ctx.legal_named = legal_named(doc, ctx.skip) | footer_named(doc, ctx.skip, ctx.registration)
    ctx.persons = {k for k in map(key, contact_persons(doc)) if len(k) >= 4}
    ctx.persons |= payers(doc, language)
    ctx.language = language
    ctx.buyers = _buyers(doc, ctx.skip, _domains(doc, web_only=True))
    # (the buyer's name stands again elsewhere, a delivery slip's "received by" at the foot)
    ctx.persons |= {k for k in (key(clean_name(b)) for b in ctx.buyers) if len(k) >= 6}
    ctx.wanted |= ctx.legal_named


def _name_in(ctx: Page, line: Line, segment: str, seg_no: int, last: bool) -> str:
    """What of `segment` may name the sender, marking on `ctx` what the words around it say:
    the name a team signs or a shop thanks with ("Your A&O Team", with its end on the next
    line), a copyright notice, the name before a title sharing its line, what follows a
    seller's label ("" when only the label is there)."""
    if seg_no == 0 and line.index:  # "THANK YOU FOR" / "SHOPPING": the sentence goes on
        thanked = thanks_goes_on(ctx.doc.lines[line.index - 1].folded, segment, ctx.language)
        if thanked is not None:
            return thanked
    team = signed_off(segment, ctx.language)
    if team is not None:  # "Your A&O Team": the sender signs
        ctx.signed_by.add((line.index, seg_no))
        ctx.wanted.add(line.index)
        if last and segment.rstrip(" .!*").endswith(team):
            team += name_goes_on(ctx.doc, line)
        segment = team
    elif copyright_notice(segment):  # "© 1996-2023, Amazon.com, Inc."
        ctx.noticed.add((line.index, seg_no))
    elif seg_no == 0:
        segment = name_from_above(ctx, line, segment)
    segment = without_recipient_heading(before_title(segment, ctx.language), ctx.language)
    segment = _after_seller_label(ctx, line, segment, seg_no, ctx.language)
    if seg_no == 0 and ":" in segment:
        segment = before_known_label(segment)
    return _without_buyer(ctx, segment) if ctx.buyers else segment


def _buyers(doc: Doc, skip: set[int], sites: list[str]) -> tuple[str, ...]:
    """What may name the buyer: each line of the recipient's blocks up to its first comma
    (six characters or more), but a name the document's web address spells: a bill prints
    its seller's site, never its customer's ("NATURES AID LTD" beside "Invoice to:", read
    into the customer's block, under "www.naturesaid.co.uk")."""
    firsts = (doc.lines[index].text.split(",")[0].strip() for index in sorted(skip))
    return tuple(first for first in firsts if len(first) >= 6
                 and not any(site in key(first) for site in sites))


def _without_buyer(ctx: Page, segment: str) -> str:
    """`segment` without the buyer's name at its end: a line of two columns read as one holds
    both names ("TIP-TOP Agnieszka Pawlicka Retriever Shop Alexandra Kaługa"), and the
    buyer's stands again in a recipient's block ("Retriever Shop Alexandra Kaługa, ...")."""
    for buyer in ctx.buyers:
        if segment.endswith(" " + buyer):
            return segment[:-len(buyer)].rstrip(" ,")
    return segment


def _after_seller_label(ctx: Page, line: Line, segment: str, seg_no: int,
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
    if label.kind == "sender" and direct_debit_above(ctx.doc, line):
        return label.rest  # "Account name JANE SMITH" under "Direct Debit": the payer's
    marks = ctx.sold_by if label.kind == "sender" else ctx.operated_by
    if label.kind == "sender" and _served_by(ctx, label.rest):
        return ""  # "Myyjä: Anna" on a till slip: the one who served, no seller
    if label.rest and not label_only(label.rest):
        marks.add((line.index, seg_no))
        ctx.wanted.add(line.index)
        return _name_wrapped(ctx, line, label.rest)
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


def _name_wrapped(ctx: Page, line: Line, rest: str) -> str:
    """A seller label's value `rest`, with the line below when `rest` is one word ending its
    line and the line below one or two words of a name ("Saaja: Vakuutusyhtiö" /
    "Pohjantähti", a giro form's box too narrow for the name)."""
    if (" " in rest.strip() or line.index + 1 >= len(ctx.doc.lines)
            or not line.text.rstrip().endswith(rest.rstrip())):
        return rest
    below = ctx.doc.lines[line.index + 1]
    first = SEGMENT.split(below.text)[0].strip()
    cell = Line(below.index, below.start, first, fold(first), below.page)
    if (below.page != line.page or below.index in ctx.skip or len(first.split()) > 2
            or not plausible_name_line(cell, ctx.vocab)):
        return rest
    return f"{rest.rstrip()} {first}"


#: point-of-sale cues that make a page a till slip for `_served_by`
_TILL_SLIP_CUES = 2


def _served_by(ctx: Page, rest: str) -> bool:
    """What follows a seller's label is a first name alone on a till slip ("Myyjä: Anna",
    "Verkäufer: Tom"): the one who served, as tills print it, not the shop ("MERCHANT:
    WALMART", in capitals, stays the shop)."""
    word = rest.strip(" .:")
    return (word.isalpha() and word[:1].isupper() and word[1:].islower() and len(word) <= 12
            and len(till_cues(ctx.doc)) >= _TILL_SLIP_CUES)


def issuer_confidence(cands: list[IssuerCandidate]) -> float:
    """How sure the best candidate is right (0 when there is none)."""
    if not cands:
        return 0.0
    top = cands[0].score
    rival = next((c.score for c in cands[1:] if key(c.value) != key(cands[0].value)), None)
    conf = 0.35 + 0.07 * max(min(top, 8.0), 0.0)
    if rival is not None and top - rival < 1.5:
        conf -= 0.2
    return max(0.05, min(conf, 0.97))
