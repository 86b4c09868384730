"""Tokens expire: `expires_in`, the configured maximum lifetime, and the API's 401 afterwards."""

from __future__ import annotations

from datetime import timedelta

import pytest

from api.conftest import Api
from api.test_account import assert_error
from renamerd.config import Settings
from renamerd.service.accounts import AccountError, Accounts
from renamerd.storage.database import Database
from renamerd.storage.models import ApiToken, utcnow


def test_an_expired_token_is_refused_like_a_revoked_one(api: Api) -> None:
    row, token = api.accounts.create_token("user0@example.org", "short", timedelta(hours=1))
    headers = {"Authorization": f"Bearer {token}"}
    assert api.client.get("/api/v1/user", headers=headers).status_code == 200
    with api.db.write_session() as s:
        stored = s.get(ApiToken, row.id)
        assert stored is not None
        stored.expires_at = utcnow() - timedelta(seconds=1)
        s.add(stored)
    r = api.client.get("/api/v1/user", headers=headers)
    assert_error(r, 401, "UNAUTHORIZED")
    assert api.client.get("/api/v1/user", headers=api.auth).status_code == 200  # others live on


def test_expiry_and_the_maximum_lifetime(db: Database) -> None:
    accounts = Accounts(db, Settings(tokens={"max_lifetime_days": 90}))
    accounts.create_user("ada@example.org")
    before = utcnow()
    row, token = accounts.create_token("ada@example.org")  # no --expires-in: the maximum
    assert row.expires_at is not None
    assert timedelta(days=90) <= row.expires_at - before < timedelta(days=90, minutes=1)
    row, _ = accounts.create_token("ada@example.org", expires_in=timedelta(hours=12))
    assert row.expires_at is not None and row.expires_at - before < timedelta(hours=12, minutes=1)
    with pytest.raises(AccountError, match="at most 90 days"):
        accounts.create_token("ada@example.org", expires_in=timedelta(days=91))
    assert accounts.authenticate(token) is not None
    assert accounts.authenticate(token, now=before + timedelta(days=91)) is None

    unlimited = Accounts(db, Settings())
    row, _ = unlimited.create_token("ada@example.org")
    assert row.expires_at is None
