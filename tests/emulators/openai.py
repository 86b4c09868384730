"""A local server speaking the OpenAI chat-completions wire format, for the LLM provider tests.

`OpenAIEmulator(mode=...)` is an ASGI app answering `POST /v1/chat/completions`:

- "good": answers with `answers[schema name]` (a dict, or a callable taking the request body)
  as the JSON content of the first choice, like a model using `response_format` json_schema;
- "nonsense": valid wire format, content that is JSON but wrong (bad date, unknown type, an
  issuer that is not in the document...);
- "not_json": content that is not JSON at all;
- "slow": sleeps `delay` seconds before answering (to trip client timeouts);
- "error": HTTP 500 with an OpenAI-style error body.

Every request body and its headers are kept in `requests` for assertions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

Scope = dict[str, Any]

NONSENSE = {
    "document_fields": {"date": "2024-13-45", "issuer": "Totally Invented Corp",
                        "invoice_number": "XX-NOT-THERE", "document_type": "spaceship",
                        "amount": "lots", "currency": "dollars"},
    "naming_rules": {"fields": ["rm -rf /"], "separator": "/", "case": "wavy",
                     "date_format": "%Y", "conditions": [{"folder": "../../etc"}]},
    "translation": {"text": "../../escape\n"},
}


class OpenAIEmulator:
    def __init__(self, mode: str = "good", *, delay: float = 2.0,
                 answers: dict[str, Any] | None = None) -> None:
        self.mode = mode
        self.delay = delay
        self.answers: dict[str, Any] = answers or {}
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["path"] != "/v1/chat/completions" or scope["method"] != "POST":
            await self._send(send, 404, {"error": {"message": "not found"}})
            return
        try:
            request = json.loads(body)
        except ValueError:
            await self._send(send, 400, {"error": {"message": "bad JSON"}})
            return
        self.requests.append({"body": request, "headers": headers})
        if self.mode == "error":
            await self._send(send, 500, {"error": {"message": "model crashed",
                                                   "type": "server_error"}})
            return
        if self.mode == "slow":
            await asyncio.sleep(self.delay)
        schema = request.get("response_format", {}).get("json_schema", {}).get("name", "")
        if self.mode == "not_json":
            content = "Sure! Here is what I found: the date is probably March."
        elif self.mode == "nonsense":
            content = json.dumps(NONSENSE.get(schema, {"what": "?"}))
        else:
            answer = self.answers.get(schema, {})
            if callable(answer):
                answer = answer(request)
            content = json.dumps(answer)
        await self._send(send, 200, {
            "id": "chatcmpl-emulated", "object": "chat.completion", "created": 0,
            "model": request.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })

    @staticmethod
    async def _send(send: Callable[..., Any], status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})
