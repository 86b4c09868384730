"""An OpenID Connect provider as a browser and a client meet it: discovery, an authorize page
with a consent form (the person types the e-mail to sign in as and presses Allow or Deny), the
token endpoint (authorization code + PKCE S256, client_secret_post or basic, one use per code),
and the JWKS of the RS256 key that signs the id_tokens.

Registered clients: {client_id: (secret or None, [redirect URIs])}. Codes live 60 s.
Not emulated: refresh tokens, userinfo, prompt/max_age, request objects, logout.
"""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from emulators.base import EmulatorServer


@dataclass
class OidcProvider:
    clients: dict[str, tuple[str | None, list[str]]] = field(default_factory=dict)
    #: e-mails the provider has verified (others get email_verified false)
    verified: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "emu-1"
        self.codes: dict[str, dict[str, Any]] = {}
        self.token_requests = 0
        self._lock = threading.Lock()
        self.server = EmulatorServer(Starlette(routes=[
            Route("/.well-known/openid-configuration", self._discovery),
            Route("/authorize", self._authorize_page, methods=["GET"]),
            Route("/authorize", self._authorize, methods=["POST"]),
            Route("/token", self._token, methods=["POST"]),
            Route("/jwks", self._jwks),
        ]), tls=True)

    @property
    def issuer(self) -> str:
        return self.server.url

    def start(self) -> OidcProvider:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    # -- endpoints -------------------------------------------------------------------------

    async def _discovery(self, _request: Request) -> Response:
        return JSONResponse({
            "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
            "id_token_signing_alg_values_supported": ["RS256"],
        })

    def _client_error(self, params: dict[str, str]) -> str | None:
        client = self.clients.get(params.get("client_id", ""))
        if client is None:
            return "unknown client_id"
        if params.get("redirect_uri") not in client[1]:
            return "redirect_uri is not registered for this client"
        if params.get("response_type") != "code" or params.get("code_challenge_method") != "S256":
            return "only response_type=code with PKCE S256"
        if not params.get("code_challenge") or not params.get("state"):
            return "code_challenge and state are required"
        return None

    async def _authorize_page(self, request: Request) -> Response:
        params = dict(request.query_params)
        problem = self._client_error(params)
        if problem:
            return HTMLResponse(f"<p>{html.escape(problem)}</p>", status_code=400)
        hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                         for k, v in params.items())
        return HTMLResponse(
            "<!doctype html><title>Emulated ID: consent</title><h1>Sign in to renamerd?</h1>"
            f'<form method="post" action="/authorize">{hidden}'
            '<label for="login">Account e-mail</label><input id="login" name="login" type="email">'
            '<button name="decision" value="allow">Allow</button>'
            '<button name="decision" value="deny">Deny</button></form>')

    async def _authorize(self, request: Request) -> Response:
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        problem = self._client_error(form)
        if problem:
            return HTMLResponse(f"<p>{html.escape(problem)}</p>", status_code=400)
        back = form["redirect_uri"]
        if form.get("decision") != "allow":
            refused = urlencode({"error": "access_denied", "state": form["state"]})
            return RedirectResponse(f"{back}?{refused}", 303)
        code = secrets.token_urlsafe(16)
        with self._lock:
            self.codes[code] = {**form, "issued": time.time(), "used": False}
        return RedirectResponse(f"{back}?{urlencode({'code': code, 'state': form['state']})}", 303)

    def _client_auth(self, request: Request, form: dict[str, str]) -> str | None:
        client_id, secret = form.get("client_id", ""), form.get("client_secret")
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        client = self.clients.get(client_id)
        if client is None or (client[0] is not None and secret != client[0]):
            return None
        return client_id

    async def _token(self, request: Request) -> Response:
        self.token_requests += 1
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        client_id = self._client_auth(request, form)
        if client_id is None:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        with self._lock:
            grant = self.codes.get(form.get("code", ""))
            if grant is not None:
                used, grant["used"] = grant["used"], True
        challenge = base64.urlsafe_b64encode(hashlib.sha256(
            form.get("code_verifier", "").encode()).digest()).rstrip(b"=").decode()
        if (grant is None or used or time.time() - grant["issued"] > 60
                or grant["client_id"] != client_id or grant["redirect_uri"] != form.get("redirect_uri")
                or grant["code_challenge"] != challenge):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return JSONResponse({"access_token": secrets.token_urlsafe(24), "token_type": "Bearer",
                             "expires_in": 300, "id_token": self.id_token(grant, client_id)})

    def id_token(self, grant: dict[str, Any], client_id: str, **claims: Any) -> str:
        now = int(time.time())
        email = grant.get("login", "")
        payload = {"iss": self.issuer, "aud": client_id, "sub": hashlib.sha256(
            email.encode()).hexdigest()[:16], "email": email,
            "email_verified": email in self.verified, "nonce": grant.get("nonce"),
            "iat": now, "exp": now + 300, **claims}
        return jwt.encode(payload, self.key, algorithm="RS256", headers={"kid": self.kid})

    async def _jwks(self, _request: Request) -> Response:
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        jwk.update(kid=self.kid, use="sig", alg="RS256")
        return JSONResponse({"keys": [jwk]})
