"""What a long-running process (a daemon worker, the API) does once, before its first document.

`prepare_long_running()` warms the engine up (`renamerd.engine.warm_up`: readers imported, the
keyword patterns of every language built), then collects garbage once and freezes what is left
(`gc.freeze`): modules, lexicons and ORM mappings live as long as the process, and without this
the collector's full passes walk those ~200,000 objects again and again while documents are read
(about 8% of the time of a one-page text PDF). Done once per process; later calls return 0.
"""

from __future__ import annotations

import gc
import threading
import time

_lock = threading.Lock()
_done = False


def prepare_long_running() -> float:
    """Warm the engine up and freeze the long-lived heap, once per process. Returns the seconds
    it took (0.0 when it was done already). Safe to call from several threads."""
    global _done
    with _lock:
        if _done:
            return 0.0
        from renamerd.engine import warm_up

        started = time.perf_counter()
        warm_up()
        gc.collect()
        gc.freeze()
        _done = True
        return time.perf_counter() - started
