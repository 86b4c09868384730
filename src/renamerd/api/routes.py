"""The v1 routes: account endpoints and the two rename endpoints.

A rename runs: authentication and burst limit (dependency) -> size and body shape checks ->
a concurrency slot -> the document (streamed upload, or SSRF-safe fetch) -> option checks ->
type check by content (415 before anything is counted) -> Idempotency-Key claim or replay ->
then `runtime.rename_requests`: daily limit -> one credit reserved (402 at zero) -> the engine
in a worker process (deadline, memory ceiling) -> the credit committed when the document was
renamed, refunded when it kept its name (confidence policy keep or review) or anything
failed. Database and engine work never runs on the event loop.
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse

from renamerd.api.auth import current_user, rate_limited, set_quota
from renamerd.api.errors import ApiError, error_responses, unknown_fields
from renamerd.api.fetch import FetchError
from renamerd.api.idempotency import MAX_KEY_LENGTH, KeyInUse, KeyMismatch, request_hash
from renamerd.api.schemas import (
    CreditsOut,
    RenameFromUrlIn,
    RenameOut,
    TeamOut,
    UserOut,
    multipart_schema,
)
from renamerd.api.uploads import check_content_length, multipart_boundary, read_upload
from renamerd.engine.types import (
    DEFAULT_LANGUAGE,
    DEFAULT_STRATEGY,
    DEFAULT_TEMPLATE_MODE,
    DocumentTooLarge,
    EngineError,
    ProviderUnavailable,
    RenameOptions,
    UnreadableDocument,
    UnsupportedDocument,
)
from renamerd.runtime.engine_pool import EngineFailure, EngineOutOfMemory, EngineTimeout
from renamerd.service.credits import InsufficientCredits
from renamerd.service.limits import LimitExceeded
from renamerd.storage.models import User

log = logging.getLogger("renamerd.api")
T = TypeVar("T")

router = APIRouter(prefix="/api/v1", tags=["v1"])

IDEMPOTENCY_HEADER = Header(
    None, alias="Idempotency-Key", max_length=MAX_KEY_LENGTH,
    description="retrying with the same key within 24 h replays the first answer, charged once",
)


async def _run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run blocking `fn` (database, Redis) in a worker thread."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


async def _run_shielded(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Like `_run`, but finishes even when the request is being cancelled (clean-up work)."""
    with anyio.CancelScope(shield=True):
        result = await _run(fn, *args, **kwargs)
    return result


def engine_error(err: Exception) -> ApiError:
    """The API error for an engine exception (the table in engine/types.py)."""
    if isinstance(err, UnsupportedDocument):
        return ApiError(415, str(err), "UNSUPPORTED_MEDIA_TYPE")
    if isinstance(err, DocumentTooLarge):
        return ApiError(413, str(err), "PAYLOAD_TOO_LARGE")
    if isinstance(err, UnreadableDocument):
        return ApiError(400, str(err), "UNREADABLE_DOCUMENT")
    if isinstance(err, EngineTimeout | EngineOutOfMemory):
        return ApiError(413, f"the document is too costly to read: {err}",
                        "DOCUMENT_TOO_COSTLY")
    if isinstance(err, EngineFailure):  # crashed or stopping: worth a retry
        return ApiError(500, f"processing failed: {err}", "INTERNAL_ERROR")
    if isinstance(err, ProviderUnavailable):
        return ApiError(502, f"the AI service is unavailable: {err}", "BAD_GATEWAY")
    if isinstance(err, EngineError):
        return ApiError(500, f"processing failed: {err}", "INTERNAL_ERROR")
    if isinstance(err, ValueError):  # the engine's own option checks name the field
        return ApiError(400, f"invalid option {err}", "INVALID_OPTION")
    log.error("engine failed unexpectedly: %s", type(err).__name__)
    return ApiError(500, "processing failed: internal error", "INTERNAL_ERROR")


def options_from(fields: dict[str, Any]) -> RenameOptions:
    """RenameOptions from API field names; empty values mean the default. ApiError 400 when a
    value is not one of the allowed ones (the message names field and allowed values)."""
    def get(name: str, default: str | None) -> str | None:
        value = fields.get(name)
        return default if value is None or value == "" else str(value)

    try:
        options = RenameOptions(
            strategy=get("strategy", DEFAULT_STRATEGY) or DEFAULT_STRATEGY,
            template_mode=get("templateMode", DEFAULT_TEMPLATE_MODE) or DEFAULT_TEMPLATE_MODE,
            custom_template=get("customTemplate", None),
            template_id=get("templateId", None),
            language=get("language", DEFAULT_LANGUAGE) or DEFAULT_LANGUAGE,
            below_confidence=get("belowConfidence", None),
            confidence_threshold=threshold_from(fields.get("confidenceThreshold")),
        )
        options.validate()
        if options.template_mode == "custom" and not (options.custom_template or "").strip():
            raise ValueError("customTemplate: required with templateMode custom")
    except ValueError as err:
        raise ApiError(400, f"invalid option {err}", "INVALID_OPTION") from err
    return options


def threshold_from(value: Any) -> float | None:
    """`confidenceThreshold` as a number (a form field is text); None when absent or empty.
    ValueError naming the field when it is not a number from 0 to 1."""
    if value is None or value == "":
        return None
    try:
        number = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        number = float("nan")
    if not 0.0 <= number <= 1.0:  # NaN fails too
        raise ValueError(f"confidenceThreshold: '{value}' is not a number from 0 to 1")
    return number


def _options_key(o: RenameOptions) -> str:
    """The options as part of the idempotency hash: a replay with other options is a mismatch."""
    return repr((o.strategy, o.template_mode, o.custom_template, o.template_id, o.language,
                 o.below_confidence, o.confidence_threshold))


async def _limiter_call(limiter: Any, fn: Callable[..., T], *args: Any,
                        shielded: bool = False) -> T:
    """A limiter call: inline when its storage is this process's memory (microseconds, no
    I/O: a thread hop would cost more), else in a worker thread (Redis)."""
    if limiter.in_process:
        return fn(*args)
    return await (_run_shielded if shielded else _run)(fn, *args)


@asynccontextmanager
async def _slot(request: Request, user: User) -> AsyncIterator[None]:
    limiter = request.app.state.limiter
    try:
        slot = await _limiter_call(limiter, limiter.acquire_slot, user.id)
    except LimitExceeded as err:
        set_quota(request, err.quota)
        raise rate_limited(err) from None
    try:
        yield
    finally:
        await _limiter_call(limiter, slot.release, shielded=True)


class _Rename:
    """One rename after its document is known: claim, count, charge, run, answer."""

    def __init__(self, request: Request, user: User, key: str | None, req_hash: str) -> None:
        self.request = request
        self.state = request.app.state
        self.user = user
        self.key = key
        self.req_hash = req_hash
        self.claimed = False

    async def replay(self) -> JSONResponse | None:
        """Claim the idempotency key; the stored answer when this is a retry, else None."""
        if not self.key:
            return None
        try:
            claim = await _run(self.state.idempotency.begin, self.user.id, self.key, self.req_hash)
        except KeyInUse:
            raise ApiError(
                429, "a request with this Idempotency-Key is still running; retry shortly",
                "IDEMPOTENCY_KEY_IN_USE", {"Retry-After": "1"},
            ) from None
        except KeyMismatch:
            raise ApiError(
                400, "this Idempotency-Key was used for a different request",
                "IDEMPOTENCY_KEY_MISMATCH",
            ) from None
        if claim.replay is not None:
            status, body = claim.replay
            return JSONResponse(body, status_code=status, headers={"Idempotent-Replayed": "true"})
        self.claimed = True
        return None

    async def abandon(self) -> None:
        if self.claimed and self.key:
            await _run_shielded(self.state.idempotency.abandon, self.user.id, self.key)
            self.claimed = False

    async def run(self, data: bytes, filename: str, options: RenameOptions) -> JSONResponse:
        """Count, charge and rename (`runtime.rename_requests`); on any failure the credit is
        refunded and the error answered."""
        ref = f"idem:{self.key}" if self.key else f"req:{uuid.uuid4().hex}"
        try:
            result = await self.state.rename_requests.rename(
                self.user.id, ref, data, filename, options,
                on_quota=functools.partial(set_quota, self.request),
                check=lambda r: RenameOut.model_validate(r.to_api()))
        except LimitExceeded as err:
            set_quota(self.request, err.quota)
            raise rate_limited(err) from None
        except InsufficientCredits:
            raise ApiError(402, "insufficient credits: the account has no credit left",
                           "INSUFFICIENT_CREDITS") from None
        except Exception as err:
            raise engine_error(err) from None
        body = result.to_api()
        if self.key:
            await _run_shielded(self.state.idempotency.finish, self.user.id, self.key, 200, body)
            self.claimed = False
        return JSONResponse(body)


def _check_type(request: Request, data: bytes) -> None:
    from renamerd.engine.formats import detect

    try:
        detect(data, request.app.state.engine_config)
    except EngineError as err:
        raise engine_error(err) from None


RENAME_ERRORS = error_responses(400, 401, 402, 404, 413, 415, 429, 500, 502)
#: the form fields of POST /rename besides `file` (the options of `options_from`)
RENAME_FIELDS = ("strategy", "templateMode", "customTemplate", "templateId", "language",
                 "belowConfidence", "confidenceThreshold")


def json_body(request: Request) -> None:
    """rename-from-url takes a JSON body (`application/json`, or `application/...+json`): any
    other Content-Type (a form, multipart, text, none) is a 400 saying what to send, as POST
    /rename's body that is not multipart is, instead of a schema error about its parts."""
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype != "application/json" and not (
            ctype.startswith("application/") and ctype.endswith("+json")):
        got = f"Content-Type {ctype[:100]}" if ctype else "no Content-Type"
        raise ApiError(400, "invalid request: send the body as JSON with Content-Type: "
                       f"application/json (got {got})", "INVALID_REQUEST")


@router.get("/user", response_model=UserOut, responses=error_responses(401, 404, 429, 500))
async def get_user(user: User = Depends(current_user)) -> UserOut:
    """The profile of the token's owner."""
    return UserOut(id=user.id, email=user.email, name=user.name)


@router.get("/credits", response_model=CreditsOut, responses=error_responses(401, 404, 429, 500))
async def get_credits(request: Request, user: User = Depends(current_user)) -> CreditsOut:
    """The owner's remaining credits."""
    return CreditsOut(credits=await _run(request.app.state.credits.balance, user.id))


@router.get("/team", response_model=TeamOut | None, responses=error_responses(401, 404, 429, 500))
async def get_team(request: Request, user: User = Depends(current_user)) -> dict[str, Any] | None:
    """The owner's team, or null when the owner is in no team."""
    view = await _run(request.app.state.accounts.team_of, user.id)
    if view is None:
        return None
    return {
        "id": view.team.id,
        "name": view.team.name,
        "teamMembers": [
            {"user": {"id": m.id, "name": m.name, "email": m.email}} for m in view.members
        ],
    }


@router.post(
    "/rename", response_model=RenameOut, responses=RENAME_ERRORS,
    openapi_extra={"requestBody": multipart_schema()},
)
async def rename(
    request: Request, user: User = Depends(current_user),
    idempotency_key: str | None = IDEMPOTENCY_HEADER,
) -> JSONResponse:
    """Rename an uploaded document (multipart/form-data, the file in the field `file`)."""
    max_bytes = request.app.state.settings.limits.max_upload_bytes
    check_content_length(request, max_bytes)
    multipart_boundary(request.headers.get("content-type", ""))
    # the upload is read before a concurrency slot is taken: a client trickling its body
    # holds no slot (and is cut off by server.body_idle_timeout_s)
    upload = await read_upload(request, max_bytes)
    try:
        unknown = set(upload.fields) - set(RENAME_FIELDS)
        if unknown:
            raise unknown_fields(unknown, ("file", *RENAME_FIELDS))
        options = options_from(upload.fields)
        data = upload.read()
    finally:
        upload.close()
    async with _slot(request, user):
        _check_type(request, data)
        job = _Rename(request, user, idempotency_key, request_hash(
            "rename", upload.filename, upload.sha256, _options_key(options)
        ))
        replayed = await job.replay()
        if replayed is not None:
            return replayed
        try:
            return await job.run(data, upload.filename, options)
        finally:
            await job.abandon()


@router.post("/rename-from-url", response_model=RenameOut, responses=RENAME_ERRORS)
async def rename_from_url(
    request: Request, body: RenameFromUrlIn, user: User = Depends(current_user),
    _json: None = Depends(json_body), idempotency_key: str | None = IDEMPOTENCY_HEADER,
) -> JSONResponse:
    """Fetch the document at `url` (public addresses only) and rename it."""
    options = options_from(body.model_dump(exclude={"url"}))
    async with _slot(request, user):
        job = _Rename(request, user, idempotency_key, request_hash(
            "rename-from-url", body.url, _options_key(options)
        ))
        replayed = await job.replay()
        if replayed is not None:
            return replayed
        try:
            try:
                fetched = await request.app.state.fetcher.fetch(body.url)
            except FetchError as err:
                raise ApiError(err.status, str(err), err.code) from None
            _check_type(request, fetched.data)
            return await job.run(fetched.data, fetched.filename, options)
        finally:
            await job.abandon()
