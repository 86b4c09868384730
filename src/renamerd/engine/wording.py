"""The words the engine writes into names and folders, in the 23 output languages.

Document-type words stay English (the service description says so); everything else follows
the output language:

- month and quarter names and the decimal mark come from CLDR through babel;
- "undated" and "unknown" (folders of documents without a date or issuer) have no CLDR entry
  and come from `lexicon/output.json`, one word per output language;
- issuer names are written as in the document (only an LLM provider translates them).

Every function takes an output-language code ("de", "pt-BR", "zh-Hant"...); "auto", "source"
and codes babel does not know fall back to English. Pure; babel's data is cached per locale.
"""

from __future__ import annotations

import functools
from decimal import Decimal, InvalidOperation
from typing import Literal

from babel import Locale, UnknownLocaleError
from babel.dates import get_month_names, get_quarter_names

from renamerd.engine.lexicon import output_words

#: output-language codes whose CLDR locale has another name
_CLDR_NAMES = {"no": "nb", "pt-BR": "pt_BR", "zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant"}


@functools.cache
def locale(language: str) -> Locale:
    """The babel Locale of an output-language code (English for auto/source/unknown)."""
    try:
        return Locale.parse(_CLDR_NAMES.get(language, language).replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


def word(kind: str, language: str) -> str:
    """'unknown' / 'undated' in the output language (English for codes without an entry).
    Raises KeyError for another kind."""
    table = output_words()[kind]
    return table.get(language, table["en"])


def month_name(month: int, language: str, width: Literal["wide", "abbreviated"] = "wide", *,
               standalone: bool = False) -> str:
    """The name of month 1-12 ("mai", "5月", "مايو"); `width` "wide" or "abbreviated";
    `standalone` for a month written without a day ("maj 2024", not "3 maja 2024")."""
    context: Literal["format", "stand-alone"] = "stand-alone" if standalone else "format"
    return str(get_month_names(width, context, locale(language))[month])


def quarter_name(quarter: int, language: str) -> str:
    """The abbreviated name of quarter 1-4 ("Q2", "T2" in French, "2분기" in Korean)."""
    return str(get_quarter_names("abbreviated", "format", locale(language))[quarter])


def decimal_mark(language: str) -> str:
    """The decimal separator of the output language ("." or "," ...), Latin digits."""
    symbols = locale(language).number_symbols.get("latn", {})
    return str(symbols.get("decimal", "."))


def amount_text(amount: str, language: str) -> str:
    """An amount as `extractedInfo` has it ("1234.56") written for a file name in the output
    language: the language's decimal mark, no grouping ("1234,56" in German). Returns the
    input unchanged when it is not a number."""
    try:
        Decimal(amount)
    except (InvalidOperation, ValueError):
        return amount
    return amount.replace(".", decimal_mark(language)) if "." in amount else amount
