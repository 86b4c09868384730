"""Sign in with the OpenID Connect provider named in `[oauth]`: authorization code + PKCE
(S256) + state + nonce, the id_token verified against the provider's keys.

Nothing is stored between the start and the callback: the state carries the page to return to
and its start time, tagged with an HMAC keyed by the browser's pre-session token (an HttpOnly
cookie only this site reads); the PKCE verifier and the nonce are derived from the same key and
the state. A callback from another browser, a replayed or altered state, or an id_token with a
wrong issuer, audience, nonce or signature is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from typing import Any
from urllib.parse import urlencode, urlparse

import httpx
import jwt

from renamerd.config import OAuthSettings

#: seconds a person has between the start and the callback
FLOW_TTL_S = 600


class OidcError(Exception):
    """The sign-in did not succeed; the message is safe to show."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class OidcSignIn:
    """The browser sign-in of one provider. Thread-safe; `http` is injectable for tests."""

    def __init__(self, settings: OAuthSettings, base_url: str, *,
                 http: httpx.Client | None = None) -> None:
        self.settings = settings
        self.redirect_uri = base_url.rstrip("/") + "/signin/oidc/callback"
        self.http = http or httpx.Client(timeout=10.0, verify=settings.ca_bundle or True,
                                         trust_env=False)
        self._discovery: dict[str, Any] | None = None
        self._keys: jwt.PyJWKSet | None = None
        self._lock = threading.RLock()

    @property
    def display_name(self) -> str:
        return self.settings.display_name or urlparse(self.settings.issuer).hostname or "OpenID"

    def _doc(self) -> dict[str, Any]:
        with self._lock:
            if self._discovery is None:
                url = self.settings.issuer.rstrip("/") + "/.well-known/openid-configuration"
                try:
                    response = self.http.get(url)
                    response.raise_for_status()
                    self._discovery = response.json()
                except (httpx.HTTPError, ValueError) as err:
                    raise OidcError(f"the provider cannot be reached ({type(err).__name__})") from err
            return self._discovery

    def _derive(self, key: str, what: str, nonce: str) -> str:
        return _b64(hmac.new(key.encode(), f"{what}:{nonce}".encode(), hashlib.sha256).digest())

    def start(self, browser_key: str, next_path: str) -> str:
        """The provider's authorization address for this browser (`browser_key`: its
        pre-session token); the callback comes back to `next_path`."""
        doc = self._doc()
        seed = secrets.token_urlsafe(16)
        body = _b64(json.dumps({"s": seed, "n": next_path, "t": int(time.time())}).encode())
        state = body + "." + self._derive(browser_key, "state", body)
        challenge = _b64(hashlib.sha256(self._derive(browser_key, "verifier", seed).encode())
                         .digest())
        query = urlencode({
            "response_type": "code", "client_id": self.settings.client_id,
            "redirect_uri": self.redirect_uri, "scope": " ".join(self.settings.scopes),
            "state": state, "nonce": self._derive(browser_key, "nonce", seed),
            "code_challenge": challenge, "code_challenge_method": "S256",
        })
        return f"{doc['authorization_endpoint']}?{query}"

    def finish(self, browser_key: str, state: str, code: str) -> tuple[str, str]:
        """(the verified e-mail, the page to return to) for a callback. Raises OidcError."""
        body, _, tag = state.partition(".")
        if not browser_key or not hmac.compare_digest(
                tag.encode(), self._derive(browser_key, "state", body).encode()):
            raise OidcError("this sign-in was not started in this browser; start again")
        try:
            flow = json.loads(_unb64(body))
        except ValueError as err:
            raise OidcError("the sign-in answer is damaged; start again") from err
        if time.time() - int(flow.get("t", 0)) > FLOW_TTL_S:
            raise OidcError("the sign-in took too long; start again")
        seed = str(flow.get("s", ""))
        id_token = self._exchange(code, self._derive(browser_key, "verifier", seed))
        email = self._verify(id_token, self._derive(browser_key, "nonce", seed))
        return email, str(flow.get("n") or "/")

    def _exchange(self, code: str, verifier: str) -> str:
        form = {"grant_type": "authorization_code", "code": code,
                "redirect_uri": self.redirect_uri, "client_id": self.settings.client_id,
                "code_verifier": verifier}
        if self.settings.client_secret:
            form["client_secret"] = self.settings.client_secret
        try:
            response = self.http.post(self._doc()["token_endpoint"], data=form)
        except httpx.HTTPError as err:
            raise OidcError(f"the provider cannot be reached ({type(err).__name__})") from err
        if response.status_code != 200:
            raise OidcError("the provider refused the sign-in code; start again")
        token = response.json().get("id_token")
        if not isinstance(token, str):
            raise OidcError("the provider sent no id_token")
        return token

    def _key(self, kid: str | None, refresh: bool = False) -> jwt.PyJWK:
        with self._lock:
            if self._keys is None or refresh:
                response = self.http.get(self._doc()["jwks_uri"])
                response.raise_for_status()
                self._keys = jwt.PyJWKSet.from_dict(response.json())
            keys = list(self._keys.keys)
        found = next((k for k in keys if kid is None or k.key_id == kid), None)
        if found is None and not refresh:
            return self._key(kid, refresh=True)
        if found is None:
            raise OidcError("the id_token is signed with an unknown key")
        return found

    def _verify(self, id_token: str, nonce: str) -> str:
        try:
            header = jwt.get_unverified_header(id_token)
            if header.get("alg") not in self.settings.algorithms:
                raise OidcError("the id_token's algorithm is not accepted")
            claims = jwt.decode(
                id_token, self._key(header.get("kid")).key,
                algorithms=list(self.settings.algorithms), audience=self.settings.client_id,
                issuer=self._doc().get("issuer") or self.settings.issuer,
                leeway=self.settings.leeway_s, options={"require": ["exp", "iss", "aud"]})
        except (jwt.PyJWTError, httpx.HTTPError, ValueError) as err:
            raise OidcError(f"the id_token is not valid ({type(err).__name__})") from err
        if not hmac.compare_digest(str(claims.get("nonce", "")), nonce):
            raise OidcError("the id_token was not issued for this sign-in")
        if claims.get("email_verified") is False:
            raise OidcError("the provider has not verified this e-mail address")
        email = claims.get(self.settings.email_claim)
        if not isinstance(email, str) or "@" not in email:
            raise OidcError(f"the id_token has no {self.settings.email_claim!r}")
        return email

    def close(self) -> None:
        self.http.close()
