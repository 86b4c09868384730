"""`prepare_long_running`: the engine warmed up and the long-lived heap frozen, once."""

from __future__ import annotations

import gc

from renamerd.engine.fields import dates
from renamerd.engine.lexicon import LANGUAGES
from renamerd.runtime.startup import prepare_long_running


def test_warms_the_engine_and_freezes_the_heap_once() -> None:
    prepare_long_running()  # (another test of this process may have done it already)
    assert dates._label_pattern.cache_info().currsize >= len(LANGUAGES)
    assert gc.get_freeze_count() > 10_000
    assert prepare_long_running() == 0.0
