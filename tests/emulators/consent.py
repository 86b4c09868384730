"""The consent page the provider emulators show for the browser's authorization-code flow: the
app's name, what it asks for, and an **Allow** button (a GET form back to the same address with
`approve=1`, which issues the code and redirects to the app's redirect_uri), as the real pages
do after sign-in."""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import HTMLResponse


def consent_page(request: Request, provider: str, asks: str) -> HTMLResponse:
    fields = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in request.query_params.multi_items() if k != "approve")
    return HTMLResponse(
        f"<!doctype html><html lang=en><head><title>{html.escape(provider)}: allow access?"
        f"</title></head><body><h1>{html.escape(provider)}</h1>"
        f"<p>renamerd wants to {html.escape(asks)}.</p>"
        f'<form method="get" action="{html.escape(request.url.path)}">{fields}'
        '<input type="hidden" name="approve" value="1">'
        '<button type="submit">Allow</button></form></body></html>')


def approved(request: Request) -> bool:
    return request.query_params.get("approve") == "1"
