"""Errors of the v1 API: one body shape, `{"error": "<message>", "code": "<CODE>"}`, everywhere.

`ApiError` is raised by routes and dependencies; the handlers installed by `install_handlers`
turn it, FastAPI's request validation errors, Starlette's 404/405 and anything unexpected into
that shape. Unexpected exceptions become a 500 with a fixed message: no stack trace or document
content leaves the server (the exception is logged with its type only).
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("renamerd.api")

#: status -> (default code, short meaning); the error table of docs/api.md is this table
CODES: dict[int, tuple[str, str]] = {
    400: ("INVALID_REQUEST", "bad request"),
    401: ("UNAUTHORIZED", "missing, malformed, invalid, revoked or expired credentials"),
    402: ("INSUFFICIENT_CREDITS", "the account has no credit left"),
    404: ("NOT_FOUND", "user, route or fetched file not found"),
    405: ("METHOD_NOT_ALLOWED", "the route does not take this method"),
    409: ("CONFLICT", "the job is not in a state that allows this, or its file moved"),
    413: ("PAYLOAD_TOO_LARGE", "the document is over the size limit"),
    415: ("UNSUPPORTED_MEDIA_TYPE", "not a document type renamerd reads"),
    429: ("RATE_LIMITED", "too many requests; wait Retry-After seconds"),
    500: ("INTERNAL_ERROR", "processing failed; retry with backoff"),
    502: ("BAD_GATEWAY", "the LLM provider or the fetched server failed; retry with backoff"),
}


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: str = Field(description="human-readable message")
    code: str | None = Field(
        default=None, description="machine-readable code, e.g. INVALID_MULTIPART_PAYLOAD"
    )


class ApiError(Exception):
    """An error response: `status`, a message safe to show, a code, and extra headers."""

    def __init__(
        self, status: int, message: str, code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or CODES.get(status, ("ERROR", ""))[0]
        self.headers = headers or {}


def error_response(
    status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"error": message, "code": code or CODES.get(status, ("ERROR", ""))[0]}
    return JSONResponse(body, status_code=status, headers=headers)


#: the fields of a rename whose wrong value is an INVALID_OPTION (as for POST /rename's form)
OPTION_FIELDS = frozenset({"strategy", "templateMode", "templateId", "language",
                           "belowConfidence"})
#: the code of a field the endpoint does not take (a misspelt option would otherwise be
#: ignored and its default used)
UNKNOWN_FIELD = "UNKNOWN_FIELD"


def unknown_fields(names: Iterable[str], known: Iterable[str]) -> ApiError:
    """The 400 UNKNOWN_FIELD of fields an endpoint does not take: names them (the closest
    known one when there is one) and lists the fields it takes."""
    given, accepted = sorted(set(names)), list(known)
    listed = ", ".join(f"'{n[:50]}'" for n in given[:5]) + (", ..." if len(given) > 5 else "")
    message = f"unknown field{'s' if len(given) > 1 else ''} {listed}"
    close = difflib.get_close_matches(given[0], accepted, 1) if len(given) == 1 else []
    if close:
        message += f" (did you mean '{close[0]}'?)"
    if accepted:
        message += f"; the fields are {', '.join(accepted)}"
    return ApiError(400, message, UNKNOWN_FIELD)


def _words(name: str) -> str:
    """A parameter's name as words: job_id -> job id."""
    return name.replace("_", " ")


def _describe_validation(err: RequestValidationError, known: list[str]) -> tuple[str, str]:
    """(message, code) of a request the schema refused: a body that is no JSON says so and
    where; fields the endpoint does not take (`known` are those it takes) are an
    UNKNOWN_FIELD; a wrong value of a rename option is an INVALID_OPTION naming the field and
    the allowed values, as POST /rename's form fields are; a path or query parameter that is
    no number says so in words ("job id must be a whole number")."""
    errors = err.errors()
    bad_json = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if bad_json is not None:
        place = tuple(bad_json.get("loc", ()))
        at = f" (at character {place[-1]})" if place and isinstance(place[-1], int) else ""
        return f"invalid request: the body is not valid JSON{at}", "INVALID_REQUEST"
    extra = [str(e["loc"][-1]) for e in errors
             if e.get("type") == "extra_forbidden" and e.get("loc")]
    if extra:
        unknown = unknown_fields(extra, known)
        return unknown.message, unknown.code
    parts = []
    options = True
    for e in errors[:3]:
        loc_parts = tuple(e.get("loc", ()))
        fields = [str(p) for p in loc_parts if p not in ("body", "query", "header", "path")]
        loc = ".".join(fields)
        options = options and len(fields) == 1 and fields[0] in OPTION_FIELDS
        if e.get("type") == "int_parsing" and len(fields) == 1:
            parts.append(f"{_words(fields[0])} must be a whole number (got {e.get('input')!r})")
        elif e.get("type") == "model_attributes_type" and loc_parts == ("body",):
            parts.append("the body must be a JSON object")
        else:
            parts.append(f"{loc or 'body'}: {e.get('msg', 'invalid')}")
    if options and parts:
        return "invalid option " + "; ".join(parts), "INVALID_OPTION"
    return "invalid request: " + "; ".join(parts), "INVALID_REQUEST"


def _body_fields(request: Request) -> list[str]:
    """The fields of the request's JSON body model (its route's), for naming them."""
    body = getattr(request.scope.get("route"), "body_field", None)
    model = getattr(getattr(body, "field_info", None), "annotation", None)
    fields = getattr(model, "model_fields", None)
    return list(fields) if isinstance(fields, dict) else []


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.code, exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    message, code = _describe_validation(exc, _body_fields(request))
    return error_response(400, message, code)


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    message = {404: "not found", 405: "method not allowed"}.get(status, str(exc.detail))
    return error_response(status, message, None, dict(exc.headers or {}))


def internal_error_body() -> dict[str, Any]:
    return {"error": "internal error: the request could not be processed", "code": "INTERNAL_ERROR"}


def install_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the `ErrorBody` shape."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)


#: headers on every response (OpenAPI description)
RATE_LIMIT_HEADERS: dict[str, Any] = {
    "X-RateLimit-Limit": {"description": "maximum requests in the current window",
                          "schema": {"type": "integer"}},
    "X-RateLimit-Remaining": {"description": "requests left in the current window",
                              "schema": {"type": "integer"}},
    "X-RateLimit-Reset": {"description": "Unix time in milliseconds when the window resets",
                          "schema": {"type": "integer"}},
}
RETRY_AFTER_HEADER: dict[str, Any] = {
    "Retry-After": {"description": "seconds to wait before retrying", "schema": {"type": "integer"}}
}


def error_responses(*statuses: int, ok: bool = True) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries: `ErrorBody` for each status, the rate-limit headers on all
    (and on the 200 when `ok`), Retry-After on 429."""
    out: dict[int | str, dict[str, Any]] = {}
    if ok:
        out[200] = {"headers": RATE_LIMIT_HEADERS}
    for s in statuses:
        headers = {**RATE_LIMIT_HEADERS, **(RETRY_AFTER_HEADER if s == 429 else {})}
        out[s] = {"model": ErrorBody, "description": CODES[s][1], "headers": headers}
    return out
