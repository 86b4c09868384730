"""The total amount of a document and its currency (after a total's label, in every lexicon
language)."""

from __future__ import annotations

import functools
import re

from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.lexicon import alternation, common, load

# precompiled: re's own cache is shared with pypdf and others and gets evicted
_RX1 = re.compile(r"[.,]\d{2}$")
_RX2 = re.compile(r"[.,]")
#: a label of a partial sum, not the total (subtotal, net, before tax)
_RX3 = re.compile(r"sub|zwischen|netto|hors|neto|imponibile|excl|小計|小计|소계|税抜|不含税|"
                  r"未税|الفرعي|उप-योग|उपयोग")
#: totals that are no sum paid: what was saved, a count ("TOTAL SAVINGS $1.20", "Total Qty: 2")
_NOT_PAID = re.compile(r"total\s*(?:savings?|saved|discounts?|qty|quantity|items?|points)\b")

#: currency signs and codes written before an amount, and after it
_CUR_BEFORE = (r"[€$£₺¥₹₩]|(?<![a-z])(?:r\$|us\$|s\$|hk\$|nt\$|rp\.?|rs\.?|rm|eur|usd|gbp|chf|pln|"
               r"czk|sek|dkk|nok|try|myr|jpy|cny|rmb|krw|idr|inr|sar|aed|egp|sgd|hkd|twd|brl)")
#: no letter or digit of a word written with blanks just before an amount (Chinese, Japanese
#: and Korean text may run straight into it: "合計12,345円")
_AMOUNT_START = r"(?<![.,])(?<![^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af])"
_CUR_AFTER = (r"€|eur|usd|\$|£|gbp|chf|zł|zl|pln|kč|kc|czk|sek|dkk|nok|kr\.?|₺|tl|try|rm|myr|円|元|원|"
              r"₩|jpy|cny|rmb|krw|idr|inr|sar|aed|egp|brl|ريال|ر\.س|درهم|د\.إ|ج\.م|रु\.?|रुपये")
_CURRENCY_WORD = re.compile(r"[€$£₺¥₹₩円元원]|r\$|\b(?:eur|usd|gbp|chf|pln|czk|sek|dkk|nok|myr|rm|"
                            r"jpy|cny|rmb|krw|idr|rp|inr|sar|aed|egp|brl)\b|ريال|درهم")
#: an amount: with two decimals ("1.234,56", "12.00"), or whole ("12,345", "1.250.000", "500")
#: when a currency stands beside it (yen, won and rupiah are written without decimals)
_AMOUNT = re.compile(
    rf"(?:(?P<cur1>{_CUR_BEFORE})\s?|{_AMOUNT_START})"
    r"(?P<num>\d{1,3}(?:[.,' ]\d{3})*[.,]\d{2}(?!\d)|\d+[.,]\d{2}(?!\d)"
    r"|\d{1,3}(?:[.,]\d{3})+(?![.,]?\d)|\d+(?![.,]?\d))"
    rf"(?:\s?(?P<cur2>{_CUR_AFTER}))?",
    re.I,
)
_DECIMALS = re.compile(r"[.,]\d{2}$")


@functools.cache
def _total_labels(language: str) -> re.Pattern[str]:
    phrases: set[str] = set()
    for lang in {language, "en"}:
        phrases.update(load(lang)["labels"]["total"])
    return re.compile(alternation(phrases))


def parse_amount(num: str) -> float | None:
    """'1.234,56' / '1,234.56' / "1'234.56" / '1 234,56' -> 1234.56."""
    num = num.replace(" ", "").replace("'", "")
    if _RX1.search(num):
        whole, frac = num[:-3], num[-2:]
        whole = _RX2.sub("", whole)
        try:
            return float(f"{whole}.{frac}")
        except ValueError:
            return None
    try:
        return float(_RX2.sub("", num))
    except ValueError:
        return None


def _currency(token: str | None, language: str) -> str | None:
    if not token:
        return None
    table: dict[str, str] = common()["currencies"]
    code = table.get(token.lower().rstrip("."), table.get(token.lower()))
    if code == "KR":
        code = common()["kr_by_language"].get(language)
    elif code == "JPY" and token.strip() in ("¥", "￥"):
        code = common()["yen_by_language"].get(language, code)
    return code


def _amounts(text: str, language: str) -> list[re.Match[str]]:
    """Amounts in `text`: every one with two decimals; whole ones only beside the sign of a
    currency written without decimals (yen, won, rupiah, New Taiwan dollar)."""
    whole_ok = common()["zero_decimal_currencies"]
    return [m for m in _AMOUNT.finditer(text)
            if _DECIMALS.search(m.group("num"))
            or _currency(m.group("cur1") or m.group("cur2"), language) in whole_ok]


def total_amount(doc: Doc, language: str) -> tuple[str | None, str | None, Line | None]:
    """(amount as 'NNNN.NN', ISO currency or None, line) of the labelled total, if any.

    The last total-labelled line wins ("Total" after "Subtotal"); the amount is the last one
    on that line or the first on the next.
    """
    labels = _total_labels(language)
    best: tuple[str | None, str | None, Line | None] = (None, None, None)
    for line in doc.lines:
        found = list(labels.finditer(line.folded))
        lm = found[-1] if found else None
        if lm is None or _RX3.search(line.folded) or _NOT_PAID.search(line.folded):
            continue
        segment = line.folded[lm.end():]
        amounts = _amounts(segment, language)
        if not amounts and line.index + 1 < len(doc.lines):
            amounts = _amounts(doc.lines[line.index + 1].folded, language)[:1]
        if not amounts:
            continue
        am = amounts[-1]
        value = parse_amount(am.group("num"))
        if value is None:
            continue
        cur = _currency(am.group("cur1") or am.group("cur2"), language)
        if cur is None:
            cur = next((_currency(t, language) for t in _CURRENCY_WORD.findall(line.folded)),
                       None)
        best = (f"{value:.2f}", cur, line)
    if best[0] is not None and best[1] is None:  # no currency on the total's line: any in text
        for m in _amounts(doc.folded, language):
            code = _currency(m.group("cur1") or m.group("cur2"), language)
            if code:
                return best[0], code, best[2]
    return best
