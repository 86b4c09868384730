"""Web passwords: argon2id hashes (argon2-cffi), set by an admin or through an invitation.

The parameters are OWASP's first argon2id recommendation (19 MiB, 2 passes, 1 lane): about
0.1-0.2 s a hash on one core, so that a wrong guess costs an attacker as much while a sign-in
stays quick. A hash made with older parameters is replaced at the next successful sign-in.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlmodel import select

from renamerd.service.accounts import AccountError, NotFoundError, normalize_email
from renamerd.storage.database import Database
from renamerd.storage.models import User

HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
MIN_LENGTH = 8
MAX_LENGTH = 1024
#: verified when the e-mail is unknown, so that a wrong e-mail takes as long as a wrong password
_DUMMY_HASH = HASHER.hash("renamerd: no such user")


class PasswordError(AccountError):
    """The password is not acceptable (the message says why)."""


class AccountDisabled(AccountError):
    """The password is right, but the account is disabled (`renamerd users disable`)."""


def check_rules(password: str) -> None:
    """Raise PasswordError unless `password` has MIN_LENGTH..MAX_LENGTH characters and is not
    only blanks."""
    if len(password) < MIN_LENGTH:
        raise PasswordError(f"a password needs at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise PasswordError(f"a password has at most {MAX_LENGTH} characters")
    if not password.strip():
        raise PasswordError("a password cannot be only blanks")


def hash_password(password: str) -> str:
    """The argon2id hash of `password` (after `check_rules`)."""
    check_rules(password)
    return HASHER.hash(password)


def _matches(stored: str | None, password: str) -> bool:
    try:
        return HASHER.verify(stored or _DUMMY_HASH, password) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class Passwords:
    """Setting and checking web passwords on one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def set_password(self, user_id: str, password: str) -> None:
        """Store the hash of `password` for the user. Raises PasswordError, NotFoundError.
        Safe to repeat."""
        digest = hash_password(password)
        with self.db.write_session() as s:
            user = s.get(User, user_id)
            if user is None:
                raise NotFoundError(f"no user with id {user_id}")
            user.password_hash = digest
            s.add(user)

    def verify(self, email: str, password: str) -> User | None:
        """The enabled user with this e-mail and password, or None (unknown e-mail, wrong
        password, no password set). Raises AccountDisabled when the password is right but the
        account is disabled (only then: a wrong password says nothing about the account).
        Takes about as long in every case. Read-only except for re-hashing an outdated hash."""
        try:
            email = normalize_email(email)
        except AccountError:
            _matches(None, password)
            return None
        with self.db.session() as s:
            user = s.exec(select(User).where(User.email == email)).first()
        if not _matches(user.password_hash if user else None, password) or user is None:
            return None
        if user.disabled:
            raise AccountDisabled("this account is disabled")
        if user.password_hash and HASHER.check_needs_rehash(user.password_hash):
            self.set_password(user.id, password)
        return user
