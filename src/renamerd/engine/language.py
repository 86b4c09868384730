"""Detect a document's language from lexicon hits (common words, labels, type keywords)."""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import LANGUAGES, alternation, fold, load

KEYWORD_WEIGHT = 3.0  # labels and type words are specific; common words count 1


@functools.cache
def _table() -> tuple[re.Pattern[str], dict[str, tuple[tuple[str, float], ...]]]:
    """One regex over every language's words, and who each word belongs to (with weight)."""
    owners: dict[str, dict[str, float]] = {}

    def add(word: str, lang: str, weight: float) -> None:
        key = " ".join(fold(word).split())
        if key:
            slot = owners.setdefault(key, {})
            slot[lang] = max(slot.get(lang, 0.0), weight)

    for lang in LANGUAGES:
        table = load(lang)
        for w in table["common"]:
            add(w, lang, 1.0)
        for phrases in table["labels"].values():
            for p in phrases:
                if len(p) > 3:
                    add(p, lang, KEYWORD_WEIGHT)
        for phrases in table["types"].values():
            for p in phrases:
                add(p.lstrip("^"), lang, KEYWORD_WEIGHT)
        for month in table["months"]:
            for m in month:
                if len(m) > 4:
                    add(m, lang, KEYWORD_WEIGHT)
    frozen = {k: tuple(v.items()) for k, v in owners.items()}
    return re.compile(alternation(set(owners))), frozen


def detect(folded: str, max_chars: int = 6000) -> tuple[str | None, dict[str, float]]:
    """Return (best language or None when nothing matched, scores per language).

    `folded` must come from `lexicon.fold`. One regex pass over the first `max_chars`
    characters; a word shared by several languages counts for each. Pure; safe to repeat.
    """
    pattern, owners = _table()
    scores: dict[str, float] = {}
    for m in pattern.finditer(folded[:max_chars]):
        for lang, weight in owners.get(_SPACES.sub(" ", m.group(0)), ()):
            scores[lang] = scores.get(lang, 0.0) + weight
    if not scores:
        return None, scores
    best = max(scores, key=lambda k: (scores[k], -LANGUAGES.index(k)))
    return best, scores


_SPACES = re.compile(r"[ \t]+")
