"""What a check finds: a level, the thing checked, and a message that says what to do."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

OK, WARNING, ERROR = "ok", "warning", "error"

T = TypeVar("T")


@dataclass(frozen=True)
class Finding:
    level: str  # ok | warning | error
    check: str  # what was checked: "config", "database", "connection inbox", ...
    message: str

    def line(self) -> str:
        return f"{self.level:<8}{self.check}: {self.message}"


def ok(check: str, message: str) -> Finding:
    return Finding(OK, check, message)


def warning(check: str, message: str) -> Finding:
    return Finding(WARNING, check, message)


def error(check: str, message: str) -> Finding:
    return Finding(ERROR, check, message)


class TimedOut(Exception):
    """A check took longer than its limit."""


def within(seconds: float, fn: Callable[[], T]) -> T:
    """`fn()` in a thread, its result or exception; raises TimedOut past `seconds` (the thread
    is left to finish on its own: the doctor is a short-lived process)."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # handed to the caller
            box["error"] = err

    thread = threading.Thread(target=run, name="doctor-check", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise TimedOut(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
