"""Conditions written in instructions: amounts ("over 400 GBP", "unter 50 €"), dates ("before
March 2024", "nach dem 01.03.2024"), years and months ("from 2023", "in March"), and
keywords ("containing 'Stadtwerke'"). Each is found in a clause, taken, and returned with its
position so the parser can tell which folder rule it belongs to.

Numeric dates in instructions are read day first (01.03.2024 is 1 March) unless written
YYYY-MM-DD; a month or year stands for its whole period ("before 2024" is before 1 January
2024, "after March 2024" after 31 March 2024).
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from babel.numbers import list_currencies

from renamerd.engine.instructions.model import AmountTest, DateTest
from renamerd.engine.instructions.scan import Clause
from renamerd.engine.instructions.vocab import Vocab, key

#: currency words and signs of the instruction languages -> ISO 4217 (codes are taken as is)
CURRENCY_WORDS = {
    "€": "EUR", "euro": "EUR", "euros": "EUR", "$": "USD", "us$": "USD", "dollar": "USD",
    "dollars": "USD", "dolares": "USD", "dollari": "USD", "dolares americanos": "USD",
    "£": "GBP", "pound": "GBP", "pounds": "GBP", "pfund": "GBP", "livres": "GBP",
    "libras": "GBP", "sterline": "GBP", "ponden": "GBP", "sterling": "GBP", "¥": "JPY",
    "yen": "JPY", "franken": "CHF", "r$": "BRL", "reais": "BRL", "real": "BRL", "₹": "INR",
    "kronen": "SEK", "kronor": "SEK", "zloty": "PLN", "zl": "PLN", "zł": "PLN",
}
_NUMBER = r"(?P<num>\d{1,3}(?:[.,' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)(?![\d.,]\d)"
_SYMBOL_OPS = {">": ">", ">=": ">=", "≥": ">=", "<": "<", "<=": "<=", "≤": "<="}
_YEAR = re.compile(r"(?<![\w/\\.-])(19\d\d|20\d\d)(?![\w/\\-]|\.\d)")
_NUMERIC_DATE = re.compile(r"(?<![\w/.-])(?:(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})[./-](\d{1,2})"
                           r"[./-](\d{4}))(?![\w/-])")
_QUOTE = r"""["“”«»']([^"“”«»']{1,60})["“”«»']"""
_NOT_KEYWORDS = frozenset({"and", "und", "et", "y", "e", "en", "or", "oder", "ou", "o", "of"})
_OR = r"\s*(?:,|or|oder|ou|o|of|and|und|et|y|e|en)\s*"
_THE_WORD = (r"(?:the\s+words?|das\s+wort|die\s+w[öo]rter|le\s+mot|les\s+mots|la\s+palabra|"
             r"las\s+palabras|la\s+parola|le\s+parole|het\s+woord|de\s+woorden|a\s+palavra|"
             r"as\s+palavras)")


@dataclass(frozen=True)
class Found:
    """A condition found at `start` (offset in the clause): `kind` amount | dates | year |
    month | keywords, and its value."""

    start: int
    kind: str
    value: Any


@functools.cache
def _currency_codes() -> frozenset[str]:
    return frozenset(code.lower() for code in list_currencies())


@functools.cache
def _amount_pattern(words: Vocab) -> re.Pattern[str]:
    ops = "|".join(re.escape(p) for p in sorted(
        words.cues["over"] | words.cues["under"] | words.cues["at_least"]
        | words.cues["at_most"], key=len, reverse=True))
    symbols = "|".join(re.escape(s) for s in sorted(_SYMBOL_OPS, key=len, reverse=True))
    currency = r"(?:[€$£¥₹]|us\$|r\$|[a-z]{3,11}\.?)"
    return re.compile(rf"(?:(?<!\w)(?P<op>{ops})(?!\w)|(?P<sym>{symbols}))\s*"
                      rf"(?P<cur1>[€$£¥₹]|us\$|r\$)?\s*{_NUMBER}\s*(?P<cur2>{currency})?")


def parse_number(text: str) -> Decimal | None:
    """'1.000' / '1,000' -> 1000, '400,50' -> 400.50, "1'000.00" -> 1000.00."""
    text = text.replace(" ", "").replace("'", "")
    last = max(text.rfind("."), text.rfind(","))
    if last >= 0 and len(text) - last - 1 in (1, 2):
        whole, frac = text[:last], text[last + 1:]
        text = re.sub(r"[.,]", "", whole) + "." + frac
    else:
        text = re.sub(r"[.,]", "", text)
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _currency(token: str | None) -> str | None:
    if not token:
        return None
    token = key(token).rstrip(".")
    if token in CURRENCY_WORDS:
        return CURRENCY_WORDS[token]
    return token.upper() if token in _currency_codes() else None


def _op(words: Vocab, m: re.Match[str]) -> str:
    if m.group("sym"):
        return _SYMBOL_OPS[m.group("sym")]
    word = key(m.group("op"))
    for kind, op in (("over", ">"), ("under", "<"), ("at_least", ">="), ("at_most", "<=")):
        if word in words.cues[kind]:
            return op
    return ">"


def find_amounts(clause: Clause, words: Vocab) -> list[Found]:
    """Amount conditions: a comparison, a number, a currency before or after it (optional;
    an unknown word after the number is left for the caller to report)."""
    out: list[Found] = []
    for m in list(clause.matches(_amount_pattern(words))):
        number = parse_number(m.group("num"))
        if number is None:
            continue
        cur2 = _currency(m.group("cur2"))
        end = m.end() if cur2 or not m.group("cur2") else m.start("cur2")
        currency = _currency(m.group("cur1")) or cur2
        op = _op(words, m)
        if op in (">", "<") and not currency and re.fullmatch(r"(19|20)\d\d", str(number)) \
                and key(m.group("op") or "") in words.cues["before"] | words.cues["after"]:
            continue  # "nach 2023": a year, read by the date rules
        clause.take(m.start(), end)
        out.append(Found(m.start(), "amount", AmountTest(op, number, currency)))
    return out


def _month_number(words: Vocab, name: str) -> int | None:
    return words.months.get(key(name).rstrip("."))


@functools.cache
def _date_expression(words: Vocab) -> re.Pattern[str]:
    months = "|".join(re.escape(m) for m in sorted(words.months, key=len, reverse=True))
    return re.compile(
        rf"(?P<numeric>\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}[./-]\d{{1,2}}[./-]\d{{4}})(?![\w/-])"
        rf"|(?P<day>\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s*(?:de\s+|of\s+)?(?P<dmonth>{months})"
        rf"(?:\s*,?\s*(?:de\s+)?(?P<dyear>\d{{4}}))?"
        rf"|(?P<month>{months})(?:\s+(?P<mday>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?,?)?"
        rf"(?:\s+(?:de\s+|del\s+|of\s+)?(?P<myear>\d{{4}}))?"
        rf"|(?P<year>(?:19|20)\d\d)(?![\w/-])")


def _period(words: Vocab, m: re.Match[str], default_year: int | None) -> tuple[dt.date,
                                                                              dt.date] | None:
    """(first day, last day) of the date, month or year matched."""
    try:
        if m.group("numeric"):
            parts = re.split(r"[./-]", m.group("numeric"))
            y, mo, d = (int(parts[0]), int(parts[1]), int(parts[2])) if len(parts[0]) == 4 \
                else (int(parts[2]), int(parts[1]), int(parts[0]))
            day = dt.date(y, mo, d)
            return day, day
        if m.group("year"):
            y = int(m.group("year"))
            return dt.date(y, 1, 1), dt.date(y, 12, 31)
        name = m.group("dmonth") or m.group("month")
        month = _month_number(words, name)
        year_text = m.group("dyear") or m.group("myear")
        year = int(year_text) if year_text else default_year
        if month is None or year is None:
            return None
        day_text = m.group("day") or m.group("mday")
        if day_text:
            day = dt.date(year, month, int(day_text))
            return day, day
        return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])
    except ValueError:
        return None


def find_dates(clause: Clause, words: Vocab) -> list[Found]:
    """Date conditions: a before/after word, then a date, a month (with its year) or a year."""
    out: list[Found] = []
    expression = _date_expression(words)
    for kind, op in (("before", "<"), ("after", ">")):
        for cue in list(clause.matches(words.rx(kind))):
            pos = clause.skip_blanks(cue.end())
            m = expression.match(clause.folded, pos)
            if not m or not clause.free(m.start(), m.end()):
                continue
            period = _period(words, m, None)
            if period is None:
                continue
            clause.take(cue.start(), m.end())
            bound = period[0] if op == "<" else period[1]
            out.append(Found(cue.start(), "dates", DateTest(op, bound)))
    return out


def find_periods(clause: Clause, words: Vocab) -> list[Found]:
    """Months (written out, with a year or after "in"/"im"/"en"...) and years; the
    preposition before them is taken too."""
    out: list[Found] = []
    months = "|".join(re.escape(m) for m in sorted(words.months, key=len, reverse=True))
    month_rx = re.compile(rf"(?<!\w)(?P<m>{months})(?!\w)(?:\s+(?:de\s+|del\s+)?(?P<y>(?:19|20)\d\d)"
                          rf"(?![\w/-]))?")
    for m in list(clause.matches(month_rx)):
        prep = _preposition_before(clause, words, m.start())
        if m.group("y") is None and prep is None:
            continue  # "may" alone is a word; "in May", "May 2024" are months
        clause.take(prep if prep is not None else m.start(), m.end())
        out.append(Found(m.start(), "month", _month_number(words, m.group("m"))))
        if m.group("y"):
            out.append(Found(m.start(), "year", int(m.group("y"))))
    for m in list(clause.matches(_YEAR)):
        prep = _preposition_before(clause, words, m.start())
        clause.take(prep if prep is not None else m.start(), m.end())
        out.append(Found(m.start(), "year", int(m.group(1))))
    return out


def _preposition_before(clause: Clause, words: Vocab, start: int) -> int | None:
    """The offset of a free "in"/"from"/"im"/"de"... right before `start`, if any."""
    head = clause.folded[:start].rstrip()
    for m in re.finditer(r"[\w']+$", head):
        word = m.group(0)
        if (word in words.cues["period"] or word.rstrip("'") + "'" in words.cues["period"]) \
                and clause.free(m.start(), m.end()):
            return m.start()
    return None


def find_keywords(clause: Clause, words: Vocab) -> list[Found]:
    """Keywords: a "containing" phrase with quoted words (or one plain word) after it, or
    quoted words before it ("die 'Strom' enthalten")."""
    out: list[Found] = []
    quoted_list = rf"{_QUOTE}(?:{_OR}{_QUOTE})*"
    for cue in list(clause.matches(words.rx("containing"))):
        after = re.compile(rf"\s*(?:{_THE_WORD}\s+)?(?:{quoted_list}|(?P<word>[^\W\d_][\w-]*))",
                           re.I).match(clause.text, cue.end())
        before = re.search(rf"(?:{quoted_list})\s*$", clause.text[:cue.start()])
        plain = after.group("word") if after else None
        if plain and key(plain) in words.cues["put"] | words.cues["fillers"] | _NOT_KEYWORDS:
            after = None  # "containing in Energy": no keyword was given
        if after and (after.group("word") is None or clause.free(after.start(), after.end())):
            span, found = (cue.start(), after.end()), _quoted(after.group(0))
            if after.group("word"):
                found = [after.group("word")]
        elif before:
            span, found = (before.start(), cue.end()), _quoted(before.group(0))
        else:
            continue
        if found and clause.free(*span):
            clause.take(*span)
            out.append(Found(span[0], "keywords", tuple(found)))
    return out


def _quoted(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(_QUOTE, text) if m.group(1).strip()]
