"""The Connections page: the user's watched folders and drives. Those of the config file are
shown read-only; the user's own (made with **Connect Google Drive** / **Dropbox** / **OneDrive**,
web/pages/connect.py) are edited in their settings form (Watch folder, Target folder, Strategy,
Output language, Instructions, Dry run, Paused), paused, reconnected and deleted here. Another
user's connection is a 404 and nothing changes."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from renamerd.engine.types import BELOW_CONFIDENCE, LANGUAGES, STRATEGIES
from renamerd.runtime.connector_pool import list_folders
from renamerd.service import local_roots
from renamerd.service.connection_views import connections_of
from renamerd.service.connections import (
    PROVIDER_NAMES,
    WEB_PROVIDERS,
    ConnectionNotFound,
    Connections,
    Fields,
    InvalidConnection,
    as_settings,
)
from renamerd.service.web_sessions import SignedIn
from renamerd.storage.models import UserConnection
from renamerd.web.errors import not_found
from renamerd.web.instructions import instruction_notes
from renamerd.web.render import page, redirect
from renamerd.web.security import SignInRequired, checked, require_user
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)


def _store(request: Request) -> Connections:
    state = web_state(request)
    return Connections(state.db, state.settings)


def providers(request: Request) -> list[dict[str, str]]:
    """The providers the admin configured for browser connects, with their button words."""
    configured = web_state(request).settings.providers
    return [{"id": p, "name": PROVIDER_NAMES[p]} for p in WEB_PROVIDERS if p in configured]


@router.get("/connections")
def connections(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    state = web_state(request)
    return page(request, "connections.html", title="Connections",
                connections=connections_of(state.settings, state.db, me.user),
                providers=providers(request), names=PROVIDER_NAMES, signs_in=WEB_PROVIDERS)


def _mine(request: Request, me: SignedIn, name: str) -> UserConnection:
    try:
        return _store(request).get(me.user.id, name)
    except ConnectionNotFound:
        raise not_found("connection") from None


def _policy_defaults(request: Request) -> dict[str, Any]:
    """The server's confidence policy, shown as what an empty choice means."""
    engine = web_state(request).settings.engine
    return {"below_confidence": engine.below_confidence,
            "confidence_threshold": engine.confidence_threshold}


def _notes(request: Request, values: dict[str, Any]) -> list[str]:
    """What of the instructions will not be used, in words (web/instructions.py)."""
    llm = web_state(request).settings.engine.provider == "openai"
    return instruction_notes(values.get("custom_template"), str(values.get("strategy") or ""),
                             llm=llm)


def _form_page(request: Request, row: UserConnection, *, error: str = "",
               values: dict[str, Any] | None = None, status: int = 200) -> Response:
    shown = {key: getattr(row, key) for key in (
        "watch", "target", "strategy", "language", "custom_template", "below_confidence",
        "confidence_threshold", "dry_run", "paused")}
    shown.update(values or {})
    return page(request, "connection.html", status=status, title=f"Connection {row.name}",
                row=row, values=shown, error=error, notes=_notes(request, shown),
                strategies=STRATEGIES, languages=LANGUAGES,
                policies=BELOW_CONFIDENCE, defaults=_policy_defaults(request),
                provider_name=PROVIDER_NAMES.get(row.provider, row.provider))


@router.get("/connections/{name}")
def settings_form(request: Request, name: str, me: SignedIn = Depends(require_user)
                  ) -> Response:
    return _form_page(request, _mine(request, me, name))


@router.post("/connections/{name}")
async def save(request: Request, name: str, me: SignedIn | None = Depends(checked)
               ) -> Response:
    """Save the settings form; the daemon takes them within one poll."""
    if me is None:
        raise SignInRequired(f"/connections/{name}")
    form = await request.form()
    values: dict[str, Any] = {
        "watch": str(form.get("watch", "")), "target": str(form.get("target", "")),
        "strategy": str(form.get("strategy", "")), "language": str(form.get("language", "")),
        "custom_template": str(form.get("custom_template", "")),
        "below_confidence": str(form.get("below_confidence", "")),
        "confidence_threshold": str(form.get("confidence_threshold", "")),
        "dry_run": form.get("dry_run") == "on", "paused": form.get("paused") == "on"}
    values["template_mode"] = "custom" if values["custom_template"].strip() else "auto"
    return await _save(request, me, name, values)


async def _save(request: Request, me: SignedIn, name: str, values: dict[str, Any]
                ) -> Response:
    import anyio

    def run() -> Response:
        row = _mine(request, me, name)
        try:
            _store(request).update(me.user.id, name, Fields.check(values))
        except InvalidConnection as err:
            return _form_page(request, row, error=str(err), values=values, status=400)
        saved = f"Saved: {name} takes the new settings within one poll"
        if _notes(request, values):  # shown under the instructions, where they are changed
            return redirect(request, f"/connections/{name}",
                            f"{saved}; see the notes under Instructions.", "warn")
        return redirect(request, "/connections", f"{saved}.")

    return await anyio.to_thread.run_sync(run)


@router.get("/connections/{name}/folders")
def folders(request: Request, name: str, path: str = Query("/", max_length=1000),
            me: SignedIn = Depends(require_user)) -> Response:
    """The folders in `path` of the user's connection `name`, as JSON for the folder browser:
    {"path", "folders"}; 404 for another user's connection or a path that is no folder."""
    from renamerd.connectors import ConnectorError, NotFound

    row = _mine(request, me, name)
    state = web_state(request)
    path = "/" + path.strip().strip("/")
    if row.provider == "local":  # only the way down to the user's roots, and what is in them
        on_the_way = local_roots.browsable(
            path, local_roots.roots_of(state.settings.providers, me.user.email))
        if on_the_way is not None:
            return JSONResponse({"path": path, "folders": on_the_way})
    try:
        folder_names = list_folders(state.settings, state.db, as_settings(
            row, me.user.email, state.settings), path)
    except NotFound:
        return JSONResponse({"error": f"no folder {path}"}, status_code=404)
    except ConnectorError as err:
        return JSONResponse({"error": f"the drive did not answer: {err}"}, status_code=502)
    return JSONResponse({"path": path, "folders": folder_names})


@router.post("/connections/{name}/delete")
def delete(request: Request, name: str, me: SignedIn | None = Depends(checked)) -> Response:
    """Delete the connection and its stored sign-in; its jobs' history stays."""
    if me is None:
        raise SignInRequired("/connections")
    _mine(request, me, name)
    _store(request).delete(me.user.id, name)
    return redirect(request, "/connections", f"{name} is deleted; renamerd no longer watches it.")
