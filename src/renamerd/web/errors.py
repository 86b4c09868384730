"""The error a page raises: shown as an error page to a browser, as JSON to a fetch()."""

from __future__ import annotations


class WebError(Exception):
    """Answer `status` with `message` (safe to show)."""

    def __init__(self, status: int, message: str, code: str = "ERROR",
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}


def not_found(what: str = "page") -> WebError:
    """404 for anything missing or not the user's (the same answer for both)."""
    return WebError(404, f"There is no such {what}, or it is not yours.", "NOT_FOUND")
