"""Run one engine call on a document in this (fresh) process; print its cost as JSON.

    python tests/security/probe.py MODE FILE [CONFIG_JSON]

MODE: rename (`rename(data, name)`), read (`open_text`, then every page), pdf-images
(`PdfPages(...).largest_image_pixels(0)`), fields (`extract([text])`, FILE holding UTF-8 text).
CONFIG_JSON: EngineConfig fields to set (default: the defaults).

Prints one JSON object: seconds (wall clock of the call), peak_mb (growth of the resident
high-water mark over the baseline), error and message (an EngineError's class and text, or
null), result (a short description of what came back).

The baseline is taken after the imports, the engine's warm-up and reading the file. There the
kernel's high-water mark is reset (/proc/self/clear_refs), so the peak is the call's own; where
the kernel refuses that, the growth is counted from the mark so far (a smaller figure).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _call(mode: str, data: bytes, name: str, config: Any) -> str:
    from renamerd.engine import rename
    from renamerd.engine.fields import extract
    from renamerd.engine.readers.pdf import PdfPages
    from renamerd.engine.text import open_text

    if mode == "rename":
        result = rename(data, name, config=config)
        date = result.extracted_info.get("date")
        return f"{result.suggested_filename} date={date} pages_read={result.pages_read}"
    if mode == "read":
        doc = open_text(data, config)
        sizes = [len(doc.page(i)) for i in range(doc.page_count)]
        return f"pages={doc.page_count} chars={sum(sizes)}"
    if mode == "pdf-images":
        return f"pixels={PdfPages(data, config).largest_image_pixels(0)}"
    if mode == "fields":
        extraction = extract([data.decode()])
        return json.dumps(extraction.values, default=str)
    raise SystemExit(f"unknown mode {mode}")


def main(argv: list[str]) -> None:
    mode, path = argv[0], Path(argv[1])
    from renamerd.engine import EngineConfig, EngineError, warm_up

    config = EngineConfig(**json.loads(argv[2])) if len(argv) > 2 else EngineConfig()
    warm_up()
    data = path.read_bytes()
    _reset_peak()
    baseline = _status_kb("VmHWM")
    error = message = None
    result = ""
    started = time.perf_counter()
    try:
        result = _call(mode, data, path.name, config)
    except EngineError as exc:
        error, message = type(exc).__name__, str(exc)
    seconds = time.perf_counter() - started
    peak_mb = (_status_kb("VmHWM") - baseline) / 1024
    print(json.dumps({"seconds": round(seconds, 3), "peak_mb": round(peak_mb, 1),
                      "error": error, "message": message, "result": result}))


if __name__ == "__main__":
    main(sys.argv[1:])
