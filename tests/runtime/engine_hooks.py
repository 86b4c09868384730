"""Engine functions for the engine pool's tests, run inside its worker processes (they are
pickled by reference, so they live in a module of their own)."""

from __future__ import annotations

import os
import time
from typing import Any

from renamerd.engine.types import RenameOptions, RenameResult


def spin(data: bytes, filename: str, options: RenameOptions, config: Any) -> RenameResult:
    """Never returns: pure Python work, no sleeping (what a runaway parser does)."""
    n = 0
    while True:
        n += 1


def allocate(data: bytes, filename: str, options: RenameOptions, config: Any) -> RenameResult:
    """Allocates as many MB as the document's bytes say, touching every page, then renames."""
    held = bytearray(int(data.decode()) * 1024 * 1024)
    held[:: 4096] = b"x" * len(held[:: 4096])
    raise RuntimeError(f"allocated {len(held)} bytes")


def die(data: bytes, filename: str, options: RenameOptions, config: Any) -> RenameResult:
    """The worker process ends abruptly (a crash, or the kernel's OOM killer)."""
    os._exit(9)


def pid(data: bytes, filename: str, options: RenameOptions, config: Any) -> Any:
    """The worker's process id and its memory ceiling (RLIMIT_DATA)."""
    import resource

    time.sleep(float(data or b"0"))
    return os.getpid(), resource.getrlimit(resource.RLIMIT_DATA)[0]


def allocate_pdf(data: bytes, filename: str, options: RenameOptions, config: Any
                 ) -> RenameResult:
    """Allocates 2 GB whatever the document, then renames it for real."""
    from renamerd.engine import rename

    held = bytearray(2048 * 1024 * 1024)
    del held
    return rename(data, filename, options, config)  # type: ignore[no-any-return]


def inherited(data: bytes, filename: str, options: RenameOptions, config: Any) -> Any:
    """What the worker holds that it did not open itself: the files its descriptors point
    to, and its threads."""
    import threading

    files = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            files.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue
    return files, threading.active_count()


def ocr_forever(data: bytes, filename: str, options: RenameOptions, config: Any) -> Any:
    """Runs an OCR program that never ends (a shell sleeping) in a scratch folder, as the
    engine runs tesseract; writes the folder and the program's pid to the file named by the
    document's bytes first."""
    from renamerd.engine.ocr import children

    record = data.decode()
    with children.scratch_dir() as tmp:
        with open(os.path.join(tmp, "page.pnm"), "wb") as page:
            page.write(b"P5 1 1 255 \x00")
        children.run(["sh", "-c", f'echo "{tmp} $$" > {record}; exec sleep 60'], timeout=120,
                     env=dict(os.environ))
