"""Tokens, Team and Admin pages without a browser."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from renamerd.service.connections import Connections, Fields
from renamerd.service.processes import ProcessRegistry
from renamerd.storage.models import ApiToken, utcnow
from web.conftest import Web


def test_tokens_create_shown_once_and_revoke(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    page = web.get("/tokens")
    assert '<label for="token-label">Label</label>' in page.text and ">Create token</button>" in page.text
    created = web.post("/tokens", {"label": "scanner script"}, follow_redirects=False)
    assert created.status_code == 303 and created.headers["location"] == "/tokens"
    shown = web.get("/tokens")
    token = re.search(r'<code id="new-token">(rt_\w+)</code>', shown.text)
    assert token, shown.text
    assert web.accounts.authenticate(token.group(1)) is not None
    again = web.get("/tokens").text
    assert token.group(1) not in again and token.group(1)[:7] in again and "scanner script" in again
    token_id = re.search(r'action="/tokens/(tok_\w+)/revoke"', again)
    assert token_id and again.count(">Revoke</button>") == 1
    revoked = web.post(f"/tokens/{token_id.group(1)}/revoke", follow_redirects=True)
    assert "is revoked" in revoked.text and ">Revoke</button>" not in revoked.text
    assert web.accounts.authenticate(token.group(1)) is None
    assert web.post("/tokens", {"label": "x" * 201}).status_code == 400


def _row_of(page: str, token_id: str) -> str:
    found = re.search(rf'<tr id="token-{token_id}"[^>]*>.*?</tr>', page, re.S)
    assert found, page
    return found.group(0)


def test_tokens_show_when_they_expire_and_which_have_expired(web: Web) -> None:
    """Each token's expiry (or "never"); an expired one is marked expired (it no longer
    works, as `renamerd tokens list` says), listed after the live ones, with nothing to revoke;
    a new token's box says until when it works."""
    web.user("ada@example.org")
    forever, _ = web.accounts.create_token("ada@example.org", "forever")
    month, _ = web.accounts.create_token("ada@example.org", "a month", timedelta(days=30))
    old, old_token = web.accounts.create_token("ada@example.org", "old laptop",
                                               timedelta(days=1))
    with web.db.write_session() as s:
        row = s.get(ApiToken, old.id)
        assert row is not None
        row.expires_at = utcnow() - timedelta(days=2)
    assert web.accounts.authenticate(old_token) is None
    web.sign_in("ada@example.org")
    page = web.get("/tokens").text
    assert "<th scope=\"col\">Expires</th>" in page
    assert month.expires_at is not None
    assert f"{month.expires_at:%Y-%m-%d}" in _row_of(page, month.id)
    assert "never" in _row_of(page, forever.id) and "expired" not in _row_of(page, forever.id)
    expired = _row_of(page, old.id)
    assert 'class="muted"' in expired and ">expired</span>" in expired
    assert "Revoke" not in expired
    assert page.index(f'id="token-{old.id}"') > page.index(f'id="token-{forever.id}"')
    assert page.count(">Revoke</button>") == 2


def test_a_new_token_says_until_when_it_works(make_web: Callable[..., Web]) -> None:
    web = make_web(tokens={"max_lifetime_days": 90})
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    web.post("/tokens", {"label": "ninety days"}, follow_redirects=False)
    shown = web.get("/tokens").text
    until = f"{utcnow() + timedelta(days=90):%Y-%m-%d}"
    assert re.search(rf'<section class="secret".*works until {until}.*</section>', shown, re.S)


def test_another_users_token_is_404_and_stays_valid(web: Web) -> None:
    web.user("ada@example.org")
    web.user("eve@example.org")
    row, token = web.accounts.create_token("ada@example.org", "ada's")
    web.sign_in("eve@example.org")
    assert "ada&#39;s" not in web.get("/tokens").text
    r = web.post(f"/tokens/{row.id}/revoke")
    assert r.status_code == 404
    assert web.accounts.authenticate(token) is not None


def test_team_page(web: Web) -> None:
    web.user("ada@example.org")
    web.user("bob@example.org")
    web.sign_in("ada@example.org")
    assert "not in a team" in web.get("/team").text
    web.accounts.create_team("Accounting")
    web.accounts.add_member("Accounting", "ada@example.org")
    web.accounts.add_member("Accounting", "bob@example.org")
    page = web.get("/team").text
    assert "Accounting" in page and "bob@example.org" in page and "you</span>" in page


def test_admin_page_is_for_admins_and_does_what_it_says(web: Web) -> None:
    web.user("ada@example.org")
    root = web.user("root@example.org", admin=True)
    web.sign_in("ada@example.org")
    assert 'href="/admin"' not in web.get("/").text
    assert web.get("/admin").status_code == 403
    assert web.post("/admin/invite", {"email": "x@example.org"}).status_code == 403
    web.sign_in("root@example.org")
    assert 'href="/admin"' in web.get("/").text
    ProcessRegistry(web.db).beat("host:1:abc", started_at=utcnow(), workers=2, polling=True)
    page = web.get("/admin").text
    assert "host:1:abc" in page and "Workers alive" in page
    invited = web.post("/admin/invite", {"email": "new@example.org"})
    link = re.search(r'<code id="invite-link">(http://127\.0\.0\.1:8080/invite/inv_[\w-]+)</code>',
                     invited.text)
    assert link, invited.text[-2000:]
    ada = web.accounts.get_user("ada@example.org")
    web.post(f"/admin/users/{ada.id}/admin", {"on": "1"})
    assert web.accounts.get_user("ada@example.org").is_admin
    web.post(f"/admin/users/{ada.id}/disable")
    assert web.accounts.get_user("ada@example.org").disabled
    web.post(f"/admin/users/{ada.id}/enable")
    assert not web.accounts.get_user("ada@example.org").disabled
    refused = web.post(f"/admin/users/{root.id}/disable", follow_redirects=True)
    assert "cannot disable yourself" in refused.text
    before = web.accounts.credits.balance(ada.id)
    granted = web.post("/admin/credits", {"user_id": ada.id, "amount": "25", "reason": "pilot"},
                       follow_redirects=True)
    assert "Granted 25 credits to ada@example.org" in granted.text
    assert web.accounts.credits.balance(ada.id) == before + 25
    bad = web.post("/admin/credits", {"user_id": ada.id, "amount": "-3"}, follow_redirects=True)
    assert "No credits granted" in bad.text
    assert web.post("/admin/users/usr_nobody/disable").status_code == 404


def test_admin_deducts_credits_and_deletes_a_user_after_confirming(web: Web) -> None:
    ada = web.user("ada@example.org")
    root = web.user("root@example.org", admin=True)
    web.sign_in("root@example.org")
    page = web.get("/admin").text
    assert "Deduct credits" in page and f"/admin/users/{ada.id}/delete" in page
    taken = web.post("/admin/credits/deduct", {"user_id": ada.id, "amount": "5",
                                               "reason": "purchase refunded"},
                     follow_redirects=True)
    assert "Deducted 5 credits from ada@example.org; 45 left" in taken.text
    too_many = web.post("/admin/credits/deduct", {"user_id": ada.id, "amount": "999",
                                                  "reason": "x"}, follow_redirects=True)
    assert "No credits deducted" in too_many.text and web.accounts.credits.balance(ada.id) == 45
    no_reason = web.post("/admin/credits/deduct", {"user_id": ada.id, "amount": "1",
                                                   "reason": " "}, follow_redirects=True)
    assert "needs a reason" in no_reason.text
    confirm = web.get(f"/admin/users/{ada.id}/delete")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.text
    assert web.post(f"/admin/users/{ada.id}/delete", csrf=False).status_code == 403
    assert web.accounts.get_user("ada@example.org").email == "ada@example.org"
    done = web.post(f"/admin/users/{ada.id}/delete", follow_redirects=True)
    assert "ada@example.org is deleted" in done.text
    assert "ada@example.org" not in web.get("/admin").text
    refused = web.post(f"/admin/users/{root.id}/delete", follow_redirects=True)
    assert "cannot delete yourself" in refused.text


def test_the_admin_sees_every_users_connections(make_web: Callable[..., Web]) -> None:
    """A stranger's report: a user's watch of /etc was invisible to the admin. The Admin page
    lists every connection with its owner and state, also one never signed in."""
    web = make_web(providers={"gdrive": {"client_id": "c", "client_secret": "s"}})
    bob = web.user("bob@example.org")
    row = Connections(web.db, web.settings).create(bob.id, "gdrive",
                                                   Fields.check({"watch": "/Scans"}))
    web.user("root@example.org", admin=True)
    web.sign_in("root@example.org")
    table = web.get("/admin").text.split('id="all-connections"', 1)[1].split("</table>")[0]
    assert row.name in table and "bob@example.org" in table and "Scans" in table
    assert "not signed in yet" in table
