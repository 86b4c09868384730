"""A miniature OAuth server inside a memory drive, for `renamerd connect memory` and for tests of
revoked access: one-time authorisation codes, refresh tokens, revocation."""

from __future__ import annotations

import secrets
import threading

from renamerd.connectors import AuthError


class MemoryOAuth:
    """Codes and refresh tokens of one drive. `auth_required` off (the default): any token,
    or none, is accepted. All methods are thread-safe."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.auth_required = False
        self._codes: set[str] = set()
        self._tokens: set[str] = set()
        self._auth_lock = threading.Lock()

    def issue_code(self) -> str:
        """A one-time authorisation code, as a person would copy from a consent page."""
        with self._auth_lock:
            code = f"code-{secrets.token_hex(6)}"
            self._codes.add(code)
            return code

    def exchange(self, code: str) -> str:
        """Trade a code for a new refresh token. Raises AuthError for an unknown or used code."""
        with self._auth_lock:
            if code not in self._codes:
                raise AuthError(f"memory drive {self.name}: authorisation code refused")
            self._codes.discard(code)
            token = f"mrt-{secrets.token_urlsafe(24)}"
            self._tokens.add(token)
            return token

    def revoke(self, token: str) -> None:
        """Invalidate a refresh token (the user removed the app's access). Safe to repeat."""
        with self._auth_lock:
            self._tokens.discard(token)

    def check_token(self, token: str | None) -> None:
        """Raise AuthError unless auth is off or `token` is a live refresh token."""
        if self.auth_required and (token is None or token not in self._tokens):
            raise AuthError(f"memory drive {self.name}: refresh token revoked or unknown; "
                            "run `renamerd connect` again")
