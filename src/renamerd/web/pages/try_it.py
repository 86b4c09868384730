"""The "Try it" page: drop a document and see the suggested name, folder, extracted fields and
confidence, as the API answers them, for one credit (none when the document keeps its name,
none when anything fails). The same paid steps as the API (`runtime.rename_requests`: the daily
limit, the credit, the engine in its worker processes); nothing is stored or moved."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import UploadFile

from renamerd.engine.types import (
    DEFAULT_LANGUAGE,
    DEFAULT_STRATEGY,
    LANGUAGES,
    STRATEGIES,
    EngineError,
    RenameOptions,
)
from renamerd.runtime.engine_child import EngineFailure
from renamerd.service.credits import InsufficientCredits
from renamerd.service.limits import LimitExceeded
from renamerd.service.web_sessions import SignedIn
from renamerd.web.instructions import misread_words, not_understood_note, strategy_note
from renamerd.web.render import page
from renamerd.web.security import SignInRequired, checked, require_user, signed_in
from renamerd.web.state import web_state

router = APIRouter(include_in_schema=False)
#: the form's own fields on top of the document
FORM_OVERHEAD = 256 * 1024


def _page(request: Request, *, status: int = 200, values: dict[str, str],
          error: str = "", result: dict[str, Any] | None = None, balance: int = 0) -> Response:
    state = web_state(request)
    return page(request, "try.html", status=status, title="Try it",
                strategies=STRATEGIES, languages=LANGUAGES,
                max_mb=state.settings.limits.max_upload_mb, values=values, error=error,
                result=result, balance=balance, notes=_notes(result, values))


def _notes(result: dict[str, Any] | None, values: dict[str, str]) -> list[str]:
    """What of the instructions the rename did not use, in words: the parts not understood
    (by the engine, after the LLM provider when one is configured: left out), and what the
    strategy leaves unused. None without a result."""
    if result is None:
        return []
    misread = (result.get("instructions") or {}).get("notUnderstoodReasons") or []
    notes = [not_understood_note([misread_words(m["text"], m["reason"]) for m in misread],
                                 llm=False),
             strategy_note(values.get("instructions", ""), values.get("strategy", ""))]
    return [note for note in notes if note]


_DEFAULTS = {"strategy": DEFAULT_STRATEGY, "language": DEFAULT_LANGUAGE, "instructions": ""}


@router.get("/try")
def try_form(request: Request, me: SignedIn = Depends(require_user)) -> Response:
    return _page(request, values=dict(_DEFAULTS))


def _too_large(request: Request) -> bool:
    """The upload's Content-Length is over the limit (or not given): refused before anything
    is read."""
    limit = web_state(request).settings.limits.max_upload_bytes + FORM_OVERHEAD
    length = request.headers.get("content-length", "")
    return not length.isdigit() or int(length) > limit


@router.post("/try")
async def try_it(request: Request) -> Response:
    if _too_large(request):
        # (the form is not read, so no CSRF check: the page is only shown again, with why)
        if signed_in(request) is None:
            raise SignInRequired("/try")
        return _page(request, status=413, values=dict(_DEFAULTS),
                     error="The document is too large (or its size is not given): at most "
                           f"{web_state(request).settings.limits.max_upload_mb:g} MB. "
                           "Nothing was charged.")
    me = await checked(request)
    if me is None:
        raise SignInRequired("/try")
    form = await request.form()
    upload = form.get("document")
    values = {"strategy": str(form.get("strategy") or DEFAULT_STRATEGY),
              "language": str(form.get("language") or DEFAULT_LANGUAGE),
              "instructions": str(form.get("instructions") or "")}
    if not isinstance(upload, UploadFile) or not upload.filename:
        return _page(request, status=400, values=values, error="Choose a document first.")
    data = await upload.read()
    instructions = values["instructions"].strip()
    options = RenameOptions(strategy=values["strategy"], language=values["language"],
                            template_mode="custom" if instructions else "auto",
                            custom_template=instructions or None)
    try:
        options.validate()
    except ValueError as err:
        return _page(request, status=400, values=values, error=str(err))
    state = request.app.state
    try:
        result = await state.rename_requests.rename(
            me.user.id, f"req:try-{uuid.uuid4().hex}", data, upload.filename[:255], options)
    except InsufficientCredits:
        return _page(request, status=402, values=values,
                     error="You have no credit left: ask your admin for more.")
    except LimitExceeded as err:
        return _page(request, status=429, values=values, error=str(err))
    except (EngineError, EngineFailure) as err:
        return _page(request, status=422, values=values,
                     error=f"The document could not be renamed, and cost nothing: {err}")
    body = result.to_api()
    return _page(request, values=values, result=body,
                 balance=web_state(request).credits.balance(me.user.id))
