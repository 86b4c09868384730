"""Connecting a drive through the browser: **Connect Google Drive** (Dropbox, OneDrive) sends
the person to the provider's consent page (authorization code + PKCE + state,
service/consent.py) and back to `/connections/callback/{provider}`, where the refresh token is
stored encrypted and the new connection's settings form opens. Also **Reconnect** of a
connection whose sign-in the provider stopped accepting.

What the callback must match (provider, state, PKCE verifier, the user, the connection to
reconnect) travels in a short-lived cookie encrypted with the secrets key: nothing of it is in
the page or the URL but the state, and a callback in another person's browser fails."""

from __future__ import annotations

import json
import time

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response

from renamerd.connectors import ConnectorError
from renamerd.service import consent
from renamerd.service import secrets as secrets_store
from renamerd.service.connections import (
    PROVIDER_NAMES,
    WEB_PROVIDERS,
    ConnectionNotFound,
    Connections,
)
from renamerd.service.web_sessions import SignedIn
from renamerd.storage.models import ConnectionState
from renamerd.web.errors import not_found
from renamerd.web.render import redirect
from renamerd.web.security import clear_cookie, require_user, set_cookie
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)
COOKIE = "renamerd_consent"
#: seconds a person has on the provider's consent page
CONSENT_S = 900


def _redirect_uri(request: Request, provider: str) -> str:
    settings = web_state(request).settings
    base = settings.server.public_url or str(request.base_url).rstrip("/")
    return f"{base}/connections/callback/{provider}"


@router.get("/connections/connect/{provider}")
def start(request: Request, provider: str, connection: str = Query("", max_length=200),
          me: SignedIn = Depends(require_user)) -> Response:
    """Off to the provider's consent page (a link: it changes nothing here yet)."""
    state = web_state(request)
    options = state.settings.providers.get(provider)
    if provider not in WEB_PROVIDERS or options is None:
        raise not_found("provider")
    if connection:  # reconnect: it must be one of the user's
        try:
            row = Connections(state.db, state.settings).get(me.user.id, connection)
        except ConnectionNotFound:
            raise not_found("connection") from None
        if row.provider != provider:
            raise not_found("connection")
    try:
        cipher = secrets_store.fernet(state.settings)
        started = consent.start(provider, options, _redirect_uri(request, provider))
    except secrets_store.SecretsKeyError as err:
        # (the key's path and how to make one are for the admin, not for every user)
        why = (str(err) if me.user.is_admin else "this server has no key to keep sign-ins "
               "with yet; ask your admin")
        return redirect(request, "/connections", f"Cannot connect {PROVIDER_NAMES[provider]}: "
                                                 f"{why}", "error")
    except ConnectorError as err:
        return redirect(request, "/connections", f"Cannot connect {PROVIDER_NAMES[provider]}: "
                                                 f"{err}", "error")
    sealed = cipher.encrypt(json.dumps({
        "p": provider, "s": started.state, "v": started.verifier, "u": me.user.id,
        "c": connection, "t": time.time()}).encode()).decode()
    response = RedirectResponse(started.url, status_code=303)
    set_cookie(request, response, COOKIE, sealed, max_age=CONSENT_S)
    return response


@router.get("/connections/callback/{provider}")
def callback(request: Request, provider: str, me: SignedIn = Depends(require_user),
             code: str = Query("", max_length=4096), state: str = Query("", max_length=200),
             error: str = Query("", max_length=200)) -> Response:
    """The provider sends the person back here with a code (or an error)."""
    web = web_state(request)
    pending = _opened(request, provider, me, state)
    if isinstance(pending, Response):
        return pending
    failed = "Connecting failed"
    if error or not code:
        return _done(request, redirect(request, "/connections", f"{failed}: "
                     f"{PROVIDER_NAMES[provider]} answered {error or 'without a code'}.", "error"))
    options = web.settings.providers[provider]
    try:
        token = consent.finish(provider, options, _redirect_uri(request, provider), code,
                               pending["v"])
    except ConnectorError as err:
        return _done(request, redirect(request, "/connections", f"{failed}: {err}", "error"))
    store = Connections(web.db, web.settings)
    name = pending["c"] or store.create_unset(me.user.id, provider).name
    secrets_store.store_refresh_token(web.db, web.settings, name, token)
    with web.db.write_session() as s:  # a stopped connection works again
        found = s.get(ConnectionState, name)
        if found is not None and found.status == "stopped":
            found.status, found.error = "ok", None
            s.add(found)
    message = (f"{name} is connected again." if pending["c"] else
               f"{PROVIDER_NAMES[provider]} is connected. Choose the folders to watch and file "
               "into, then Save.")
    return _done(request, redirect(request, f"/connections/{name}", message))


def _opened(request: Request, provider: str, me: SignedIn, state: str) -> dict[str, str] | Response:
    """The pending consent of this browser, checked against the callback, or an error page."""
    web = web_state(request)
    from renamerd.web.security import cookie_name

    sealed = request.cookies.get(cookie_name(request, COOKIE), "")
    try:
        data = json.loads(secrets_store.fernet(web.settings).decrypt(
            sealed.encode(), ttl=CONSENT_S))
    except Exception:
        data = None
    if (not isinstance(data, dict) or data.get("p") != provider or data.get("u") != me.user.id
            or not state or data.get("s") != state):
        return _done(request, redirect(request, "/connections", "Connecting failed: this answer "
                                       "does not belong to a connect started here; start again.",
                                       "error"))
    return {key: str(data.get(key, "")) for key in ("p", "s", "v", "u", "c")}


def _done(request: Request, response: Response) -> Response:
    clear_cookie(request, response, COOKIE)
    return response
