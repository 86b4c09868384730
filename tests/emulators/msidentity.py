"""An emulator of the Microsoft identity platform (Entra ID / login.microsoftonline.com), as msal
uses it: tenant discovery, the token endpoint (refresh-token and device-code grants) and the
device authorization endpoint, under ``/{tenant}``. Mounted by the Graph emulator
(`emulators.onedrive`), which asks it whether a bearer token is valid.

Wire format as AAD sends it: token responses with ``expires_in``, a rotated ``refresh_token`` and
``client_info``; errors as ``{"error", "error_description": "AADSTS<code>: ...", "error_codes"}``
(``invalid_grant`` 50173 for a revoked grant, 9002313 for an unknown token, ``invalid_client``
7000215 for a wrong secret, ``authorization_pending`` while a device code waits). Old refresh
tokens stay valid after rotation, as with AAD, until revoked.

The authorization-code grant (PKCE S256) comes with a consent page (emulators/consent.py).
Not emulated: client-credential grants, id_token signatures (none is
issued), conditional access, claims challenges, instance discovery.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from emulators.consent import approved, consent_page

GRAPH_SCOPE = "https://graph.microsoft.com/Files.ReadWrite.All"
TENANT_GUID = "9188040d-6c67-4c5b-b112-36a304b66dad"


@dataclass
class IdentityPlatform:
    """Tokens of one user for a few registered clients ({client_id: secret or None})."""

    token_lifetime: int = 3600
    clients: dict[str, str | None] = field(default_factory=lambda: {"renamerd-test-client": None})
    device_interval: int = 1
    user_id: str = "user-1"

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self.refresh_tokens: dict[str, str] = {}  # token -> client id
        self.revoked: set[str] = set()
        self.access_tokens: dict[str, float] = {}  # token -> expiry (epoch seconds)
        self.device_codes: dict[str, dict[str, Any]] = {}
        self.auth_codes: dict[str, dict[str, str]] = {}
        self.token_requests = 0
        self._token_failures: list[tuple[int, float | None]] = []

    def routes(self) -> list[Route]:
        return [
            Route("/{tenant}/v2.0/.well-known/openid-configuration", self._openid, methods=["GET"]),
            Route("/{tenant}/oauth2/v2.0/token", self._token, methods=["POST"]),
            Route("/{tenant}/oauth2/v2.0/devicecode", self._devicecode, methods=["POST"]),
            Route("/{tenant}/oauth2/v2.0/authorize", self._authorize, methods=["GET"]),
            Route("/devicelogin", self._devicelogin, methods=["GET"]),
        ]

    def access_token_valid(self, token: str) -> bool:
        with self._lock:
            expiry = self.access_tokens.get(token)
            return expiry is not None and expiry >= time.time()

    # ------------------------------------------------------------------ backdoor

    def issue_refresh_token(self, client_id: str | None = None) -> str:
        """A refresh token as if the user had consented (what `renamerd connect` stores)."""
        with self._lock:
            token = "M.R3_BAY." + secrets.token_urlsafe(24)
            self.refresh_tokens[token] = client_id or next(iter(self.clients))
            return token

    def revoke_refresh_tokens(self) -> None:
        """The user revoked the app's sessions: every refresh token gives invalid_grant."""
        with self._lock:
            self.revoked.update(self.refresh_tokens)
            self.refresh_tokens.clear()

    def expire_access_tokens(self) -> None:
        with self._lock:
            self.access_tokens.clear()

    def approve_device_code(self, user_code: str) -> bool:
        with self._lock:
            for flow in self.device_codes.values():
                if flow["user_code"] == user_code:
                    flow["approved"] = True
                    return True
            return False

    def fail_next_token(self, status: int = 503, retry_after: float | None = 1) -> None:
        """Fail the next token request with `status` (AAD answers temporarily_unavailable)."""
        with self._lock:
            self._token_failures.append((status, retry_after))

    # ------------------------------------------------------------------ endpoints

    async def _openid(self, request: Request) -> Response:
        tenant = request.path_params["tenant"]
        base = f"{request.url.scheme}://{request.url.netloc}/{tenant}"
        return JSONResponse({
            "token_endpoint": f"{base}/oauth2/v2.0/token",
            "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
            "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
            "issuer": f"{request.url.scheme}://{request.url.netloc}/{TENANT_GUID}/v2.0",
            "jwks_uri": f"{base}/discovery/v2.0/keys",
            "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "tenant_region_scope": None,
        })

    @staticmethod
    async def _form(request: Request) -> dict[str, str]:
        body = (await request.body()).decode()
        return {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}

    @staticmethod
    def _aad_error(status: int, error: str, code: int, text: str) -> JSONResponse:
        return JSONResponse({
            "error": error,
            "error_description": f"AADSTS{code}: {text} Trace ID: {secrets.token_hex(8)}",
            "error_codes": [code],
            "timestamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ"),
            "trace_id": secrets.token_hex(8),
            "correlation_id": secrets.token_hex(8),
        }, status_code=status)

    def _check_client(self, form: dict[str, str]) -> JSONResponse | None:
        client_id = form.get("client_id", "")
        if client_id not in self.clients:
            return self._aad_error(400, "unauthorized_client", 700016,
                                   f"Application with identifier '{client_id}' was not found.")
        secret = self.clients[client_id]
        if secret is not None and form.get("client_secret") != secret:
            return self._aad_error(401, "invalid_client", 7000215, "Invalid client secret provided.")
        return None

    def _mint(self, client_id: str, scope: str) -> dict[str, Any]:
        now = time.time()
        self.access_tokens = {t: e for t, e in self.access_tokens.items() if e > now}
        access = "EwA" + secrets.token_urlsafe(32)
        self.access_tokens[access] = now + self.token_lifetime
        refresh = "M.R3_BAY." + secrets.token_urlsafe(24)
        self.refresh_tokens[refresh] = client_id
        info = base64.urlsafe_b64encode(json.dumps(
            {"uid": self.user_id, "utid": TENANT_GUID}).encode())
        return {
            "token_type": "Bearer",
            "scope": scope,
            "expires_in": self.token_lifetime,
            "ext_expires_in": self.token_lifetime,
            "access_token": access,
            "refresh_token": refresh,
            "client_info": info.decode().rstrip("="),
        }

    async def _token(self, request: Request) -> Response:
        form = await self._form(request)
        with self._lock:
            self.token_requests += 1
            if self._token_failures:
                status, retry = self._token_failures.pop(0)
                resp = self._aad_error(status, "temporarily_unavailable", 50196,
                                       "The server is temporarily unavailable.")
                if retry is not None:
                    resp.headers["Retry-After"] = str(int(retry))
                return resp
            bad = self._check_client(form)
            if bad is not None:
                return bad
            grant = form.get("grant_type")
            scope = " ".join(s for s in form.get("scope", "").split()
                             if s not in ("openid", "profile", "offline_access")) or GRAPH_SCOPE
            if grant == "refresh_token":
                token = form.get("refresh_token", "")
                if token in self.revoked:
                    return self._aad_error(400, "invalid_grant", 50173,
                                           "The provided grant has expired due to it being revoked, "
                                           "a fresh auth token is needed.")
                if self.refresh_tokens.get(token) != form.get("client_id"):
                    return self._aad_error(400, "invalid_grant", 9002313,
                                           "Invalid request. Request is malformed or invalid.")
                return JSONResponse(self._mint(form["client_id"], scope))
            if grant == "authorization_code":
                flow = self.auth_codes.pop(form.get("code", ""), None)
                if (flow is None or flow["client_id"] != form.get("client_id")
                        or flow["redirect_uri"] != form.get("redirect_uri")):
                    return self._aad_error(400, "invalid_grant", 70000,
                                           "The provided authorization code is invalid or expired.")
                digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
                if base64.urlsafe_b64encode(digest).decode().rstrip("=") != flow["challenge"]:
                    return self._aad_error(400, "invalid_grant", 501481,
                                           "The Code_Verifier does not match the code_challenge.")
                return JSONResponse(self._mint(form["client_id"], scope))
            if grant in ("urn:ietf:params:oauth:grant-type:device_code", "device_code"):
                flow = self.device_codes.get(form.get("device_code", ""))
                if flow is None or flow["expires"] < time.time():
                    return self._aad_error(400, "expired_token", 70020,
                                           "The provided value for the input parameter 'device_code' "
                                           "is not valid.")
                if not flow["approved"]:
                    return self._aad_error(400, "authorization_pending", 70016,
                                           "OAuth 2.0 device flow error. Authorization is pending.")
                del self.device_codes[form["device_code"]]
                return JSONResponse(self._mint(form["client_id"], scope))
            return self._aad_error(400, "unsupported_grant_type", 70003,
                                   f"The app requested an unsupported grant type '{grant}'.")

    async def _devicecode(self, request: Request) -> Response:
        form = await self._form(request)
        with self._lock:
            client_id = form.get("client_id", "")
            if client_id not in self.clients:
                return self._aad_error(400, "unauthorized_client", 700016,
                                       f"Application with identifier '{client_id}' was not found.")
            device_code = secrets.token_urlsafe(32)
            user_code = "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(9))
            self.device_codes[device_code] = {"user_code": user_code, "client_id": client_id,
                                              "approved": False, "expires": time.time() + 900}
        uri = f"{request.url.scheme}://{request.url.netloc}/devicelogin"
        return JSONResponse({
            "user_code": user_code,
            "device_code": device_code,
            "verification_uri": uri,
            "expires_in": 900,
            "interval": self.device_interval,
            "message": f"To sign in, use a web browser to open the page {uri} and enter the code "
                       f"{user_code} to authenticate.",
        })

    async def _authorize(self, request: Request) -> Response:
        """The sign-in and consent page of the authorization-code flow (PKCE required)."""
        q = request.query_params
        with self._lock:
            if q.get("client_id", "") not in self.clients:
                return PlainTextResponse("AADSTS700016: Application not found", 400)
            if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256":
                return PlainTextResponse("AADSTS900144: PKCE (S256) is required", 400)
        if not approved(request):
            return consent_page(request, "Microsoft", "read and write your files (OneDrive)")
        code = "M.C5" + secrets.token_urlsafe(24)
        with self._lock:
            self.auth_codes[code] = {"client_id": q["client_id"],
                                     "redirect_uri": q.get("redirect_uri", ""),
                                     "challenge": q.get("code_challenge", "")}
        query = urlencode({"code": code, "state": q.get("state", "")})
        return RedirectResponse(f"{q.get('redirect_uri', '')}?{query}", 302)

    async def _devicelogin(self, request: Request) -> Response:
        return PlainTextResponse("Enter code (approve through the emulator backdoor in tests)")
