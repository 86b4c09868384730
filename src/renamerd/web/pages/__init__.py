"""The pages, one module per page (or per few pages of one idea); each has a `router`."""

from __future__ import annotations

from fastapi import APIRouter

from renamerd.web.pages import (
    account,
    admin,
    auth,
    connect,
    connections,
    jobs,
    oidc,
    overview,
    team,
    tokens,
    try_it,
)

ROUTERS: list[APIRouter] = [
    auth.router, oidc.router, overview.router, jobs.router, connect.router, connections.router,
    try_it.router, tokens.router, team.router, account.router, admin.router,
]
