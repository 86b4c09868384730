"""Rendering pages: the Jinja2 environment (autoescaped), what every template gets, one-time
messages after a redirect (a short-lived cookie), and the error pages."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup, escape

from renamerd.web.security import (
    clear_cookie,
    cookie_name,
    csrf_token,
    remember_pre_token,
    set_cookie,
    signed_in,
)
from renamerd.web.state import web_state

TEMPLATES = Path(__file__).parent / "templates"
FLASH_COOKIE = "renamerd_flash"


def when(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A time as people read it (UTC, to the minute); "never" for None. A format without the
    time of day gets no "UTC"."""
    if value is None:
        return "never"
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    text = value.astimezone(UTC).strftime(fmt)
    return text + " UTC" if "%H" in fmt else text


def short_path(path: str | None, keep: int = 3) -> str:
    """The last `keep` folders of a path ("…/library/2024/invoice"); the whole one if short."""
    if not path:
        return ""
    parts = [p for p in path.split("/") if p]
    return path if len(parts) <= keep else "…/" + "/".join(parts[-keep:])


def path_breaks(path: str | None) -> Markup:
    """`path` escaped, with a break opportunity after each "/": a long path wraps between its
    folders, never inside a folder's name ("…/var/inb" / "ox")."""
    return Markup("/<wbr>").join(escape(part) for part in (path or "").split("/"))


def iso(value: datetime | None) -> str:
    return value.astimezone(UTC).isoformat() if value is not None else ""


#: what each folder strategy does, in words (the API's values stay the option values)
STRATEGY_WORDS = {
    "root": "No folders (all in the target folder)",
    "by_date": "By year",
    "by_issuer": "By issuer",
    "by_type": "By document type",
    "by_date_issuer": "By year, then issuer",
    "by_date_type": "By year, then document type",
    "by_issuer_type": "By issuer, then document type",
    "by_all": "By year, issuer and document type",
    "follow_custom_prompt": "As the instructions say",
}
#: output-language choices that are not languages: both write names in the language detected
#: in the document (English when none is; engine.rename); "source" is only another name for
#: "auto", offered in the lists only when a connection already has it
LANGUAGE_WORDS = {"auto": "The document's own language (auto: detected; English when unknown)",
                  "source": "The document's own language (source: the same as auto)"}


def strategy_words(value: str) -> str:
    """A strategy as people read it ("By year, then issuer"); unknown values as they are."""
    return STRATEGY_WORDS.get(value, value.replace("_", " "))


@functools.cache
def language_words(code: str) -> str:
    """An output-language code as people read it: "Deutsch (de)", "中文 (简体) (zh-Hans)"...
    in English with the code after it, from CLDR through babel."""
    from babel import Locale, UnknownLocaleError

    if code in LANGUAGE_WORDS:
        return LANGUAGE_WORDS[code]
    try:
        name = Locale.parse(code.replace("-", "_")).get_display_name("en")
    except (ValueError, UnknownLocaleError):
        return code
    return f"{name} ({code})" if name else code


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["iso"] = iso
    env.filters["short_path"] = short_path
    env.filters["path_breaks"] = path_breaks
    env.filters["date"] = lambda v: when(v, "%Y-%m-%d") if v else "never"
    env.filters["strategy_words"] = strategy_words
    env.filters["language_words"] = language_words
    return env


ENV = _environment()


def add_template_dir(path: Path) -> None:
    """Let templates of another package (the connections pages) be found too."""
    loader = ENV.loader
    assert isinstance(loader, jinja2.FileSystemLoader)
    if str(path) not in loader.searchpath:
        loader.searchpath.append(str(path))


def render_fragment(request: Request, template: str, **context: Any) -> str:
    """A template rendered to text with the common values (for live updates)."""
    return ENV.get_template(template).render(**_common(request), **context)


def _common(request: Request) -> dict[str, Any]:
    state = web_state(request)
    me = signed_in(request)
    return {
        "request": request, "me": me, "user": me.user if me else None,
        "csrf": csrf_token(request), "path": request.url.path,
        "settings": state.settings, **state.template_globals,
    }


def page(request: Request, template: str, *, status: int = 200, title: str = "",
         **context: Any) -> HTMLResponse:
    """The page `template` with the common values (who is signed in, the CSRF token, the
    current path) and the pending one-time message. Reads the database: call it from a sync
    route (FastAPI runs those in its thread pool)."""
    flash = request.cookies.get(cookie_name(request, FLASH_COOKIE))
    kind, _, text = unquote(flash or "").partition(":")
    html = ENV.get_template(template).render(
        **_common(request), title=title, flash={"kind": kind, "text": text} if text else None,
        **context)
    response = HTMLResponse(html, status_code=status)
    remember_pre_token(request, response)
    if flash:
        clear_cookie(request, response, FLASH_COOKIE)
    return response


def redirect(request: Request, location: str, message: str = "", kind: str = "ok") -> Response:
    """303 to `location` (after a POST), with a one-time message shown on the next page."""
    return with_message(request, RedirectResponse(location, status_code=303), message, kind)


def with_message(request: Request, response: Response, message: str, kind: str = "ok"
                 ) -> Response:
    """`response` with a one-time message (`kind` ok or error) for the next page shown."""
    if message:
        set_cookie(request, response, FLASH_COOKIE, quote(f"{kind}:{message}"[:500]))
    return response


def error_page(request: Request, status: int, message: str, headers: dict[str, str] | None = None,
               *, retry_at: datetime | None = None, retry_minutes: int = 0) -> HTMLResponse:
    """An error as a page (the layout, the status, what to do, and when to retry)."""
    titles = {403: "Not allowed", 404: "Not found", 405: "Not allowed", 429: "Too many attempts"}
    response = page(request, "error.html", status=status, title=titles.get(status, "Error"),
                    status_code=status, message=message, retry_at=retry_at,
                    retry_minutes=retry_minutes)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response
