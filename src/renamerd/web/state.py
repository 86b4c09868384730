"""What the pages need, built once per app: settings, database and the services on them.

`install` puts one `WebState` on `app.state.web`; pages read it with `web_state(request)` and
call its services, never the database directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from renamerd.config import Settings
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from renamerd.service.invites import Invites
from renamerd.service.job_views import JobViews
from renamerd.service.passwords import Passwords
from renamerd.service.processes import ProcessRegistry
from renamerd.service.sign_in_limits import SignInThrottle
from renamerd.service.user_admin import UserAdmin
from renamerd.service.web_sessions import WebSessions
from renamerd.storage.database import Database


@dataclass
class WebState:
    settings: Settings
    db: Database
    accounts: Accounts
    credits: Credits
    passwords: Passwords
    sessions: WebSessions
    invites: Invites
    throttle: SignInThrottle
    jobs: JobViews
    users: UserAdmin
    processes: ProcessRegistry
    #: the OpenID Connect sign-in client (None while [oauth] has no issuer and client_id)
    oidc: Any = None
    #: extra values for every template (the connections pages add theirs)
    template_globals: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, settings: Settings, db: Database) -> WebState:
        accounts = Accounts(db, settings)
        return cls(
            settings=settings, db=db, accounts=accounts, credits=accounts.credits,
            passwords=Passwords(db), sessions=WebSessions(db, settings.web),
            invites=Invites(db, settings), throttle=SignInThrottle(settings.limits, settings.web),
            jobs=JobViews(db, settings.credits), users=UserAdmin(db),
            processes=ProcessRegistry(db),
        )

    @property
    def secure_cookies(self) -> bool:
        """Whether cookies are marked Secure (server.public_url is https)."""
        return self.settings.server.base_url.startswith("https://")

    def close(self) -> None:
        self.throttle.close()
        if self.oidc is not None:
            self.oidc.close()


def web_state(request: Request) -> WebState:
    state: WebState = request.app.state.web
    return state
