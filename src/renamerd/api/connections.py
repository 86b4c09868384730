"""The token owner's connections (extensions of the v1 API), as the web app's Connections page:
list them (the config file's naming the owner too, read-only), make one, change its settings,
delete it. The same service as the page (`service.connections`).

A connection made here has no sign-in yet unless `refreshToken` is given: `connectUrl` is the
web app's address where its owner allows access at the provider. Another user's connection,
and one from the config file, answer 404, and nothing changes.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from renamerd.api.auth import current_user
from renamerd.api.errors import ApiError, error_responses
from renamerd.service import secrets as secrets_store
from renamerd.service.connection_views import ConnectionView, connections_of
from renamerd.service.connections import (
    WEB_PROVIDERS,
    ConnectionNotFound,
    Connections,
    Fields,
    InvalidConnection,
)
from renamerd.storage.models import User, UserConnection

router = APIRouter(prefix="/api/v1", tags=["connections (extension)"])


class ConnectionOut(BaseModel):
    name: str
    provider: str
    source: Literal["config", "user"] = Field(
        description="config: from the server's config file, read-only here; user: the owner's")
    watch: str
    target: str
    state: str = Field(description="watching, paused, needs re-consent, waiting for the first "
                       "poll, choose its folders, not signed in yet (made without refreshToken: "
                       "not polled until its owner signs in at connectUrl)")
    error: str | None
    strategy: str | None = None
    language: str | None = None
    instructions: str | None = None
    belowConfidence: str | None = Field(None, description="keep, review or rename; null: the "
                                        "server's default")
    confidenceThreshold: float | None = None
    dryRun: bool | None = None
    paused: bool | None = None
    connectUrl: str | None = Field(None, description="where the owner signs in at the "
                                   "provider (web app) to give or renew access")


class ConnectionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    watch: str | None = Field(None, max_length=1000, description="the folder watched")
    target: str | None = Field(None, max_length=1000,
                               description="where renamed documents go (empty: below watch)")
    strategy: str | None = None
    language: str | None = None
    instructions: str | None = Field(None, max_length=65536, description="customTemplate")
    belowConfidence: Literal["keep", "review", "rename"] | None = Field(
        None, description="documents read with less than confidenceThreshold: keep (left in "
        "the watch folder), review (moved to <target>/Review under their name) or rename; "
        "keep and review cost no credit; null: the server's default")
    confidenceThreshold: float | None = Field(None, ge=0, le=1, description="0..1; null: the "
                                              "server's default")
    dryRun: bool | None = None
    paused: bool | None = None


class NewConnectionIn(ConnectionIn):
    provider: str = Field(description="gdrive, dropbox or onedrive (configured by the admin)")
    refreshToken: str | None = Field(None, max_length=4096, description="a refresh token "
                                     "obtained elsewhere; stored encrypted, never returned")


def _fields(body: ConnectionIn) -> Fields:
    mapping = {"watch": "watch", "target": "target", "strategy": "strategy",
               "language": "language", "instructions": "custom_template",
               "belowConfidence": "below_confidence",
               "confidenceThreshold": "confidence_threshold",
               "dryRun": "dry_run", "paused": "paused"}
    values: dict[str, Any] = {mapping[k]: v for k, v in body.model_dump(
        exclude_unset=True, exclude={"provider", "refreshToken"}).items() if k in mapping}
    if "custom_template" in values:
        values["template_mode"] = "custom" if (values["custom_template"] or "").strip() \
            else "auto"
    try:
        return Fields.check(values)
    except InvalidConnection as err:
        raise ApiError(400, str(err), "INVALID_CONNECTION") from None


def _out(request: Request, view: ConnectionView, row: UserConnection | None) -> ConnectionOut:
    out = ConnectionOut(name=view.name, provider=view.provider, source=view.source,  # type: ignore[arg-type]
                        watch=view.watch, target=view.target, state=view.state,
                        error=view.error)
    if row is not None:
        base = request.app.state.settings.server.base_url
        out.strategy, out.language = row.strategy, row.language
        out.instructions, out.dryRun, out.paused = row.custom_template, row.dry_run, row.paused
        out.belowConfidence = row.below_confidence
        out.confidenceThreshold = row.confidence_threshold
        out.connectUrl = f"{base}/connections/connect/{row.provider}?connection={row.name}"
    return out


def _has_key(settings: Any) -> bool:
    try:
        return secrets_store.has_key(settings)
    except secrets_store.SecretsKeyError:  # a key_file that cannot be read
        return False


def _store(request: Request) -> Connections:
    return Connections(request.app.state.db, request.app.state.settings)


def _one(request: Request, user: User, name: str) -> ConnectionOut:
    rows = {r.name: r for r in _store(request).list_of(user.id)}
    for view in connections_of(request.app.state.settings, request.app.state.db, user):
        if view.name == name:
            return _out(request, view, rows.get(name))
    raise ApiError(404, f"no connection {name!r}", "NOT_FOUND")


@router.get("/connections", response_model=list[ConnectionOut],
            responses=error_responses(401, 429, 500))
def list_connections(request: Request, user: User = Depends(current_user)) -> list[ConnectionOut]:
    """The owner's connections: the config file's naming them, then their own."""
    rows = {r.name: r for r in _store(request).list_of(user.id)}
    return [_out(request, v, rows.get(v.name)) for v in connections_of(
        request.app.state.settings, request.app.state.db, user)]


@router.get("/connections/{name}", response_model=ConnectionOut,
            responses=error_responses(401, 404, 429, 500))
def get_connection(request: Request, name: str, user: User = Depends(current_user)
                   ) -> ConnectionOut:
    return _one(request, user, name)


@router.post("/connections", response_model=ConnectionOut, status_code=201,
             responses=error_responses(400, 401, 429, 500))
def create_connection(request: Request, body: NewConnectionIn,
                      user: User = Depends(current_user)) -> ConnectionOut:
    """A new connection of the owner's; the daemon watches it within a few seconds once it
    has a sign-in (`refreshToken`, or its owner at `connectUrl`)."""
    settings = request.app.state.settings
    fields = _fields(body)
    if ((body.refreshToken or body.provider in WEB_PROVIDERS)
            and not _has_key(settings)):
        raise ApiError(400, "this server has no secrets key to keep sign-ins with; "
                       "ask the admin", "NO_SECRETS_KEY")
    try:
        row = _store(request).create(user.id, body.provider, fields)
    except InvalidConnection as err:
        raise ApiError(400, str(err), "INVALID_CONNECTION") from None
    if body.refreshToken:
        secrets_store.store_refresh_token(request.app.state.db, settings, row.name,
                                          body.refreshToken)
    return _one(request, user, row.name)


@router.patch("/connections/{name}", response_model=ConnectionOut,
              responses=error_responses(400, 401, 404, 429, 500))
def update_connection(request: Request, name: str, body: ConnectionIn,
                      user: User = Depends(current_user)) -> ConnectionOut:
    """Change the given settings; taken by the daemon within one poll. Safe to repeat."""
    try:
        _store(request).update(user.id, name, _fields(body))
    except ConnectionNotFound:
        raise ApiError(404, f"no connection {name!r} of yours (connections of the config "
                       "file are changed there)", "NOT_FOUND") from None
    except InvalidConnection as err:
        raise ApiError(400, str(err), "INVALID_CONNECTION") from None
    return _one(request, user, name)


@router.delete("/connections/{name}", status_code=204,
               responses=error_responses(401, 404, 429, 500))
def delete_connection(request: Request, name: str, user: User = Depends(current_user)
                      ) -> Response:
    """Delete the connection and its stored sign-in; its jobs' history stays."""
    try:
        _store(request).delete(user.id, name)
    except ConnectionNotFound:
        raise ApiError(404, f"no connection {name!r} of yours", "NOT_FOUND") from None
    return Response(status_code=204)
