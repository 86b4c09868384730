"""The Team page: the user's team and its members."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from renamerd.service.web_sessions import SignedIn
from renamerd.web.render import page
from renamerd.web.security import require_user
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)


@router.get("/team")
def team(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    return page(request, "team.html", title="Team",
                team=web_state(request).accounts.team_of(me.user.id))
