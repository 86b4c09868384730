"""Fixtures for the API tests: an app on the parametrized database, a user with a token."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from renamerd.api.app import create_app
from renamerd.config import Settings
from renamerd.engine.types import RenameOptions, RenameResult
from renamerd.service.accounts import Accounts
from renamerd.storage.database import Database


def engine_available() -> bool:
    import renamerd.engine

    return callable(getattr(renamerd.engine, "rename", None))


needs_engine = pytest.mark.skipif(
    not engine_available(), reason="renamerd.engine.rename has not landed yet"
)


@dataclass
class RecordingEngine:
    """A fake engine for API-flow tests: records what the API passed and answers from it, or
    raises `fail` (an exception instance) to exercise the error paths."""

    fail: BaseException | None = None
    calls: list[tuple[str, RenameOptions]] = field(default_factory=list)
    gate: threading.Event | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, data: bytes, filename: str, options: RenameOptions, config: Any) -> RenameResult:
        with self.lock:
            self.calls.append((filename, options))
        if self.gate is not None:
            self.gate.wait(10)
        if self.fail is not None:
            raise self.fail
        return RenameResult(
            original_filename=filename,
            suggested_filename="2024-03-01_ACME-GmbH_RE-1001.pdf",
            extracted_info={"date": "2024-03-01", "issuer": "ACME GmbH",
                            "invoice_number": "RE-1001", "document_type": "invoice"},
            folder_path="2024/ACME GmbH",
            organization_strategy=options.strategy,
            template_used=options.template_mode,
            confidence=0.9,
        )


@dataclass
class Api:
    client: TestClient
    settings: Settings
    db: Database
    accounts: Accounts
    token: str
    user_id: str
    engine: RecordingEngine

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def balance(self) -> int:
        return self.accounts.credits.balance(self.user_id)


MakeApi = Callable[..., Api]


@pytest.fixture
def make_api(settings: Settings, db: Database) -> Iterator[MakeApi]:
    """Build an app (optionally with changed settings sections) and a user with a token."""
    clients: list[TestClient] = []

    def make(*, engine: Any = "fake", limits: dict[str, Any] | None = None,
             credits: dict[str, Any] | None = None, fetch: dict[str, Any] | None = None,
             oauth: dict[str, Any] | None = None, **app_kwargs: Any) -> Api:
        data = settings.model_dump()
        data.pop("source_file", None)
        sections = (("limits", limits), ("credits", credits), ("fetch", fetch), ("oauth", oauth))
        for section, values in sections:
            data[section].update(values or {})
        s = Settings(**data)
        accounts = Accounts(db, s)
        n = len(clients)
        user = accounts.create_user(f"user{n}@example.org", f"User {n}")
        _, token = accounts.create_token(user.email)
        recorder = RecordingEngine()
        rename_fn = recorder if engine == "fake" else engine
        app = create_app(s, db, rename_fn=rename_fn, **app_kwargs)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return Api(client, s, db, accounts, token, user.id, recorder)

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def api(make_api: MakeApi) -> Api:
    return make_api()


@pytest.fixture(scope="session")
def pdf_bytes() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf([
        "ACME GmbH", "Musterstrasse 1, 10115 Berlin", "", "Invoice", "Invoice number: RE-1001",
        "Invoice date: 01.03.2024", "Total: 119,00 EUR",
    ])


def upload(pdf: bytes, name: str = "scan.pdf", ctype: str = "application/pdf") -> dict[str, Any]:
    return {"file": (name, pdf, ctype)}
