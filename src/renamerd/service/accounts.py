"""Users, teams and API tokens.

API tokens look like ``rt_`` + 32 random base62 characters + a 6-character base62 CRC32
checksum of those 32. The checksum lets malformed or mistyped tokens be refused without a
database look-up (and lets secret scanners recognise them). Only the SHA-256 of the whole token is
stored; the token itself is shown once, at creation, and never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, or_
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from renamerd.config import Settings
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import ApiToken, Team, TeamMember, User, utcnow

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
TOKEN_PREFIX = "rt_"  # noqa: S105  (a prefix, not a secret)
TOKEN_RANDOM_LEN = 32
TOKEN_CHECK_LEN = 6
TOKEN_LEN = len(TOKEN_PREFIX) + TOKEN_RANDOM_LEN + TOKEN_CHECK_LEN
#: last_used_at is written at most this often per token (saves a write per request)
LAST_USED_GRANULARITY = timedelta(seconds=60)
_TOKEN_USER = (
    select(User.id, User.email, User.name, User.created_at, User.disabled,  # type: ignore[call-overload]
           User.is_admin, col(ApiToken.id).label("token_id"), ApiToken.last_used_at)
    .join(ApiToken, col(ApiToken.user_id) == col(User.id))
    .where(col(ApiToken.token_hash) == bindparam("digest"), col(ApiToken.revoked_at).is_(None),
           col(User.disabled).is_(False),
           or_(col(ApiToken.expires_at).is_(None), col(ApiToken.expires_at) > bindparam("now")))
)


class AccountError(Exception):
    """A one-line, user-facing problem with an account operation."""


class NotFoundError(AccountError):
    pass


def normalize_email(email: str) -> str:
    email = email.strip()
    if email.count("@") != 1 or email.startswith("@") or email.endswith("@") or " " in email:
        raise AccountError(f"{email!r} is not an e-mail address")
    # Local parts are case-sensitive in theory only; one person, one account.
    return email.lower()


def _base62(n: int, width: int) -> str:
    out = []
    for _ in range(width):
        n, r = divmod(n, 62)
        out.append(BASE62[r])
    return "".join(reversed(out))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), TOKEN_CHECK_LEN)


def generate_token() -> str:
    body = "".join(secrets.choice(BASE62) for _ in range(TOKEN_RANDOM_LEN))
    return TOKEN_PREFIX + body + _checksum(body)


def looks_like_token(token: str) -> bool:
    """Shape and checksum check, without the database."""
    if len(token) != TOKEN_LEN or not token.startswith(TOKEN_PREFIX):
        return False
    body = token[len(TOKEN_PREFIX) : len(TOKEN_PREFIX) + TOKEN_RANDOM_LEN]
    check = token[len(TOKEN_PREFIX) + TOKEN_RANDOM_LEN :]
    if any(c not in BASE62 for c in body + check):
        return False
    return hmac.compare_digest(_checksum(body), check)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class TeamView:
    team: Team
    members: list[User]


class Accounts:
    """Account operations on one database. Every method opens and commits its own transaction."""

    def __init__(self, db: Database, settings: Settings | None = None) -> None:
        self.db = db
        self.settings = settings or Settings()
        self.credits = Credits(db, self.settings.credits)

    # -- users -----------------------------------------------------------------------------

    def create_user(self, email: str, name: str = "") -> User:
        """Create a user and grant the signup credits. Raises AccountError if the e-mail exists."""
        email = normalize_email(email)
        try:
            with self.db.write_session() as s:
                if self._user_by_email(s, email) is not None:
                    raise AccountError(f"a user with e-mail {email} already exists")
                user = User(email=email, name=name.strip())
                s.add(user)
                s.flush()
                if self.settings.credits.enabled and self.settings.credits.signup_grant > 0:
                    self.credits.grant(
                        user.id, self.settings.credits.signup_grant, source="signup",
                        reason="signup", session=s,
                    )
                return user
        except IntegrityError as err:  # a concurrent create of the same e-mail
            raise AccountError(f"a user with e-mail {email} already exists") from err

    def ensure_user(self, email: str, name: str = "") -> User:
        """The user with `email`, created (with the signup grant) when missing. Safe to repeat."""
        try:
            return self.get_user(email)
        except NotFoundError:
            try:
                return self.create_user(email, name)
            except AccountError:
                return self.get_user(email)

    def get_user(self, email: str) -> User:
        email = normalize_email(email)
        with self.db.session() as s:
            user = self._user_by_email(s, email)
        if user is None:
            raise NotFoundError(f"no user with e-mail {email}")
        return user

    def get_user_by_id(self, user_id: str) -> User | None:
        with self.db.session() as s:
            return s.get(User, user_id)

    def list_users(self) -> list[User]:
        """Every user but the tombstones of deleted ones, oldest first."""
        with self.db.session() as s:
            return list(s.exec(select(User).where(~col(User.email).endswith("@deleted.invalid"))
                               .order_by(col(User.created_at), col(User.email))))

    @staticmethod
    def _user_by_email(s: Session, email: str) -> User | None:
        return s.exec(select(User).where(User.email == email)).first()

    # -- tokens ----------------------------------------------------------------------------

    def create_token(self, email: str, label: str = "", expires_in: timedelta | None = None
                     ) -> tuple[ApiToken, str]:
        """A new token for the user: (stored row, the token text). The text is not kept.

        It expires `expires_in` from now; without it, after `tokens.max_lifetime_days` when that
        is set (else never). Raises AccountError when `expires_in` is not positive or exceeds
        the maximum lifetime, NotFoundError for an unknown user."""
        now = utcnow()
        lifetime = self.token_lifetime(expires_in)
        user = self.get_user(email)
        token = generate_token()
        row = ApiToken(
            user_id=user.id, label=label.strip(), token_hash=hash_token(token),
            hint=token[:7], created_at=now,
            expires_at=now + lifetime if lifetime is not None else None,
        )
        with self.db.write_session() as s:
            s.add(row)
        return row, token

    def token_lifetime(self, expires_in: timedelta | None) -> timedelta | None:
        """The lifetime a new token gets for a requested `expires_in` (None: the maximum, or
        unlimited when there is none). Raises AccountError naming the limit."""
        max_days = self.settings.tokens.max_lifetime_days
        longest = timedelta(days=max_days) if max_days else None
        if expires_in is None:
            return longest
        if expires_in <= timedelta(0):
            raise AccountError("a token's lifetime must be positive")
        if longest is not None and expires_in > longest:
            raise AccountError(
                f"tokens live at most {max_days} days here (tokens.max_lifetime_days); "
                f"ask for {max_days}d or less")
        return expires_in

    def list_tokens(self, email: str) -> list[ApiToken]:
        user = self.get_user(email)
        with self.db.session() as s:
            return list(
                s.exec(
                    select(ApiToken)
                    .where(ApiToken.user_id == user.id)
                    .order_by(col(ApiToken.created_at))
                )
            )

    def token_of(self, user_id: str, token: str) -> ApiToken | None:
        """The user's live token row for the token text `token`, or None. Read-only."""
        if not looks_like_token(token):
            return None
        with self.db.session() as s:
            row = s.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
        if row is None or row.user_id != user_id or row.revoked_at is not None:
            return None
        return row

    def revoke_token(self, token_id: str, owner_id: str | None = None) -> ApiToken:
        """Revoke by id (only a token of `owner_id`, when given: another user's token is
        NotFoundError, like a missing one). Idempotent: revoking twice keeps the first time."""
        with self.db.write_session() as s:
            row = s.get(ApiToken, token_id)
            if row is None or (owner_id is not None and row.user_id != owner_id):
                raise NotFoundError(f"no token with id {token_id}")
            if row.revoked_at is None:
                row.revoked_at = utcnow()
                s.add(row)
            return row

    def authenticate(self, token: str, now: datetime | None = None) -> User | None:
        """The active user owning `token`, or None (malformed, unknown, revoked, expired,
        disabled).

        Updates the token's last_used_at at most once a minute.
        """
        if not looks_like_token(token):
            return None
        digest = hash_token(token)
        now = now or utcnow()
        # one indexed query (token hash -> live token -> enabled user), no ORM session: it
        # runs on every API request
        with self.db.engine.connect() as conn:
            row = conn.execute(_TOKEN_USER, {"digest": digest, "now": now}).first()
        if row is None:
            return None
        user = User(id=row.id, email=row.email, name=row.name, created_at=row.created_at,
                    disabled=row.disabled, is_admin=row.is_admin)
        stale = row.last_used_at is None or now - row.last_used_at > LAST_USED_GRANULARITY
        token_id = row.token_id
        if stale:
            with self.db.write_session() as s:
                fresh = s.get(ApiToken, token_id)
                if fresh is not None:
                    fresh.last_used_at = now
                    s.add(fresh)
        return user

    def owner_disabled(self, token: str, now: datetime | None = None) -> bool:
        """Whether `token` is a live token (not revoked, not expired) of a disabled user: what
        a refused request is told then is why. Read-only."""
        if not looks_like_token(token):
            return False
        now = now or utcnow()
        with self.db.session() as s:
            found = s.exec(select(User.disabled).join(
                ApiToken, col(ApiToken.user_id) == col(User.id)).where(
                col(ApiToken.token_hash) == hash_token(token), col(ApiToken.revoked_at).is_(None),
                or_(col(ApiToken.expires_at).is_(None), col(ApiToken.expires_at) > now))).first()
        return bool(found)

    # -- teams -----------------------------------------------------------------------------

    def create_team(self, name: str) -> Team:
        name = name.strip()
        if not name:
            raise AccountError("a team needs a name")
        try:
            with self.db.write_session() as s:
                if s.exec(select(Team).where(Team.name == name)).first() is not None:
                    raise AccountError(f"a team named {name!r} already exists")
                team = Team(name=name)
                s.add(team)
                return team
        except IntegrityError as err:
            raise AccountError(f"a team named {name!r} already exists") from err

    def get_team(self, name_or_id: str) -> Team:
        with self.db.session() as s:
            team = s.get(Team, name_or_id) or s.exec(
                select(Team).where(Team.name == name_or_id)
            ).first()
        if team is None:
            raise NotFoundError(f"no team {name_or_id!r}")
        return team

    def list_teams(self) -> list[TeamView]:
        with self.db.session() as s:
            teams = list(s.exec(select(Team).order_by(col(Team.name))))
        return [self._team_view(t) for t in teams]

    def add_member(self, team_name: str, email: str) -> TeamView:
        """Put the user in the team. A user is in at most one team: AccountError otherwise.
        Idempotent for the same team."""
        team = self.get_team(team_name)
        user = self.get_user(email)
        try:
            with self.db.write_session() as s:
                current = s.get(TeamMember, user.id)
                if current is not None and current.team_id != team.id:
                    other = s.get(Team, current.team_id)
                    raise AccountError(
                        f"{user.email} is already in team {other.name if other else current.team_id!r}"
                    )
                if current is None:
                    s.add(TeamMember(user_id=user.id, team_id=team.id))
        except IntegrityError as err:
            raise AccountError(f"{user.email} is already in a team") from err
        return self._team_view(team)

    def remove_member(self, team_name: str, email: str) -> TeamView:
        team = self.get_team(team_name)
        user = self.get_user(email)
        with self.db.write_session() as s:
            current = s.get(TeamMember, user.id)
            if current is None or current.team_id != team.id:
                raise AccountError(f"{user.email} is not in team {team.name!r}")
            s.delete(current)
        return self._team_view(team)

    def team_of(self, user_id: str) -> TeamView | None:
        with self.db.session() as s:
            membership = s.get(TeamMember, user_id)
            team = s.get(Team, membership.team_id) if membership else None
        return self._team_view(team) if team else None

    def _team_view(self, team: Team) -> TeamView:
        with self.db.session() as s:
            members = list(
                s.exec(
                    select(User)
                    .join(TeamMember, col(TeamMember.user_id) == col(User.id))
                    .where(TeamMember.team_id == team.id)
                    .order_by(col(TeamMember.joined_at), col(User.email))
                )
            )
        return TeamView(team=team, members=members)
