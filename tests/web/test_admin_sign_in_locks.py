"""The Admin page's sign-in locks: the users list says who is locked out of sign-in, where
and until when; **Unlock sign-in** lifts it at once (in memory and through Redis); only an
admin may, with the CSRF token."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import pytest

from renamerd.service.sign_in_limits import SPREAD, SignInThrottle
from web.conftest import Web


def _row(page: str, user_id: str) -> str:
    found = re.search(rf'<tr id="user-{user_id}">.*?</tr>', page, re.DOTALL)
    assert found, f"no row of {user_id} on the page"
    return found.group(0)


def _throttle(web: Web) -> SignInThrottle:
    throttle: SignInThrottle = web.app.state.web.throttle
    return throttle


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def limits(request: pytest.FixtureRequest) -> dict[str, str]:
    """The [limits] section: the counts in this process's memory, or in Redis."""
    if request.param == "memory":
        return {}
    return {"storage_url": request.getfixturevalue("redis_url")}


def test_an_admin_sees_who_is_locked_out_and_unlocks_them_at_once(
        make_web: Callable[..., Web], limits: dict[str, str],
        caplog: pytest.LogCaptureFixture) -> None:
    web = make_web(limits=limits)
    ada = web.user("ada@example.org")
    root = web.user("root@example.org", admin=True)
    for _ in range(10):
        assert web.sign_in("ada@example.org", "a wrong guess").status_code == 401
    assert web.sign_in("ada@example.org").status_code == 429  # the right password too
    assert web.sign_in("root@example.org").status_code == 303
    page = web.get("/admin").text
    row = _row(page, ada.id)
    assert "sign-in locked" in row and " UTC</time> at testclient" in row
    assert f'action="/admin/users/{ada.id}/unlock"' in row and "Unlock sign-in" in row
    assert "sign-in locked" not in _row(page, root.id)
    with caplog.at_level(logging.INFO, logger="renamerd.web"):
        done = web.post(f"/admin/users/{ada.id}/unlock", follow_redirects=True)
    assert f"sign-in unlocked for user {ada.id} by admin {root.id}: 10 failed" in caplog.text
    assert "ada@example.org may sign in again: 10 failed sign-in(s) forgotten." in done.text
    assert "sign-in locked" not in _row(done.text, ada.id)
    assert web.sign_in("ada@example.org").status_code == 303


def test_an_account_guessed_from_everywhere_says_so(make_web: Callable[..., Web]) -> None:
    web = make_web(web={"sign_in_attempts": 2})
    ada = web.user("ada@example.org")
    web.user("root@example.org", admin=True)
    for i in range(SPREAD * 2):
        _throttle(web).failed("ada@example.org", f"198.51.100.{i}")
    web.sign_in("root@example.org")
    row = _row(web.get("/admin").text, ada.id)
    assert "sign-in locked" in row and ", from every address" in row
    web.post(f"/admin/users/{ada.id}/unlock")
    assert web.sign_in("ada@example.org").status_code == 303


def test_only_an_admin_unlocks_and_only_with_the_csrf_token(web: Web) -> None:
    web.user("ada@example.org")
    bob = web.user("bob@example.org")
    web.user("root@example.org", admin=True)
    for _ in range(10):
        _throttle(web).failed("bob@example.org", "203.0.113.7")
    web.sign_in("ada@example.org")
    assert web.post(f"/admin/users/{bob.id}/unlock").status_code == 403
    web.client.cookies.clear()
    signed_out = web.post(f"/admin/users/{bob.id}/unlock", follow_redirects=False)
    assert signed_out.status_code == 303  # to the sign-in form, as the other admin actions
    assert signed_out.headers["location"].startswith("/signin")
    web.sign_in("root@example.org")
    assert web.post(f"/admin/users/{bob.id}/unlock", csrf=False).status_code == 403
    assert set(_throttle(web).lockouts(["bob@example.org"])) == {"bob@example.org"}
    assert web.post("/admin/users/usr_nobody/unlock").status_code == 404
