"""The document type, from type keywords of the lexicon (headings weigh three times more)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.lexicon import LANGUAGES, alternation, common, fold, kin, load

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX0 = re.compile(r"[ \t]+")

HEADING_LINES = 8
#: a type scored under this has no title or heading behind it (only words of the body)
WEAK_TYPE_SCORE = 3.0
#: the most lines a till slip's text has (a long receipt has some 180): a longer text's
#: "cash" and "thank you" are a card statement's ("Blue Cash", "PAYMENT - THANK YOU")
MAX_TILL_LINES = 200
#: point-of-sale cues that make a document titled as an invoice a receipt
TILL_CUES = 3
#: the longest line that can head a page (longer: a sentence, a paragraph run into one line)
HEADING_WIDTH = 120
#: more specific types win ties against the general ones they resemble
PRIORITY = ("credit_note", "reminder", "order_confirmation", "delivery_note", "payslip",
            "bank_statement", "tax_document", "quote", "receipt", "invoice", "insurance",
            "contract", "letter")


#: what follows a type word that names another document's number or date ("Lieferschein-Nr",
#: "Order No.", "Bestell-Datum"): a reference, not this document's type
_LABEL_WORDS = r"nr|no|nummer|number|num|n°|nº|#|datum|date|dato|data|fecha"
_REFERENCE = re.compile(rf"[\s.-]*(?:{_LABEL_WORDS})(?![^\W\d_])")
#: what precedes a type word that names another document's number, in the languages that
#: write the number first ("Nº de contrato", "Numéro de commande", "n.º do contrato",
#: "Numero contratto", "Číslo smlouvy"), up to the type word
_REFERENCE_BEFORE = re.compile(r"(?<![^\W\d_])(?:n[°o]|n\.o|nr|numero|cislo)\.?\s*"
                               r"(?:(?:de|del|do|da|du|della|dello)\s+(?:la\s+)?|d')?$")
#: what a title line's keyword weighs (a heading's 3 and a title's 2)
TITLE_WEIGHT = 5.0
#: a title's own number, the rest of its line ("Stornorechnung Nr. ST-2026-0031")
_OWN_NUMBER = re.compile(r"\s+(?:(?:nr|no|n[°º])\.?\s*)?[^\W_][\w/.-]*\d[\w/.-]*\s*")
#: a letter's subject label before a type word ("Betreft: factuur 2026-0118", "Bezug:
#: Rechnung RE-2026-1143", "Objet : Relance – facture n° ..."): with a number after the type
#: word, the subject is the document the letter is about
_SUBJECT_BEFORE = re.compile(r"^(?:(?:betreft|betreff|bezug|objet|oggetto|asunto|assunto|dotyczy"
                             r"|angaende|vedr\.?|vedrorende|koskee|vec|konu|re|subject"
                             r"|onderwerp)\s*:|(?:avser|galler|angaende|vedrorende|koskien"
                             r"|bezuglich|betreffend|concernant|regarding|concerning)) *$")
#: a document's number right after its type word ("factuur 2026-0118", "Rechnung Nr. 5")
_NUMBER_AFTER = re.compile(r"\s+(?:(?:nr|no|n[°º])\.?\s*)?[^\W_]{0,4}[-/]?\d")
#: an elided word before a heading's keyword: a verb's infinitive, not a title ("d'avoir")
_ELIDED = ("d'", "n'")
#: a zero amount after a receipt's words ("Amount Paid 0.00", "Paid: $0.00")
_NOTHING = re.compile(r"\s*:?\s*(?:[$€£]|[a-z]{3}\s?)?0(?:[.,]00)?(?![\d.,])")
#: "receipt" meaning the goods' or the bill's arrival, a payment term ("Due on Receipt",
#: "payable upon receipt", "date of receipt"): no type
_ARRIVAL = re.compile(r"(?:\b(?:on|upon|after|of)\s+)$")
#: a type word heading a column of amounts ("Belastung in EUR | Gutschrift in EUR"), no title
_AMOUNT_COLUMN = re.compile(r"\s*(?:in\s+)?\(?(?:eur|€|chf|usd|gbp|sek|nok|dkk|pln|czk)\)?(?!\w)")
#: a title written letter-spaced ("W A R E N R E C H N U N G", "I N V O I C E")
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_] ){3,}[^\W\d_](?![^\W\d_])")
#: a compound written with a hyphen ("RECHNUNGS-KORREKTUR", "Gut-Schrift")
#: (from a word's start only: the leftmost match starts there anyway, and each offset inside a
#: word would scan to its end and back)
_HYPHENATED = re.compile(r"(?<![^\W\d_])[^\W\d_]{2,}(?:-[^\W\d_]{2,})+")
#: a digit right after a letter ("CASHIER01"), to be written after a blank (starts with "\d":
#: `re` skips to the digits)
_WORD_DIGITS = re.compile(r"\d(?<=[^\W\d_]\d)")
_TIME = re.compile(r"(?<!\d)(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?!\d)")
#: a number written with its sign inside a title, and the blank before it ("Order #743234
#: Confirmed"; at the end, "Invoice #5371" names this document's number: see _REFERENCE)
_NUMBER_SIGN = re.compile(r" ?#\d+(?= \S)")
#: a keyword used as a label, its value after a colon ("CONTRATO: 702")
_LABELLED = re.compile(r"\s*:\s*\S")
#: a keyword labelling a number after its colon, a code holding a digit ("Presupuesto:
#: P-2025-398", "Order: 4471"): a document's number, like "Order No."
_LABELLED_NUMBER = re.compile(r"\s*:\s*[^\s\d]{0,6}\d")
#: a cited document's type word after "original" in its cell, its number in the next cell
#: ("Original tax invoice | INV-118734" on a credit note; not the copy mark "ORIGINAL INVOICE")
_ORIGINAL_BEFORE = re.compile(r"(?:^|\| )(?:original|ursprungliche[nr]?|originale|d'origine"
                              r"|oorspronkelijke|pierwotn[aey]|alkuperainen|opprinnelig"
                              r"|oprindelig|ursprunglig|puvodni|orijinal)\s+(?:[^\W\d_]+\s+)?$")
_NEXT_CELL_NUMBER = re.compile(r"\s*\|\s*[^\s\d|]{0,6}\d")
_MIDNIGHT = re.compile(r"0?0:00(?::00)?")
#: a clock time written with a dot, right before a date ("13.24 1.8.2026")
_DOTTED_TIME = re.compile(r"(?<![\d.,])(?:[01]?\d|2[0-3])\.[0-5]\d\s+\d{1,2}\.\d{1,2}\.\d{2,4}")
#: what every _TIME match holds (found faster: `re` skips to the digits)
_CLOCK = re.compile(r"\d:[0-5]\d")


@functools.cache
def _pos_cues() -> re.Pattern[str]:
    """The till cues, and the longer phrases holding one that are none ("tipo de cambio": an
    exchange rate, not the change handed back), which the longest match takes first."""
    return re.compile(alternation([*common()["pos_cues"], *_lookalikes()]))


@functools.cache
def _subtotals() -> re.Pattern[str]:
    return re.compile(alternation(common()["till_subtotals"]))


@functools.cache
def _lookalikes() -> frozenset[str]:
    return frozenset(fold(p) for p in common()["pos_cue_lookalikes"])


@dataclass(frozen=True)
class TypeGuess:
    value: str
    score: float
    scores: dict[str, float]
    evidence: str


@functools.cache
def _recipient_label(language: str) -> re.Pattern[str]:
    labels: set[str] = set()
    for lang in {language, "en"}:
        labels.update(load(lang)["labels"]["recipient"])
    return re.compile(r"^(?:" + alternation(labels) + r")\s*(?::|$)")


@functools.cache
def _compounds() -> tuple[re.Pattern[str], dict[str, str]]:
    """Keywords marked `*`: they also count as the end of a compound word."""
    ends: dict[str, str] = {}
    for lang in LANGUAGES:
        for kind, phrases in load(lang)["types"].items():
            for p in phrases:
                if p.startswith("*"):
                    ends.setdefault(fold(p[1:]), kind)
    if not ends:
        return re.compile(r"(?!x)x"), ends
    alt = "|".join(re.escape(e) for e in sorted(ends, key=len, reverse=True))
    return re.compile(rf"(?<!\w)\w+?({alt})(?!\w)"), ends


@functools.cache
def _patterns(language: str) -> tuple[re.Pattern[str], dict[str, tuple[str, bool]]]:
    kinds: dict[str, tuple[str, bool]] = {}
    langs = [language, "en"] if language != "en" else ["en"]
    langs += [lang for lang in kin(language) if lang not in langs]
    for i, lang in enumerate(langs):
        for kind, phrases in load(lang)["types"].items():
            for p in phrases:
                if p.startswith("*"):
                    continue
                heading_only = p.startswith("^")
                key = fold(p.lstrip("^"))
                if i >= 2 and (heading_only or len(key) < 6):
                    continue  # other languages: only long, specific words
                kinds.setdefault(key, (kind, heading_only))
    # (a number may touch its title, as OCR drops the blank: "RECHNUNG25777/1001")
    return re.compile(alternation(set(kinds), then=r"(?![^\W\d_])")), kinds


def till_cues(doc: Doc) -> set[str]:
    """Point-of-sale words found ("cashier", "change"...), and "time of day" for a clock time."""
    # (a till prints numbers onto its words: "CASHIER01", "TABLE12", "POS2")
    text = (_WORD_DIGITS.sub(r" \g<0>", doc.folded) if _WORD_DIGITS.search(doc.folded)
            else doc.folded)
    cues = set(m.group(0) for m in _pos_cues().finditer(text)) - _lookalikes()
    # (midnight is a date field's empty time, "20/08/2026 0:00:00", not a till's stamp)
    if _CLOCK.search(doc.folded) and any(not _MIDNIGHT.fullmatch(m.group(0))
                                         for m in _TIME.finditer(doc.folded)):
        cues.add("time of day")
    elif "." in doc.folded and _DOTTED_TIME.search(doc.folded):
        cues.add("time of day")  # Finland's and Norway's "13.24 1.8.2026"
    return cues


@functools.cache
def _total_labels(language: str) -> re.Pattern[str]:
    """A line opening with a total's label of `language` and holding an amount on it."""
    return re.compile(r"^(?:" + alternation(load(language)["labels"]["total"]) + r")[^\d\n]*\d",
                      re.M)


def guess_type(doc: Doc, language: str) -> TypeGuess:
    """The best document type ("other" when nothing matched) with per-type scores."""
    pattern, kinds = _patterns(language)
    scores, evidence, addressed = _keyword_scores(doc, pattern, kinds, language)
    compounds, ends = _compounds()
    for line in doc.lines[:HEADING_LINES]:
        if line.page != 1:
            continue
        for m in compounds.finditer(line.folded):
            kind = ends[m.group(1)]
            scores[kind] = scores.get(kind, 0.0) + 3.0
            evidence.setdefault(kind, line.text)
    for joined, text in _spaced_titles(doc):  # a title line wherever it is
        found = [kinds[_RX0.sub(" ", m.group(0))][0] for m in pattern.finditer(joined)]
        found += [ends[m.group(1)] for m in compounds.finditer(joined)]
        longest = max(map(len, kinds))
        found += [ending for word in joined.split()
                  if (ending := _ending_kind(word, kinds, longest))]
        for kind in dict.fromkeys(found):
            scores[kind] = scores.get(kind, 0.0) + 5.0
            evidence.setdefault(kind, text)
    if not scores:
        # (with no type word at all, a subtotal and a total's line are a till's cues too:
        # "S-Total $19.39", "TOTALE COMPLESSIVO 1.28")
        cues = till_cues(doc) | set(_subtotals().findall(doc.folded)[:1])
        if _total_labels(language).search(doc.folded):
            cues.add("total")
        if len(cues) >= _till_cues_needed(cues, addressed) and len(doc.lines) <= MAX_TILL_LINES:
            # no type word, but a till slip's words: a receipt
            return TypeGuess("receipt", 1.0, {"receipt": 1.0},
                             "point-of-sale cues: " + ", ".join(sorted(cues)))
        return TypeGuess("other", 0.0, {}, "")
    # (looked for only when they could matter: a till slip titled "tax invoice", or one whose
    # only type words are in its body, as a loyalty account's "opening balance")
    top = max(scores.values())
    # (weak: no receipt word leads alone; a loyalty account's "CLOSING BALANCE" ties with
    # "THANK YOU FOR SHOPPING" on a till slip)
    leaders = [kind for kind, score in scores.items() if score == top]
    weak = top < WEAK_TYPE_SCORE and leaders != ["receipt"]
    cues = (till_cues(doc) if (weak or scores.get("invoice", 0) >= scores.get("receipt", 0))
            and len(doc.lines) <= MAX_TILL_LINES else set())
    if len(cues) >= _till_cues_needed(cues, addressed):
        # cashier, cash, change, a card terminal's ids, a time...: a receipt (a slip addressed
        # to nobody, stamped with its time, needs one cue besides the time)
        scores["receipt"] = max(scores.get("invoice", 0), top if weak else 0) + 1.0
        evidence.setdefault("receipt", "point-of-sale cues: " + ", ".join(sorted(cues)))
    best = max(scores, key=lambda k: (scores[k], -PRIORITY.index(k) if k in PRIORITY else -99))
    return TypeGuess(best, scores[best], scores, evidence[best])


def _keyword_scores(doc: Doc, pattern: re.Pattern[str], kinds: dict[str, tuple[str, bool]],
                    language: str) -> tuple[dict[str, float], dict[str, str], bool]:
    """The type keywords' scores of every line, the first line naming each type, and whether
    a recipient's label stands on the page."""
    recipient = _recipient_label(language)
    scores: dict[str, float] = {}
    evidence: dict[str, str] = {}
    addressed = False
    titled: set[str] = set()  # (the kinds a title line named so far)
    for line in doc.lines:
        if recipient.match(line.folded):
            addressed = True
            continue  # "Facturé à:", "Bill to:" name the recipient, not the type
        # (a sentence is no heading, wherever it stands: a privacy notice printed on top, a
        # sentence going on from the line above)
        # (a brand in small letters may open a line of two columns: "fibrelande | Relance")
        heading = (line.index < HEADING_LINES and line.page == 1
                   and len(line.text) <= HEADING_WIDTH
                   and (not line.text[:1].islower() or " | " in line.text)
                   or _title_alone(line, pattern))
        for kind, weight, numbered in _line_keywords(line, pattern, kinds, heading):
            if numbered and titled - {kind}:
                # (another paper's type and number under this one's title: a reference,
                # "Følgeseddel FS-2026-11731" in an invoice's block of references)
                weight *= 0.25
            elif weight >= TITLE_WEIGHT:
                titled.add(kind)
            scores[kind] = scores.get(kind, 0.0) + weight
            evidence.setdefault(kind, line.text)
    return scores, evidence, addressed


#: what may stand around a title alone on its line: an ordinal before it ("1. Mahnung",
#: "2nd"), a bracket or a colon after it ("Factura rectificativa (abono)")
_ORDINAL = re.compile(r"(?:\d{1,2}(?:\.|st|nd|rd|th)?\s+)?")
#: a word qualifying a title ("Friendly Payment Reminder", "Letzte Mahnung")
_QUALIFIER = re.compile(r"[^\W\d_]+\s+")
_AFTER_TITLE = re.compile(r"\s*(?:\([^()]{1,20}\)|:)?\s*"
                          # (or its own number: "Stornorechnung ST-2026-0019")
                          rf"|{_OWN_NUMBER.pattern}"
                          # (or a subtitle after a dash: "Deuxième relance – facture impayée")
                          r"|\s+[–-]\s+[^\W\d_]+(?:\s+[^\W\d_]+){0,3}\s*")
#: a number's or date's word (_REFERENCE's) inside a type phrase: a label ("invoice number")
_LABEL_WORD = re.compile(rf"(?<![^\W\d_])(?:{_LABEL_WORDS})(?![^\W\d_])")
#: how far down page 1 a title alone on its line stands (under an address window and a
#: block of references: a DIN letter's title is its fifteenth line or so)
TITLE_LINES = 24


def _title_alone(line: Line, pattern: re.Pattern[str]) -> bool:
    """`line` is a title alone on its line near the top of page 1: one type phrase, maybe
    after an ordinal or a word or two and before a bracket, its own number or a subtitle after
    a dash ("1. Mahnung", "SOLLECITO DI PAGAMENTO", "Friendly Payment Reminder", "Stornorechnung
    ST-2026-0019", "Deuxième relance – facture impayée");
    or a line in capitals holding a type phrase and no number's or date's word ("SECOND
    REMINDER – OVERDUE ACCOUNT", "OSTATECZNE PRZEDSĄDOWE WEZWANIE DO ZAPŁATY")."""
    if (line.page != 1 or line.index >= TITLE_LINES or len(line.text) > 60
            or line.text[:1].islower()):  # (a sentence going on: "offerte OF-2025-187.")
        return False
    text = line.folded
    if (line.text.isupper() and not any(map(str.isdigit, text))
            and pattern.search(text) and not _LABEL_WORD.search(text)):
        return True
    start = _ORDINAL.match(text).end()  # type: ignore[union-attr]
    m = pattern.match(text, start)
    for _ in range(2):  # (after a word or two qualifying it)
        word = None if m else _QUALIFIER.match(text, start)
        if word is None:
            break
        start = word.end()
        m = pattern.match(text, start)
    # (not a label over its value: "Invoice Number" / "0000183")
    return (m is not None and _AFTER_TITLE.fullmatch(text, m.end()) is not None
            and not _LABEL_WORD.search(m.group(0)))


def _line_keywords(line: Line, pattern: re.Pattern[str], kinds: dict[str, tuple[str, bool]],
                   heading: bool) -> Iterator[tuple[str, float, bool]]:
    """Each type keyword of `line`, its weight (a heading's only where `heading`) and whether
    only its number follows it on the line ("Følgeseddel FS-2026-11731"); a kind after
    another kind's word weighs a quarter: what the title is about ("Mahnung zu Ihrer
    Rechnung 17")."""
    # (a number inside a title is read past: "Order #743234 Confirmed")
    text = _NUMBER_SIGN.sub("", line.folded) if "#" in line.folded else line.folded
    first = None
    for m in pattern.finditer(text):
        kind, heading_only = kinds[_RX0.sub(" ", m.group(0))]
        # (a title alone on its line under an address window counts: "Your electricity bill")
        if heading_only and not heading and not (
                line.page == 1 and line.index < 2 * HEADING_LINES and m.start() == 0
                and m.end() == len(text.rstrip(" :"))):
            continue
        if heading_only and text[max(0, m.start() - 2):m.start()] in _ELIDED:
            continue  # a verb, "Merci d'avoir choisi Rydo" (the credit note is "Avoir n° 12")
        if m.group(0) == "receipt" and _ARRIVAL.search(text, max(0, m.start() - 8), m.start()):
            continue
        if kind == "receipt" and _NOTHING.match(text, m.end()):
            continue  # "Amount Paid 0.00": nothing paid yet, an invoice's line
        # (a salutation or a closing is a letter's, never a title, wherever it stands)
        weight = _keyword_weight(m, text, heading and kind != "letter", line.page)
        if first is not None and kind != first:
            weight *= 0.25
        first = first or kind
        yield kind, weight, _OWN_NUMBER.fullmatch(text, m.end()) is not None


def _keyword_weight(m: re.Match[str], text: str, heading: bool, page: int) -> float:
    """What type keyword `m` in a line's (folded) `text` weighs: three in a heading, five in
    a title line, half on a later page, a quarter before a number's or date's label or a
    column of amounts (not when the line is the title and its own number alone)."""
    weight = 3.0 if heading else 1.0
    # (of a line of columns, the keyword's own column: "fibrelande | Relance – facture")
    start = text.rfind(" | ", 0, m.start()) + 1
    end = text.find(" | ", m.end())
    end = len(text) if end < 0 else end
    if heading and end - start <= len(m.group(0)) + 25 and not _LABELLED.match(text, m.end()):
        weight += 2.0  # a title line: the keyword is most of the line (not "CONTRATO: 702")
    if page > 1:
        weight *= 0.5
    # (a title and its own number, all of its line: "Stornorechnung Nr. ST-2026-0031")
    own_title = heading and m.start() == 0 and _OWN_NUMBER.fullmatch(text, m.end()) is not None
    if own_title:
        return weight
    subject = _SUBJECT_BEFORE.match(text, 0, m.start())
    if (_REFERENCE.match(text, m.end()) or _REFERENCE_BEFORE.search(text, 0, m.start())
            or _LABELLED_NUMBER.match(text, m.end())
            or (_NEXT_CELL_NUMBER.match(text, m.end())
                and _ORIGINAL_BEFORE.search(text, 0, m.start()))
            or (subject and _NUMBER_AFTER.match(text, m.end()))):
        weight *= 0.25  # another document's number or date ("Presupuesto: P-2025-398")
    elif _AMOUNT_COLUMN.match(text, m.end()):
        weight *= 0.25
    elif subject and ":" in subject.group(0):
        weight = max(weight, TITLE_WEIGHT)  # a letter's subject names what it is ("Oggetto:
        # Sollecito di pagamento"), unless a number follows (the paper it is about, above)
    return weight


def with_due_date(guess: TypeGuess, due: bool) -> TypeGuess:
    """`guess`, or an invoice when it is a receipt only by its point-of-sale cues while the
    document names a type word of an invoice and a date its payment is due (`due`): a till's
    slip is paid when it is printed."""
    if (not due or guess.value != "receipt" or not guess.scores.get("invoice")
            or not guess.evidence.startswith("point-of-sale cues")):
        return guess
    return TypeGuess("invoice", guess.scores["invoice"], guess.scores,
                     "type keyword and a due date")


#: the types of documents that cite another's number (the invoice they are about) beside
#: their own
CITING_TYPES = ("credit_note", "reminder", "quote", "order_confirmation", "delivery_note")
#: the types whose own number a document's number label may name
_NUMBERED_TYPES = ("invoice", "credit_note", "quote")
#: the weak guesses a number's label may overrule: not a receipt (a till's "Invoice No" is its
#: count), a credit note or a reminder (they cite the invoice they are about)
_UNNUMBERED_TYPES = ("other", "letter", "contract", "insurance")


def label_kind(label: str, language: str) -> str | None:
    """The type a number's label names ("Gutschrift-Nr." a credit note's, "Rechnung Nr." an
    invoice's, "Fakturanr", "PÅMINNELSENR": a type word opening a compound), None when it
    names none."""
    pattern, kinds = _patterns(language)
    folded = fold(label)
    m = pattern.search(folded)
    if m:
        return kinds[_RX0.sub(" ", m.group(0))][0]
    first = folded.split(" ", 1)[0]
    return next((kinds[first[:end]][0] for end in range(len(first) - 1, 4, -1)
                 if first[:end] in kinds), None)


def with_own_number(guess: TypeGuess, label: str, language: str) -> TypeGuess:
    """`guess`, or the type that the label of the document's own number names ("Bill
    number", "Nº de factura") when no title or heading named one: a bill whose only type
    words are its labels, beside a credit agreement in its small print. A till slip's type
    stands (its "Invoice No" is a till's count)."""
    if guess.score >= WEAK_TYPE_SCORE or guess.value not in _UNNUMBERED_TYPES or not label:
        return guess
    kind = label_kind(label, language)
    if kind not in _NUMBERED_TYPES or kind == guess.value:
        return guess
    return TypeGuess(kind, guess.score, guess.scores, f"the document's number: {label}")


def _till_cues_needed(cues: set[str], addressed: bool) -> int:
    """How many point-of-sale cues make a slip a receipt: TILL_CUES, or two when it is
    addressed to nobody and stamped with its time of day (the time and one word)."""
    return TILL_CUES if addressed or "time of day" not in cues else 2


def type_pattern(language: str) -> re.Pattern[str]:
    """The type words and phrases the type guesser reads in `language` ("rechnung", "tax
    invoice", "order confirmation"...), as one pattern over folded text (built once)."""
    return _patterns(language)[0]


def type_compound(word: str, language: str) -> bool:
    """`word` (one word) is a document's type written as a compound ("Transaktionsbeleg",
    "Wertpapierabrechnung", "Jahresrechnung"): a title, no name."""
    _, kinds = _patterns(language)
    folded = fold(word)
    return len(folded) >= 8 and _ending_kind(folded, kinds, max(map(len, kinds))) is not None


def _ending_kind(word: str, kinds: dict[str, tuple[str, bool]], longest: int) -> str | None:
    """The type of the longest type word (5 letters or more, `longest` at most) `word` ends
    with: "warenrechnung" and "kostenrechnung" are invoices, "gehaltsabrechnung" a payslip.
    (Each ending of `word` is looked up, longest first: a line of many words costs a few
    lookups per word, not one per type word.)"""
    for start in range(max(0, len(word) - longest), len(word) - 4):
        kind = kinds.get(word[start:])
        if kind is not None:
            return kind[0]
    return None


def _spaced_titles(doc: Doc) -> list[tuple[str, str]]:
    """(folded text with the letters joined, text) of the first page's lines holding a
    letter-spaced title: "W A R E N R E C H N U N G" is read as "warenrechnung"; or a
    hyphenated one: "RECHNUNGS-KORREKTUR" as "rechnungskorrektur", "CREDIT-NOTE" as both
    "creditnote" and "credit note"."""
    out = []
    for line in doc.lines:
        if line.page != 1:
            break
        if _SPACED.search(line.folded):
            out.append((_SPACED.sub(lambda m: m.group(0).replace(" ", ""), line.folded),
                        line.text))
        elif "-" in line.folded and ":" not in line.folded:
            # a title written with a hyphen, most of its line ("RECHNUNGS-KORREKTUR Seite 1"),
            # no label ("Lieferschein-Nr.: 5" is a reference to another document)
            m = _HYPHENATED.search(line.folded)
            if (m is not None and 2 * len(m.group(0)) >= len(line.folded)
                    and len(m.group(0).rsplit("-", 1)[1]) > 3):
                joined = m.group(0)
                out.append((f"{joined.replace('-', '')} {joined.replace('-', ' ')}", line.text))
    return out


def type_confidence(guess: TypeGuess) -> float:
    if guess.value == "other":
        return 0.3
    rival = max((s for k, s in guess.scores.items() if k != guess.value), default=0.0)
    conf = 0.55 + 0.06 * min(guess.score, 6.0)
    if guess.score - rival < 2.0:
        conf -= 0.2
    return max(0.1, min(conf, 0.97))
