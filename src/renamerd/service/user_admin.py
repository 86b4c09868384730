"""What an admin changes about a user: the admin flag, disabled or enabled.

A disabled user cannot sign in (password, invitation, OpenID Connect), their web sessions end
at once, and their API tokens and OAuth access tokens are refused (see `Accounts.authenticate`
and the API's token check). Enabling gives the same tokens back; sessions stay ended.
"""

from __future__ import annotations

from sqlmodel import select

from renamerd.service.accounts import NotFoundError, normalize_email
from renamerd.service.web_sessions import WebSessions
from renamerd.storage.database import Database
from renamerd.storage.models import User


class UserAdmin:
    """Admin operations on users of one database. Each method is safe to repeat."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _change(self, email: str, **values: object) -> User:
        email = normalize_email(email)
        with self.db.write_session() as s:
            user = s.exec(select(User).where(User.email == email)).first()
            if user is None:
                raise NotFoundError(f"no user with e-mail {email}")
            for key, value in values.items():
                setattr(user, key, value)
            s.add(user)
            return user

    def set_admin(self, email: str, on: bool = True) -> User:
        """Give (or take, `on=False`) the admin flag. Raises NotFoundError."""
        return self._change(email, is_admin=on)

    def set_disabled(self, email: str, disabled: bool = True) -> User:
        """Disable (ending every web session of the user) or enable. Raises NotFoundError."""
        user = self._change(email, disabled=disabled)
        if disabled:
            WebSessions(self.db).end_all(user.id)
        return user
