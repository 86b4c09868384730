"""The words instructions are written with, in the seven instruction languages, built once
from the `instructions` sections of the lexicon files (en, de, fr, es, it, nl, pt).

Every kind of phrase becomes one regex over *folded* text (lexicon.fold: lower case, no
accents, offsets kept) and, where phrases carry a value, a dict phrase -> value.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from renamerd.engine.lexicon import alternation, fold, load

INSTRUCTION_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt")

#: phrase lists without values, by their key in the lexicon
CUE_KINDS = ("if", "from", "put", "by", "sort", "name", "separated", "lower", "upper", "then",
             "format", "over", "at_least", "under", "at_most", "before", "after", "period",
             "containing", "else", "relative", "fillers")
#: grouping words -> the folder template they stand for
DIMENSIONS = (("year", "{year}"), ("month", "{year}/{month}"), ("quarter", "{year}/{quarter}"),
              ("issuer", "{issuer}"), ("type", "{document_type}"))
#: placeholder names accepted in folder templates, with the field words as aliases
PLACEHOLDERS = {"year": "year", "month": "month", "quarter": "quarter", "date": "date",
                "issuer": "issuer", "company": "issuer", "type": "document_type",
                "document_type": "document_type", "invoice_number": "invoice_number",
                "number": "invoice_number"}


@dataclass(frozen=True, eq=False)
class Vocab:
    """Folded phrase -> value tables and one regex per kind of phrase (hashed by identity:
    there is one, built once)."""

    types: dict[str, str]
    fields: dict[str, str]
    separators: dict[str, str]
    dims: dict[str, str]
    months: dict[str, int]
    cues: dict[str, frozenset[str]]
    patterns: dict[str, re.Pattern[str]]

    def rx(self, kind: str) -> re.Pattern[str]:
        """The regex of a kind: a CUE_KINDS key, or types/fields/separators/dims/months."""
        return self.patterns[kind]


def key(phrase: str) -> str:
    """A matched phrase as the tables hold it (folded, single blanks)."""
    return " ".join(fold(phrase).split())


@functools.cache
def vocab() -> Vocab:
    """The vocabulary of every instruction language (built once, ~20 ms)."""
    types: dict[str, str] = {}
    fields: dict[str, str] = {}
    separators: dict[str, str] = {}
    dims: dict[str, str] = {}
    months: dict[str, int] = {}
    cues: dict[str, set[str]] = {k: set() for k in CUE_KINDS}
    for lang in INSTRUCTION_LANGUAGES:
        table = load(lang)
        ins = table["instructions"]
        for kind, phrases in ins["types_plural"].items():
            for p in phrases:
                types.setdefault(key(p), kind)
        for kind, phrases in table["types"].items():
            for p in phrases[:2]:
                p = p.lstrip("^*")
                if len(p) > 3:
                    types.setdefault(key(p), kind)
        for fname, phrases in ins["fields"].items():
            for p in phrases:
                fields.setdefault(key(p), fname)
        for sep, phrases in ins["separators"].items():
            for p in phrases:
                separators.setdefault(key(p), sep)
        for kind in CUE_KINDS:
            cues[kind].update(key(p) for p in ins.get(kind, []))
        for dim, target in DIMENSIONS:
            for p in ins.get(dim, []):
                dims.setdefault(key(p), target)
        for number, names in enumerate(table["months"], start=1):
            for name in names[:1]:  # full names only: "mar", "jun" are words too
                months.setdefault(key(name), number)
        for alias in ("marco", "maerz"):
            months.setdefault(alias, 3)
    patterns = {kind: re.compile(alternation(words)) for kind, words in cues.items()}
    for name, table_ in (("types", types), ("fields", fields), ("separators", separators),
                         ("dims", dims), ("months", months)):
        patterns[name] = re.compile(alternation(set(table_)))
    return Vocab(types, fields, separators, dims, months,
                 {k: frozenset(v) for k, v in cues.items()}, patterns)
