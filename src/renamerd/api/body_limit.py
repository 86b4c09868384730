"""A cap on request bodies that are not uploads: JSON and form bodies are parsed whole in
memory, so past MAX_BODY_BYTES the client gets 413 before (or instead of) their parsing.

Multipart bodies (uploads) are capped by `limits.max_upload_mb` where they are read.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the largest JSON or form body accepted (a rename-from-url request is a few hundred bytes)
MAX_BODY_BYTES = 1024 * 1024

_BODY = json.dumps({"error": f"request body too large: at most {MAX_BODY_BYTES // 1024} KiB "
                             "for a request that is not an upload",
                    "code": "PAYLOAD_TOO_LARGE"}).encode()


class BodyLimit:
    """ASGI middleware: 413 for a non-multipart body over MAX_BODY_BYTES, told by its
    Content-Length at once, or counted while a chunked one is read (the app then sees the
    client gone and its own response is dropped)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _is_multipart(scope):
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > MAX_BODY_BYTES:
            await _too_large(send)
            return
        received = 0
        refused = False

        async def counted() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    refused = True
                    await _too_large(send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, counted, guarded_send)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


def _is_multipart(scope: Scope) -> bool:
    return (_header(scope, b"content-type") or b"").lower().startswith(b"multipart/")


def _content_length(scope: Scope) -> int | None:
    raw = _header(scope, b"content-length")
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


async def _too_large(send: Send) -> None:
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(_BODY)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": _BODY})
