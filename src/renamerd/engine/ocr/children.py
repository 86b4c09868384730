"""The OCR programs a process runs (tesseract) and their scratch folders, known so that a
process told to stop (an engine worker past its deadline gets SIGTERM) ends them too: a killed
worker's tesseract would go on reading for a minute as an orphan, and its page image would
stay in the temporary folder.

    with scratch_dir() as tmp: ... run([cmd, path, "stdout"], timeout=30, env=env)
    stop_all()  # from a SIGTERM handler: kill what runs, remove the scratch folders
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

#: (re-entrant: `stop_all` may run in a signal handler of the thread that holds it)
_LOCK = threading.RLock()
_RUNNING: set[subprocess.Popen[bytes]] = set()
_SCRATCH: set[str] = set()


@contextmanager
def scratch_dir() -> Iterator[str]:
    """A temporary folder for one program run, removed afterwards (or by `stop_all`)."""
    with tempfile.TemporaryDirectory(prefix="renamerd-ocr-") as tmp:
        with _LOCK:
            _SCRATCH.add(tmp)
        try:
            yield tmp
        finally:
            with _LOCK:
                _SCRATCH.discard(tmp)


def run(args: list[str], timeout: float, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run `args`; (return code, stdout, stderr). Raises subprocess.TimeoutExpired after
    `timeout` seconds (the program killed first), OSError when it cannot start."""
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, env=env) as proc:
        with _LOCK:
            _RUNNING.add(proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        finally:
            with _LOCK:
                _RUNNING.discard(proc)
    return proc.returncode, out, err


def stop_all() -> None:
    """Kill every program `run` started that still runs, and remove the scratch folders.
    Safe from a signal handler and to repeat."""
    with _LOCK:
        running, scratch = list(_RUNNING), list(_SCRATCH)
    for proc in running:
        with suppress(OSError):
            proc.kill()
    for tmp in scratch:
        shutil.rmtree(tmp, ignore_errors=True)
