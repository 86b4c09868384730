"""`warm_up()` builds the per-language patterns a first `rename()` would build."""

from __future__ import annotations

from renamerd.engine import warm_up
from renamerd.engine.fields import amounts, dates, doctype, issuer, issuer_labels, numbers
from renamerd.engine.lexicon import LANGUAGES


def test_warm_up_builds_every_language_and_is_cheap_to_repeat() -> None:
    first = warm_up()
    for cached in (dates._label_pattern, doctype._patterns, doctype._recipient_label,
                   issuer._vocab, numbers._number_labels, numbers._title_labels,
                   issuer_labels._sign_offs, amounts._total_labels):
        assert cached.cache_info().currsize >= len(LANGUAGES), cached
    again = warm_up()
    assert again <= max(first, 0.05)
    assert again < 0.5
