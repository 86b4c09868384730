"""Detect a document's language from lexicon hits (common words, labels, type keywords)."""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import LANGUAGES, alternation, load


@functools.cache
def _patterns() -> dict[str, tuple[re.Pattern[str], re.Pattern[str]]]:
    out: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}
    for lang in LANGUAGES:
        table = load(lang)
        words: set[str] = set()
        for phrases in table["labels"].values():
            words.update(p for p in phrases if len(p) > 3)
        for phrases in table["types"].values():
            words.update(p.lstrip("^") for p in phrases)
        for month in table["months"]:
            words.update(m for m in month if len(m) > 4)
        out[lang] = (
            re.compile(alternation(table["common"])),
            re.compile(alternation(words)),
        )
    return out


def detect(folded: str, max_chars: int = 6000) -> tuple[str | None, dict[str, float]]:
    """Return (best language or None when nothing matched, scores per language).

    `folded` must come from `lexicon.fold`. Common words count 1, keywords 3 (they are
    specific); only the first `max_chars` are looked at (speed). Pure; safe to repeat.
    """
    sample = folded[:max_chars]
    scores: dict[str, float] = {}
    for lang, (common, keywords) in _patterns().items():
        score = len(common.findall(sample)) + 3.0 * len(keywords.findall(sample))
        if score:
            scores[lang] = score
    if not scores:
        return None, scores
    best = max(scores, key=lambda k: scores[k])
    return best, scores
