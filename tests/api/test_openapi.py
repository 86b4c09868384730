"""/openapi.json describes what the server returns: a seeded, bounded schemathesis run."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette_testclient import TestClient as RequestsTestClient

from api.conftest import RecordingEngine, engine_available
from renamerd.api.app import create_app
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database

schemathesis.experimental.OPEN_API_3_1.enable()  # FastAPI writes OpenAPI 3.1


def _install_many_more_shim() -> None:
    """hypothesis-jsonschema 0.23.1 (the latest) calls `many.more()`, which Hypothesis 6.170
    replaced by iteration; give `many` a `more()` on top of the new protocol."""
    from hypothesis.internal.conjecture import utils as cu

    if hasattr(cu.many, "more"):
        return

    def more(self: cu.many) -> bool:
        if getattr(self, "_shim_iter", None) is None:
            self.__enter__()
            self._shim_iter = iter(self)
        try:
            next(self._shim_iter)
            return True
        except StopIteration:
            self.__exit__(None)
            return False

    cu.many.more = more  # type: ignore[attr-defined]


_install_many_more_shim()

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

CHECKS = (not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance)


def no_dns(host: str, port: int) -> list[str]:
    raise socket.gaierror("tests resolve nothing")


@pytest.fixture
def app_and_token(tmp_path: Path):
    s = Settings(database={"url": f"sqlite:///{tmp_path / 'api.db'}"},
                 limits={"burst_per_minute": 100000, "max_upload_mb": 1})
    db = Database(s.database.url)
    db.upgrade()
    accounts = Accounts(db, s)
    accounts.create_user("fuzz@example.org", "Fuzz")
    _, token = accounts.create_token("fuzz@example.org")
    engine = None if engine_available() else RecordingEngine()
    app = create_app(s, db, resolver=no_dns, rename_fn=engine)
    yield app, token
    db.dispose()


@pytest.fixture
def api_schema(app_and_token):
    app, _token = app_and_token
    return schemathesis.from_dict(app.openapi(), app=app)


schema = schemathesis.from_pytest_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, derandomize=True, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case, app_and_token) -> None:
    app, token = app_and_token
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    if case.path == "/api/v1/rename" and isinstance(case.body, dict) and "file" in case.body:
        # schemathesis sends file parts without filename and type, which this API refuses (400,
        # per DESIGN.md); send the generated fields as a well-formed upload instead, and every
        # other time a real PDF, so that the success path is checked against the schema too.
        content = case.body["file"]
        content = content if isinstance(content, bytes) else str(content).encode()
        if len(content) % 2 == 0:
            content = PDF
        fields = {k: str(v) for k, v in case.body.items() if k != "file"}
        response = RequestsTestClient(app).post(
            case.formatted_path, headers=case.headers, data=fields,
            files={"file": ("document.pdf", content, "application/pdf")},
        )
    else:
        response = case.call_asgi(app=app)
    case.validate_response(response, checks=CHECKS)


def test_schema_documents_options_defaults_and_errors(app_and_token) -> None:
    app, _ = app_and_token
    doc = TestClient(app).get("/openapi.json").json()
    rename = doc["paths"]["/api/v1/rename"]["post"]
    props = rename["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert props["strategy"]["default"] == "root" and "by_all" in props["strategy"]["enum"]
    assert props["language"]["default"] == "auto" and "pt-BR" in props["language"]["enum"]
    assert props["templateMode"]["enum"] == ["auto", "predefined", "custom"]
    assert props["templateId"]["enum"] == ["standard"]
    assert set(rename["responses"]) == {"200", "400", "401", "402", "404", "413", "415", "429",
                                        "500", "502"}
    assert "Retry-After" in rename["responses"]["429"]["headers"]
    body = doc["paths"]["/api/v1/rename-from-url"]["post"]["requestBody"]["content"]
    ref = body["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert doc["components"]["schemas"][ref]["required"] == ["url"]
    team = doc["paths"]["/api/v1/team"]["get"]["responses"]["200"]["content"]["application/json"]
    assert {"type": "null"} in team["schema"]["anyOf"]
