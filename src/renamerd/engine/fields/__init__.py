"""Field extraction: date, issuer, invoice_number, document_type, amount, currency.

`extract(pages)` takes the text of the pages read so far and returns an `Extraction` with the
values, a confidence per field, the evidence for each, and the detected language. Everything
runs on precompiled regexes built from the lexicon; a page costs a few milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from renamerd.engine.fields.amounts import total_amount
from renamerd.engine.fields.dates import DateCandidate, best_date, infer_day_first
from renamerd.engine.fields.doctype import (
    CITING_TYPES,
    TypeGuess,
    guess_type,
    label_kind,
    type_confidence,
    with_due_date,
    with_own_number,
)
from renamerd.engine.fields.document import Doc
from renamerd.engine.fields.issuer import issuer_candidates, issuer_confidence
from renamerd.engine.fields.numbers import (
    ORDER_NUMBERED,
    NumberCandidate,
    invoice_numbers,
    number_confidence,
)
from renamerd.engine.language import detect
from renamerd.engine.lexicon import load
from renamerd.engine.types import Evidence

#: document types that normally carry a number worth putting in the name
NUMBERED_TYPES = frozenset({"invoice", "credit_note", "reminder", "quote", "order_confirmation",
                            "delivery_note", "receipt"})


#: a field found with less confidence than this is weak: another page is read if there is one
WEAK = {"date": 0.5, "issuer": 0.8}


@dataclass
class Extraction:
    """What the built-in extractor found. Absent fields are missing from `values`."""

    values: dict[str, Any] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    language: str | None = None

    def missing(self) -> list[str]:
        """Core fields still missing or weak (worth reading another page for: a letterhead
        drawn as an image names the sender in the last page's footer or payment details)."""
        out = [f for f in ("date", "issuer")
               if f not in self.values or self.confidence.get(f, 0.0) < WEAK[f]]
        if self.values.get("document_type", "other") == "other":
            out.append("document_type")
        if (self.values.get("document_type") in NUMBERED_TYPES
                and "invoice_number" not in self.values):
            out.append("invoice_number")
        return out

    def overall_confidence(self) -> float:
        """One number for the whole result: the weighted mean of the core fields' confidence.

        A missing core field counts as 0; the invoice number counts only for numbered types.
        """
        weights = {"date": 0.35, "issuer": 0.35, "document_type": 0.2}
        if self.values.get("document_type") in NUMBERED_TYPES:
            weights["invoice_number"] = 0.1
        total = sum(weights.values())
        score = sum(w * self.confidence.get(f, 0.0) for f, w in weights.items())
        return round(score / total, 4)


#: a US address's state and ZIP code ("New York, NY 10001", "SPRINGFIELD IL 62701", "Palo
#: Alto California 94301")
_US_ADDRESS = re.compile(
    r"(?:,\s?|(?<=[A-Za-z])\s)"
    r"(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|"
    r"N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY]|"
    r"(?i:Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|"
    r"Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|"
    r"Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|"
    r"New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|"
    r"Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|"
    r"Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming))\s\d{5}(?:-\d{4})?\b")


def _own_dates_first(dates: list[DateCandidate], numbers: list[NumberCandidate], kind: str,
                     language: str) -> list[DateCandidate]:
    """`dates` with those of the documents a reminder or a credit note (`kind`) cites last: a
    date on the line of another type's number ("Rechnung Nr. RE-2026-0412 vom 05.02.2026"),
    or joined to it on the line below ("zur Rechnung Nr. 2026-1193" / "vom 24.06.2026"), or
    under another type's date label ("Rechnungsdatum", "Laskun päivämäärä") where a date of
    its own has a label too, or a reminder's issue-date words after another type's word
    ("the invoice below, issued on July 10"), and that date wherever else it stands."""
    cited = {c.line.index for c in numbers if _number_kind(c, language) not in (None, kind)}
    typed = {d.label: label_kind(d.label, language) for d in dates if d.label}
    own = {d.value for d in dates if d.label and d.label_kind in ("issue_date", "date")
           and typed[d.label] in (None, kind)}
    # (a credit note's software may label its own date as an invoice's: then it is its own)
    own_label = kind == "reminder" or bool(own)

    def cites(d: DateCandidate) -> bool:
        # (joined by a short word, not a date's own label: "vom", "du", "del", not "Date";
        # or under another type's date label, "Rechnungsdatum" in a reminder's table)
        return (d.line.index in cited or (d.line.index - 1 in cited and len(d.label) <= 4
                                           and not d.label.startswith("dat"))
                or (own_label and typed.get(d.label) not in (None, kind)
                    and d.value not in own)
                or (kind == "reminder" and d.label_kind == "issue_date"
                    and typed.get(d.label) is None and label_kind(
                        d.line.folded[:d.start - d.line.start], language) not in (None, kind)))

    # (and the same date wherever it stands again: the cited invoice's row in a table)
    theirs = {d.value for d in dates if cites(d)}
    return ([d for d in dates if d.value not in theirs]
            + [d for d in dates if d.value in theirs])


def _number_kind(number: NumberCandidate, language: str) -> str | None:
    """The type `number`'s label names, or the type words right before a label that names
    none ("Hyvityslasku nro 26044", "laskullamme nro 25981": our invoice's)."""
    kind = label_kind(number.label, language)
    if kind is None:
        before = number.line.folded[:max(number.line.folded.find(number.label), 0)].split()
        kind = label_kind(" ".join(before[-2:]), language) if before else None
    return kind


#: what a number's label scores when it is specific (not a bare "Nr." or "n°")
SPECIFIC_SCORE = 3.0


def _without_levels(numbers: list[NumberCandidate], kinds: list[str | None], kind: str
                    ) -> tuple[list[NumberCandidate], list[str | None]]:
    """`numbers` and their `kinds` without a reminder's level ("Rykker nr. 2", "Reminder no.
    1"): one or two digits after a reminder's own word."""
    kept = [(c, k) for c, k in zip(numbers, kinds, strict=True)
            if not (kind == k == "reminder" and c.value.isdigit() and len(c.value) <= 2)]
    return [c for c, _ in kept], [k for _, k in kept]


def _type_and_number(doc: Doc, language: str, dates: list[DateCandidate]
                     ) -> tuple[TypeGuess, list[NumberCandidate], list[DateCandidate]]:
    """The type, the number candidates (best first) and `dates` as the type orders them: a
    receipt naming a due date is an invoice, an untitled page the type its number's label
    names; an order's number counts only on an order's papers; a reminder's or credit
    note's own number and date come before those of the invoice it cites."""
    guess = guess_type(doc, language)
    if guess.value == "receipt":
        guess = with_due_date(guess, any(d.label_kind == "due_date" for d in dates))
    numbers = invoice_numbers(doc, language)
    own = next((c for c in numbers if not c.order), None)
    guess = with_own_number(guess, own.label if own else "", language)
    if guess.value not in ORDER_NUMBERED:
        numbers = [c for c in numbers if not c.order]
    if guess.value == "invoice":
        # (an invoice cites its delivery note, order or quote: "bon de livraison n° 8841")
        theirs = [c for c in numbers if _number_kind(c, language) in CITING_TYPES]
        numbers = [c for c in numbers if c not in theirs] + theirs
    if guess.value in CITING_TYPES:
        # (its own number's label names its own type, "Mahnung Nr.", "Gutschrift-Nr."; then
        # a specific label naming no type, "Storno-Nr.", "Notre réf."; then the rest, the
        # cited document's "Rechnung Nr." and a bare "n°" by their scores)
        kinds = [_number_kind(c, language) for c in numbers]
        # (a reminder's one or two digits after its own word are its level: "Rykker nr. 2")
        numbers, kinds = _without_levels(numbers, kinds, guess.value)
        mine = [c for c, k in zip(numbers, kinds, strict=True) if k == guess.value]
        mine += [c for c, k in zip(numbers, kinds, strict=True)
                 if k is None and c.score >= SPECIFIC_SCORE]
        numbers = mine + [c for c in numbers if c not in mine]
        dates = _own_dates_first(dates, numbers, guess.value, language)
    return guess, numbers, dates


def extract(pages: list[str], language_hint: str | None = None) -> Extraction:
    """Extract every field from page texts. Pure; safe to repeat; never raises on odd text."""
    doc = Doc.from_pages(pages)
    result = Extraction()
    if not doc.lines:
        result.values["document_type"] = "other"
        result.confidence["document_type"] = 0.1
        return result
    language, _scores = detect(doc.folded)
    if language is None:
        language = language_hint if language_hint else "en"
    result.language = language
    table = load(language)

    amount, currency, amount_line = total_amount(doc, language)
    day_first, decided = infer_day_first(doc, bool(table["day_first"]))
    # (the language's default counts only when the document's own dates leave the order open)
    if not decided and language == "en" and (currency == "USD" or _US_ADDRESS.search(doc.text)):
        day_first = False  # a US document: 03/05/2024 is March 5
    dates, date_conf = best_date(doc, language, day_first, order_known=decided)

    guess, numbers, dates = _type_and_number(doc, language, dates)
    result.values["document_type"] = guess.value
    result.confidence["document_type"] = type_confidence(guess)
    if guess.evidence:
        result.evidence.append(Evidence("document_type", guess.value, guess.evidence, 1,
                                        "type keywords", round(guess.score, 2)))

    if dates:
        top = dates[0]
        result.values["date"] = top.value.isoformat()
        result.confidence["date"] = date_conf
        rule = f"label '{top.label}' ({top.label_kind})" if top.label else "unlabelled date"
        result.evidence.append(Evidence("date", top.value.isoformat(), top.line.text,
                                        top.line.page, rule, round(top.score, 2)))

    issuers = issuer_candidates(doc, language)
    if issuers:
        top_i = issuers[0]
        result.values["issuer"] = top_i.value
        result.confidence["issuer"] = issuer_confidence(issuers)
        result.evidence.append(Evidence("issuer", top_i.value, top_i.line.text, top_i.line.page,
                                        ", ".join(top_i.reasons) or "best line",
                                        round(top_i.score, 2)))

    if numbers:
        top_n = numbers[0]
        result.values["invoice_number"] = top_n.value
        result.confidence["invoice_number"] = number_confidence(numbers)
        result.evidence.append(Evidence("invoice_number", top_n.value, top_n.line.text,
                                        top_n.line.page, f"label '{top_n.label}'",
                                        round(top_n.score, 2)))

    if amount is not None and amount_line is not None:
        result.values["amount"] = amount
        result.evidence.append(Evidence("amount", amount, amount_line.text, amount_line.page,
                                        "total label"))
        if currency:
            result.values["currency"] = currency
    return result


def warm_up() -> None:
    """Build every cached keyword pattern for every lexicon language now, instead of during the
    first documents of a process (about 2 s in all). Pure; safe to repeat (free the second
    time)."""
    from renamerd.engine import language as language_mod
    from renamerd.engine.fields import (
        amounts,
        columns,
        dates,
        doctype,
        glued,
        issuer,
        issuer_labels,
        names,
        numbers,
    )
    from renamerd.engine.lexicon import LANGUAGES

    language_mod._table()
    columns._label_words()
    dates._month_table()
    dates._patterns()
    dates._weekdays()
    doctype._pos_cues()
    doctype._compounds()
    names.suffix_patterns()
    names.ocr_fixes()
    names.any_ocr_fix()
    names.business_words()
    names.address_words()
    names.never_names()
    names._department_at_end()
    glued._labels()
    glued._labels_after_digits()
    glued._labels_after_letters()
    issuer_labels._thanks()
    numbers._other_words_before()
    for lang in LANGUAGES:
        issuer_labels.seller_labels(lang)
        issuer_labels.seller_labels(lang, "operator")
        dates._label_pattern(lang)
        doctype._recipient_label(lang)
        doctype._patterns(lang)
        issuer._vocab(lang)
        numbers._number_labels(lang)
        numbers._title_labels(lang)
        issuer_labels._sign_offs(lang)
        amounts._total_labels(lang)
    extract(["Invoice No. 1\nInvoice date: 2024-01-02\nACME Ltd\nTotal: 1.00 EUR"])

