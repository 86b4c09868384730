"""OAuth access tokens: JWTs of an OpenID Connect provider (an emulator over TLS), JWKS caching."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from api.conftest import MakeApi
from api.test_account import assert_error
from emulators.base import EmulatorServer


class Provider:
    """An OpenID Connect provider: discovery document, JWKS, and token signing."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.add_key("k1")
        self.jwks_hits = 0
        app = Starlette(routes=[
            Route("/.well-known/openid-configuration", self._discovery),
            Route("/jwks", self._jwks),
        ])
        self.server = EmulatorServer(app, tls=True).start()

    def add_key(self, kid: str, kind: str = "rsa") -> None:
        if kind == "rsa":
            self.keys[kid] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            self.keys[kid] = ec.generate_private_key(ec.SECP256R1())

    @property
    def issuer(self) -> str:
        return self.server.url

    async def _discovery(self, request: Request) -> JSONResponse:
        return JSONResponse({"issuer": self.issuer, "jwks_uri": f"{self.issuer}/jwks"})

    async def _jwks(self, request: Request) -> JSONResponse:
        self.jwks_hits += 1
        keys = []
        for kid, key in self.keys.items():
            is_rsa = isinstance(key, rsa.RSAPrivateKey)
            algo = jwt.algorithms.RSAAlgorithm if is_rsa else jwt.algorithms.ECAlgorithm
            jwk = algo.to_jwk(key.public_key(), as_dict=True)
            jwk.update(kid=kid, use="sig")
            keys.append(jwk)
        return JSONResponse({"keys": keys})

    def token(self, email: str = "user0@example.org", *, kid: str = "k1", **claims: Any) -> str:
        now = int(time.time())
        payload = {"iss": self.issuer, "aud": "renamerd-api", "sub": "abc", "email": email,
                   "iat": now, "exp": now + 300, **claims}
        payload = {k: v for k, v in payload.items() if v is not None}
        key = self.keys[kid]
        alg = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"
        return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid})


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    yield p
    p.server.stop()


def oauth_settings(provider: Provider, **extra: Any) -> dict[str, Any]:
    return {"issuer": provider.issuer, "audience": "renamerd-api",
            "ca_bundle": provider.server.ca_bundle, **extra}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_valid_provider_token(make_api: MakeApi, provider: Provider) -> None:
    api = make_api(oauth=oauth_settings(provider))
    r = api.client.get("/api/v1/user", headers=bearer(provider.token("User0@Example.org")))
    assert r.status_code == 200, r.text
    assert r.json()["id"] == api.user_id
    assert api.client.get("/api/v1/credits", headers=bearer(provider.token())).json() == {"credits": 50}
    assert api.client.app.state.oauth.fetches == 1  # the JWKS is cached


@pytest.mark.parametrize("case", ["expired", "audience", "issuer", "not_yet", "unverified",
                                  "no_email", "unknown_key", "foreign_key", "hs256", "garbage"])
def test_invalid_provider_tokens_are_401(make_api: MakeApi, provider: Provider, case: str) -> None:
    api = make_api(oauth=oauth_settings(provider))
    now = int(time.time())
    if case == "expired":
        token = provider.token(exp=now - 120, iat=now - 600)
    elif case == "audience":
        token = provider.token(aud="someone-else")
    elif case == "issuer":
        token = provider.token(iss="https://evil.example")
    elif case == "not_yet":
        token = provider.token(nbf=now + 600)
    elif case == "unverified":
        token = provider.token(email_verified=False)
    elif case == "no_email":
        token = provider.token(email=None)
    elif case == "unknown_key":
        token = jwt.encode({"iss": provider.issuer, "aud": "renamerd-api", "exp": now + 60,
                            "email": "user0@example.org"},
                           rsa.generate_private_key(public_exponent=65537, key_size=2048),
                           algorithm="RS256", headers={"kid": "nope"})
    elif case == "foreign_key":  # right kid, wrong signature
        token = jwt.encode({"iss": provider.issuer, "aud": "renamerd-api", "exp": now + 60,
                            "email": "user0@example.org"},
                           rsa.generate_private_key(public_exponent=65537, key_size=2048),
                           algorithm="RS256", headers={"kid": "k1"})
    elif case == "hs256":
        token = jwt.encode({"iss": provider.issuer, "aud": "renamerd-api", "exp": now + 60,
                            "email": "user0@example.org"}, "k" * 32, algorithm="HS256",
                           headers={"kid": "k1"})
    else:
        token = "aaa.bbb.ccc"
    assert_error(api.client.get("/api/v1/user", headers=bearer(token)), 401, "UNAUTHORIZED")


def test_unknown_email_is_404_unless_auto_created(make_api: MakeApi, provider: Provider) -> None:
    api = make_api(oauth=oauth_settings(provider))
    token = provider.token("newcomer@example.org")
    assert_error(api.client.get("/api/v1/user", headers=bearer(token)), 404, "USER_NOT_FOUND")
    assert_error(api.client.get("/api/v1/credits", headers=bearer(token)), 404)
    auto = make_api(oauth=oauth_settings(provider, auto_create_users=True))
    r = auto.client.get("/api/v1/credits", headers=bearer(token))
    assert r.status_code == 200 and r.json() == {"credits": 50}


def test_key_rotation_refetches_the_jwks(make_api: MakeApi, provider: Provider) -> None:
    api = make_api(oauth=oauth_settings(provider))
    verifier = api.client.app.state.oauth
    assert api.client.get("/api/v1/user", headers=bearer(provider.token())).status_code == 200
    kid = f"rotated-{len(provider.keys)}"
    provider.add_key(kid, "ec")
    verifier._fetched_at -= 60  # the last fetch was a minute ago
    r = api.client.get("/api/v1/user", headers=bearer(provider.token(kid=kid)))
    assert r.status_code == 200, r.text
    assert verifier.fetches == 2


def test_jwks_cache_expiry(make_api: MakeApi, provider: Provider) -> None:
    api = make_api(oauth=oauth_settings(provider, jwks_cache_s=0))
    for _ in range(2):
        assert api.client.get("/api/v1/user", headers=bearer(provider.token())).status_code == 200
        time.sleep(0.01)
    assert api.client.app.state.oauth.fetches == 2


def test_api_tokens_still_work_with_oauth_on(make_api: MakeApi, provider: Provider) -> None:
    api = make_api(oauth=oauth_settings(provider))
    assert api.client.get("/api/v1/user", headers=api.auth).status_code == 200
