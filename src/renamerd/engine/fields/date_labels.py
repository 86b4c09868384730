"""The labels a date may stand after, of every kind ("Invoice date", "Fälligkeitsdatum",
"Bestelldatum"...), as one pattern per document language: read by the date scorer
(fields/dates.py) and by the number finder, which must not take a number's label inside a
date's ("Date de la facture" holds "facture")."""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import LANGUAGES, alternation, fold, kin, load

#: the label kinds, in the order a phrase listed under two of them takes the first
KINDS = ("issue_date", "date", "due_date", "delivery_date", "birth_date", "period", "order_date")


@functools.cache
def label_pattern(language: str) -> tuple[re.Pattern[str], dict[str, str], int]:
    """Labels of the document's language, English, and the long (specific) labels of the other
    languages of its script (short ones like "den", "le", "to" only count in their own
    language), the kind of each, and the length of the longest (blank runs in text are single
    spaces)."""
    kinds: dict[str, str] = {}
    langs = [language, "en"] + [lang for lang in kin(language) if lang != "en"]
    for i, lang in enumerate(langs):
        labels = load(lang)["labels"]
        for kind in KINDS:
            for phrase in labels.get(kind, []):
                if (i == 1 and len(phrase) <= 4) or (i >= 2 and len(phrase) < 7):
                    continue
                kinds.setdefault(fold(phrase), kind)
    return re.compile(alternation(set(kinds))), kinds, max(map(len, kinds), default=0)


@functools.cache
def month_table() -> dict[str, int]:
    """Every lexicon language's month names and their short forms, folded, and the month's
    number (1-12)."""
    names: dict[str, int] = {}
    for lang in LANGUAGES:
        for number, variants in enumerate(load(lang)["months"], start=1):
            for name in variants:
                names.setdefault(fold(name), number)
    return names
