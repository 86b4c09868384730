"""`/docs`: the Swagger UI served from this server (its files come with the swagger-ui-py
package, Apache-2.0, licence at /docs/assets/LICENSE), so the page works with no internet; and
the bearer security scheme in the OpenAPI document, so its "Authorize" button takes a token."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs/assets"
SCHEME = "bearerAuth"
#: the part of the API that takes a bearer token
PROTECTED_PREFIX = "/api/v1/"


def swagger_ui_files() -> Path:
    """The folder of the Swagger UI distribution shipped by swagger-ui-py (not imported)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is missing (pip install swagger-ui-py)")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


def install_docs(app: FastAPI) -> None:
    """Serve `/docs` and its assets from this server (create the app with docs_url=None)."""
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_files())), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} · reference",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": True},
        )


def add_bearer_scheme(doc: dict[str, Any]) -> None:
    """Declare the bearer scheme and require it on every /api/v1 operation of `doc`."""
    components = doc.setdefault("components", {})
    components.setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http", "scheme": "bearer",
        "description": "an rt_ API token (`renamerd tokens create`, or the Tokens page) or an "
                       "OAuth access token of the configured OpenID Connect provider",
    }
    for path, item in doc.get("paths", {}).items():
        if path.startswith(PROTECTED_PREFIX):
            for operation in item.values():
                if isinstance(operation, dict):
                    operation["security"] = [{SCHEME: []}]
