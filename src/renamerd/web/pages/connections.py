"""The Connections page: the user's watched folders and drives, read-only.

(The connections of the web app itself, made through each provider's consent flow, replace
this page; config.toml's connections stay read-only there.)
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from renamerd.service.connection_views import connections_of
from renamerd.service.web_sessions import SignedIn
from renamerd.web.render import page
from renamerd.web.security import require_user
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)


@router.get("/connections")
def connections(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    state = web_state(request)
    return page(request, "connections.html", title="Connections",
                connections=connections_of(state.settings, state.db, me.user))
