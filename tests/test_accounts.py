from __future__ import annotations

from pathlib import Path

import pytest

from renamerd.service.accounts import (
    TOKEN_LEN,
    AccountError,
    Accounts,
    NotFoundError,
    generate_token,
    hash_token,
    looks_like_token,
)
from renamerd.storage.database import Database


def test_tokens_have_prefix_length_and_checksum() -> None:
    tokens = {generate_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert token.startswith("rt_") and len(token) == TOKEN_LEN >= 3 + 32
        assert looks_like_token(token)
    token = next(iter(tokens))
    flipped = token[:10] + ("a" if token[10] != "a" else "b") + token[11:]
    assert not looks_like_token(flipped)
    assert not looks_like_token(token + "x")
    assert not looks_like_token("rt_" + "!" * 38)


def test_authenticate_and_revoke(db: Database) -> None:
    acc = Accounts(db)
    user = acc.create_user("ada@example.org", "Ada")
    row, token = acc.create_token("ada@example.org", "laptop")
    assert row.token_hash == hash_token(token) and token not in row.token_hash
    assert acc.authenticate(token).id == user.id
    assert acc.list_tokens("ada@example.org")[0].last_used_at is not None
    assert acc.authenticate(generate_token()) is None
    assert acc.authenticate("garbage") is None
    acc.revoke_token(row.id)
    assert acc.authenticate(token) is None
    with pytest.raises(NotFoundError):
        acc.revoke_token("tok_missing")


def test_token_never_stored_in_clear(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    db.upgrade()
    acc = Accounts(db)
    acc.create_user("ada@example.org")
    _, token = acc.create_token("ada@example.org")
    acc.authenticate(token)
    db.dispose()
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert token.encode() not in blob
    assert token[3:].encode() not in blob
    assert hash_token(token).encode() in blob


def test_emails_are_unique_case_insensitively(db: Database) -> None:
    acc = Accounts(db)
    acc.create_user("Ada@Example.org")
    with pytest.raises(AccountError, match="already exists"):
        acc.create_user("ada@example.org")
    assert acc.get_user("ADA@example.org").email == "ada@example.org"
    with pytest.raises(AccountError):
        acc.create_user("not-an-email")
    assert acc.ensure_user("ada@example.org").email == "ada@example.org"
    assert acc.ensure_user("bob@example.org").email == "bob@example.org"


def test_a_user_is_in_at_most_one_team(db: Database) -> None:
    acc = Accounts(db)
    ada = acc.create_user("ada@example.org", "Ada")
    acc.create_user("bob@example.org", "Bob")
    acc.create_team("Ops")
    acc.create_team("Dev")
    with pytest.raises(AccountError):
        acc.create_team("Ops")
    view = acc.add_member("Ops", "ada@example.org")
    assert [m.email for m in view.members] == ["ada@example.org"]
    acc.add_member("Ops", "ada@example.org")  # idempotent
    with pytest.raises(AccountError, match="already in team"):
        acc.add_member("Dev", "ada@example.org")
    acc.add_member("Ops", "bob@example.org")
    assert [m.email for m in acc.team_of(ada.id).members] == ["ada@example.org", "bob@example.org"]
    acc.remove_member("Ops", "ada@example.org")
    assert acc.team_of(ada.id) is None
    acc.add_member("Dev", "ada@example.org")
    assert acc.team_of(ada.id).team.name == "Dev"
