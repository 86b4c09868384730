"""OAuth 2.0 access tokens: JWTs from the organisation's OpenID Connect provider.

`OidcVerifier.verify(token)` checks the signature against the provider's JWKS, the issuer, the
audience (when `oauth.audience` is set), expiry and not-before (with `oauth.leeway_s`), and
returns the e-mail from `oauth.email_claim`. A token whose `email_verified` claim is false is
refused. The JWKS comes from `oauth.jwks_url`, or from the issuer's discovery document; it is
cached for `oauth.jwks_cache_s` seconds and refetched early (at most every 30 s) when a token
names a key id the cache does not know, so a key rotation at the provider is picked up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import jwt

from renamerd.config import OAuthSettings

#: an unknown key id refetches the JWKS at most this often
MIN_REFRESH_S = 30.0


class InvalidToken(Exception):
    """The token is not a valid access token of the configured provider (answer 401)."""


class OidcVerifier:
    """Verifies provider JWTs. Thread-safe; one per app. `http` is injectable for tests."""

    def __init__(
        self, settings: OAuthSettings, *, http: httpx.Client | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        verify: Any = settings.ca_bundle or True
        self.http = http or httpx.Client(timeout=10.0, verify=verify, trust_env=False)
        self.clock = clock
        self._keys: jwt.PyJWKSet | None = None
        self._fetched_at = -1e18
        self._jwks_url = settings.jwks_url
        self._lock = threading.Lock()
        self.fetches = 0

    @property
    def enabled(self) -> bool:
        return bool(self.settings.issuer)

    def _discover(self) -> str:
        url = self.settings.issuer.rstrip("/") + "/.well-known/openid-configuration"
        doc = self.http.get(url)
        doc.raise_for_status()
        jwks_uri = doc.json().get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri:
            raise InvalidToken("the provider's discovery document has no jwks_uri")
        return jwks_uri

    def _refresh(self) -> None:
        if not self._jwks_url:
            self._jwks_url = self._discover()
        response = self.http.get(self._jwks_url)
        response.raise_for_status()
        self._keys = jwt.PyJWKSet.from_dict(response.json())
        self._fetched_at = self.clock()
        self.fetches += 1

    def _key(self, kid: str | None) -> jwt.PyJWK:
        with self._lock:
            age = self.clock() - self._fetched_at
            try:
                refreshed = False
                if self._keys is None or age > self.settings.jwks_cache_s:
                    self._refresh()
                    refreshed = True
                found = self._find(kid)
                if found is None and not refreshed and age > MIN_REFRESH_S:
                    self._refresh()
                    found = self._find(kid)
            except (httpx.HTTPError, ValueError, jwt.PyJWKSetError) as err:
                raise InvalidToken(f"cannot load the provider's keys ({type(err).__name__})") from err
        if found is None:
            raise InvalidToken("the token is signed with an unknown key")
        return found

    def _find(self, kid: str | None) -> jwt.PyJWK | None:
        assert self._keys is not None
        keys = list(self._keys.keys)
        if kid is None:
            return keys[0] if len(keys) == 1 else None
        return next((k for k in keys if k.key_id == kid), None)

    def verify(self, token: str) -> str:
        """The verified e-mail address in `token`.

        Raises InvalidToken for a bad signature, wrong issuer or audience, an expired or
        not-yet-valid token, a missing e-mail claim or an unverified e-mail. Safe to repeat.
        """
        if not self.enabled:
            raise InvalidToken("OAuth is not configured")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as err:
            raise InvalidToken("malformed token") from err
        if header.get("alg") not in self.settings.algorithms:
            raise InvalidToken("token algorithm not accepted")
        key = self._key(header.get("kid"))
        options: dict[str, Any] = {"require": ["exp", "iss"]}
        if not self.settings.audience:
            options["verify_aud"] = False
        try:
            claims = jwt.decode(
                token, key.key, algorithms=list(self.settings.algorithms),
                audience=self.settings.audience or None, issuer=self.settings.issuer,
                leeway=self.settings.leeway_s, options=options,  # type: ignore[arg-type]
            )
        except jwt.PyJWTError as err:
            raise InvalidToken(f"invalid token: {err}") from err
        if claims.get("email_verified") is False:
            raise InvalidToken("the token's e-mail is not verified")
        email = claims.get(self.settings.email_claim)
        if not isinstance(email, str) or "@" not in email:
            raise InvalidToken(f"the token has no {self.settings.email_claim!r} claim")
        return email

    def close(self) -> None:
        self.http.close()
