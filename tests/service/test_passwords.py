"""Web passwords: argon2id hashes, rules, verification of every failing case, re-hashing."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.passwords import (
    AccountDisabled,
    PasswordError,
    Passwords,
    check_rules,
    hash_password,
)
from renamerd.service.user_admin import UserAdmin
from renamerd.storage.database import Database
from renamerd.storage.models import User


@pytest.fixture
def user(db: Database, settings: Settings) -> User:
    return Accounts(db, settings).create_user("Ada@Example.org", "Ada")


def test_a_password_is_stored_as_an_argon2id_hash_and_verified(db: Database, user: User) -> None:
    passwords = Passwords(db)
    passwords.set_password(user.id, "correct horse battery")
    with db.session() as s:
        stored = s.get(User, user.id)
    assert stored is not None and stored.password_hash is not None
    assert stored.password_hash.startswith("$argon2id$")
    assert "correct horse" not in stored.password_hash
    found = passwords.verify("ADA@example.org ", "correct horse battery")
    assert found is not None and found.id == user.id


@pytest.mark.parametrize("email, password", [
    ("ada@example.org", "wrong horse battery"),
    ("nobody@example.org", "correct horse battery"),
    ("not an address", "correct horse battery"),
    ("ada@example.org", ""),
])
def test_wrong_e_mail_or_password_signs_nobody_in(db: Database, user: User, email: str,
                                                  password: str) -> None:
    Passwords(db).set_password(user.id, "correct horse battery")
    assert Passwords(db).verify(email, password) is None


def test_no_password_set_and_disabled_users_cannot_sign_in(db: Database, user: User) -> None:
    passwords = Passwords(db)
    assert passwords.verify("ada@example.org", "anything at all") is None
    passwords.set_password(user.id, "correct horse battery")
    UserAdmin(db).set_disabled("ada@example.org")
    with pytest.raises(AccountDisabled):  # only the right password learns why
        passwords.verify("ada@example.org", "correct horse battery")
    assert passwords.verify("ada@example.org", "a wrong password") is None
    UserAdmin(db).set_disabled("ada@example.org", False)
    assert passwords.verify("ada@example.org", "correct horse battery") is not None


@pytest.mark.parametrize("bad", ["short", " " * 12, "x" * 1025])
def test_password_rules(bad: str) -> None:
    with pytest.raises(PasswordError):
        check_rules(bad)
    with pytest.raises(PasswordError):
        hash_password(bad)


def test_a_hash_with_old_parameters_is_replaced_at_the_next_sign_in(db: Database, user: User) -> None:
    weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash("correct horse battery")
    with db.write_session() as s:
        row = s.get(User, user.id)
        assert row is not None
        row.password_hash = weak
        s.add(row)
    assert Passwords(db).verify("ada@example.org", "correct horse battery") is not None
    with db.session() as s:
        row = s.get(User, user.id)
    assert row is not None and row.password_hash != weak and "m=19456" in (row.password_hash or "")
