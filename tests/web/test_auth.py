"""Signing in and out through the pages: sessions, CSRF, throttling, invitations, cookies."""

from __future__ import annotations

import re
from collections.abc import Callable

from renamerd.service.invites import Invites
from renamerd.service.user_admin import UserAdmin
from web.conftest import HTML, PASSWORD, Web, csrf_of


def test_signed_out_root_leads_to_the_sign_in_form(web: Web) -> None:
    r = web.get("/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/signin"
    form = web.get("/")
    assert form.status_code == 200
    assert '<label for="email">Email</label>' in form.text
    assert '<label for="password">Password</label>' in form.text
    assert ">Sign in</button>" in form.text
    jobs = web.get("/jobs?state=done", follow_redirects=False)
    assert jobs.headers["location"] == "/signin?next=/jobs%3Fstate%3Ddone"


def test_wrong_password_shows_an_error_and_signs_nobody_in(web: Web) -> None:
    web.user("ada@example.org")
    r = web.sign_in("ada@example.org", "not the password")
    assert r.status_code == 401
    assert "Wrong e-mail or password" in r.text
    assert "renamerd_session" not in r.headers.get("set-cookie", "")
    assert web.get("/", follow_redirects=False).status_code == 303
    ok = web.sign_in("ada@example.org")
    assert ok.status_code == 303 and ok.headers["location"] == "/"
    cookie = ok.headers["set-cookie"]
    assert "renamerd_session=" in cookie and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie or "samesite=lax" in cookie.lower()
    assert "Secure" not in cookie  # public_url is http here
    page = web.get("/")
    assert page.status_code == 200 and "Sign out" in page.text and 'href="/jobs"' in page.text


def test_next_is_followed_only_to_local_paths(web: Web) -> None:
    web.user("ada@example.org")
    for target, expected in (("/jobs?state=done", "/jobs?state=done"),
                             ("//evil.example/x", "/"), ("https://evil.example/", "/")):
        web.client.cookies.clear()
        token = csrf_of(web.get("/signin").text)
        r = web.client.post("/signin", data={"email": "ada@example.org", "password": PASSWORD,
                                             "next": target, "csrf_token": token},
                            headers=HTML, follow_redirects=False)
        assert r.headers["location"] == expected


def test_a_post_without_its_csrf_token_is_refused(web: Web) -> None:
    web.user("ada@example.org")
    r = web.client.post("/signin", data={"email": "ada@example.org", "password": PASSWORD},
                        headers=HTML)
    assert r.status_code == 403 and "security token" in r.text
    web.sign_in("ada@example.org")
    for path in ("/signout", "/jobs/1/undo"):
        refused = web.post(path, {"label": "x"}, csrf=False)
        assert refused.status_code == 403, path
        wrong = web.client.post(path, data={"csrf_token": "x" * 43}, headers=HTML)
        assert wrong.status_code == 403, path
    assert web.get("/").status_code == 200  # still signed in: nothing happened
    api = web.client.post("/signout", headers={"accept": "application/json"})
    assert api.status_code == 403 and api.json()["code"] == "CSRF"


def test_sign_out_ends_the_session_on_the_server(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    old = web.client.cookies.get("renamerd_session")
    page = web.get("/")
    # the header's Sign out is a form that posts the session's CSRF token, never a link with it
    form = re.search(r'<form class="signout" method="post" action="/signout">\s*'
                     r'<input type="hidden" name="csrf_token" value="([^"]+)">', page.text)
    assert form and "csrf=" not in page.text
    out = web.client.post("/signout", data={"csrf_token": form.group(1)}, headers=HTML,
                          follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/signin"
    web.client.cookies.clear()
    web.client.cookies.set("renamerd_session", old or "")
    again = web.get("/", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"].startswith("/signin")


def test_a_sign_out_link_asks_first_whatever_its_query(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    token = re.search(r'name="csrf_token" value="([^"]+)"', web.get("/").text)
    assert token
    for link in ("/signout", "/signout?csrf=forged", f"/signout?csrf={token.group(1)}"):
        r = web.get(link)
        assert r.status_code == 200 and "Sign out now" in r.text, link
        assert web.get("/").status_code == 200
    assert web.post("/signout", follow_redirects=False).status_code == 303
    assert web.get("/", follow_redirects=False).status_code == 303


def test_ten_wrong_passwords_then_429_with_when_to_retry(web: Web) -> None:
    web.user("ada@example.org")
    for _ in range(10):
        assert web.sign_in("ada@example.org", "wrong password!").status_code == 401
    r = web.sign_in("ada@example.org")  # even the right one, now
    assert r.status_code == 429
    assert 14 * 60 <= int(r.headers["retry-after"]) <= 15 * 60
    assert "Try again after" in r.text and "UTC" in r.text
    assert web.get("/", follow_redirects=False).status_code == 303


def test_an_invitation_link_sets_a_password_and_signs_in(web: Web) -> None:
    user = web.user("bob@example.org", password=None)
    invites = Invites(web.db, web.settings)
    token = invites.create(user.id)
    form = web.get(f"/invite/{token}")
    assert form.status_code == 200 and "bob@example.org" in form.text
    assert 'for="repeat">Password again</label>' in form.text  # asked twice
    short = web.client.post(f"/invite/{token}", headers=HTML, data={
        "password": "short", "repeat": "short", "csrf_token": csrf_of(form.text)})
    assert short.status_code == 400 and "at least 8" in short.text
    differ = web.client.post(f"/invite/{token}", headers=HTML, data={
        "password": "a new good password", "repeat": "a new good pasword",
        "csrf_token": csrf_of(form.text)})
    assert differ.status_code == 400 and "The two passwords differ" in differ.text
    assert 'action="/invite/' in differ.text  # the form again; the invitation still works
    assert Invites(web.db, web.settings).user_for(token).password_hash is None
    done = web.client.post(f"/invite/{token}", headers=HTML, follow_redirects=False, data={
        "password": "a new good password", "repeat": "a new good password",
        "csrf_token": csrf_of(form.text)})
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert "Your password is set" in web.get("/").text
    web.client.cookies.clear()
    assert web.get(f"/invite/{token}").status_code == 404
    assert web.sign_in("bob@example.org", "a new good password").status_code == 303


def test_a_disabled_user_is_signed_out_and_cannot_sign_in(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    UserAdmin(web.db).set_disabled("ada@example.org")
    assert web.get("/", follow_redirects=False).status_code == 303
    refused = web.sign_in("ada@example.org")
    assert refused.status_code == 401
    # the right password: told why; a wrong one: told nothing about the account
    assert "This account is disabled; ask your admin." in refused.text
    assert "Wrong e-mail or password" not in refused.text
    wrong = web.sign_in("ada@example.org", "not the password at all")
    assert wrong.status_code == 401 and "Wrong e-mail or password" in wrong.text
    assert "disabled" not in wrong.text


def test_https_public_url_makes_cookies_secure(make_web: Callable[..., Web]) -> None:
    web = make_web(server={"public_url": "https://files.example.org"})
    web.client.base_url = "https://127.0.0.1"  # type: ignore[assignment]
    web.user("ada@example.org")
    page = web.get("/signin")
    assert "Secure" in page.headers["set-cookie"]
    assert page.headers["set-cookie"].startswith("__Host-renamerd_pre=")
    r = web.client.post("/signin", headers=HTML, follow_redirects=False, data={
        "email": "ada@example.org", "password": PASSWORD, "csrf_token": csrf_of(page.text)})
    assert r.status_code == 303
    assert "__Host-renamerd_session=" in r.headers["set-cookie"] and "Secure" in r.headers["set-cookie"]


def test_pages_carry_security_headers_and_errors_suit_the_client(web: Web) -> None:
    page = web.get("/signin")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-store"
    missing = web.get("/no/such/page")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")
    api = web.client.get("/api/v1/nothing-here")
    assert api.status_code == 404 and api.json() == {"error": "not found", "code": "NOT_FOUND"}
    assert "content-security-policy" not in api.headers
    css = web.client.get("/static/style.css")
    assert css.status_code == 200 and "text/css" in css.headers["content-type"]


def test_a_form_of_a_tab_signed_out_in_another_says_so(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    token = web.csrf()
    web.post("/signout", follow_redirects=False)  # "another tab": the cookie is gone
    stale = web.client.post("/jobs/1/undo", data={"csrf_token": token}, headers=HTML)
    assert stale.status_code == 403 and "signed out (perhaps in another tab)" in stale.text
    forged = web.client.post("/signin", data={"email": "x@example.org", "password": "x",
                                              "csrf_token": "y" * 43}, headers=HTML)
    assert forged.status_code == 403 and "security token" in forged.text
