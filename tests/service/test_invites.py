"""Invitations: one-time, 7 days, only a hash stored, a new one voids the old."""

from __future__ import annotations

import pytest
from sqlmodel import select

from daemon.fakes import Clock
from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.invites import InviteError, Invites
from renamerd.service.passwords import PasswordError, Passwords
from renamerd.service.user_admin import UserAdmin
from renamerd.storage.database import Database
from renamerd.storage.models import Invitation


def test_an_invitation_sets_the_password_once(db: Database, settings: Settings) -> None:
    user = Accounts(db, settings).create_user("ada@example.org")
    invites = Invites(db, settings)
    token = invites.create(user.id)
    assert invites.link(token) == f"http://127.0.0.1:8080/invite/{token}"
    with db.session() as s:
        stored = list(s.exec(select(Invitation)))
    assert len(stored) == 1 and token not in stored[0].token_hash
    assert invites.user_for(token).id == user.id
    with pytest.raises(PasswordError):
        invites.redeem(token, "short")
    assert invites.redeem(token, "correct horse battery").id == user.id
    assert Passwords(db).verify("ada@example.org", "correct horse battery") is not None
    with pytest.raises(InviteError, match="used already"):
        invites.redeem(token, "another good password")
    assert Passwords(db).verify("ada@example.org", "another good password") is None


def test_invitations_expire_after_seven_days_and_a_new_one_voids_the_old(
        db: Database, settings: Settings) -> None:
    user = Accounts(db, settings).create_user("ada@example.org")
    clock = Clock()
    invites = Invites(db, settings.model_copy(update={"server": settings.server.model_copy(
        update={"public_url": "https://files.example.org/"})}), now=clock)
    old = invites.create(user.id)
    new = invites.create(user.id)
    assert invites.link(new).startswith("https://files.example.org/invite/inv_")
    with pytest.raises(InviteError):
        invites.user_for(old)
    clock.advance(7 * 86400 - 60)
    assert invites.user_for(new).id == user.id
    clock.advance(120)
    with pytest.raises(InviteError, match="expired"):
        invites.user_for(new)
    for bad in ("", "inv_nope", "rt_" + "x" * 40):
        with pytest.raises(InviteError):
            invites.user_for(bad)


def test_a_disabled_user_cannot_use_an_invitation(db: Database, settings: Settings) -> None:
    user = Accounts(db, settings).create_user("ada@example.org")
    token = Invites(db, settings).create(user.id)
    UserAdmin(db).set_disabled("ada@example.org")
    with pytest.raises(InviteError, match="disabled"):
        Invites(db, settings).redeem(token, "correct horse battery")
