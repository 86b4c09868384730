"""The pages, one module per page (or per few pages of one idea); each has a `router`."""

from __future__ import annotations

from fastapi import APIRouter

from renamerd.web.pages import auth, connections, jobs, overview

ROUTERS: list[APIRouter] = [auth.router, overview.router, jobs.router, connections.router]
