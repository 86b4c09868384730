"""The Account page: changing one's own password (the current one first, throttled like
sign-in), every other session ending with the old password."""

from __future__ import annotations

from web.conftest import PASSWORD, Web

NEW = "a new password 2026"


def _change(web: Web, current: str, new: str = NEW, repeat: str | None = None) -> object:
    return web.post("/account/password", {"current": current, "new": new,
                                          "repeat": new if repeat is None else repeat},
                    follow_redirects=False)


def test_the_account_page_shows_who_is_signed_in_and_is_linked_from_every_page(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    assert 'href="/account"' in web.get("/").text
    page = web.get("/account")
    assert page.status_code == 200 and "ada@example.org" in page.text
    assert "Change your password" in page.text


def test_a_password_is_changed_with_the_current_one_and_other_sessions_end(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    elsewhere = web.client.cookies.get("renamerd_session")  # as another device's session
    web.sign_in("ada@example.org")  # this browser's own session
    done = _change(web, PASSWORD)
    assert done.status_code == 303 and done.headers["location"] == "/account"
    assert "Your password is changed" in web.get("/account").text  # still signed in here
    web.client.cookies.set("renamerd_session", elsewhere or "")
    assert web.get("/", follow_redirects=False).status_code == 303  # that one ended
    assert web.sign_in("ada@example.org").status_code == 401  # the old password is gone
    assert web.sign_in("ada@example.org", NEW).status_code == 303


def test_a_wrong_current_password_a_mismatch_or_a_short_one_changes_nothing(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    wrong = _change(web, "not my password")
    assert wrong.status_code == 400 and "current password is wrong" in wrong.text
    differ = _change(web, PASSWORD, NEW, "something else entirely")
    assert differ.status_code == 400 and "differ" in differ.text
    short = _change(web, PASSWORD, "short", "short")
    assert short.status_code == 400 and "at least 8 characters" in short.text
    assert web.sign_in("ada@example.org").status_code == 303  # the old one still works


def test_guessing_the_current_password_is_throttled_like_sign_in(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    for _ in range(10):
        assert _change(web, "guess guess guess").status_code == 400
    refused = _change(web, PASSWORD)
    assert refused.status_code == 429 and "Retry-After" in refused.headers


def test_a_post_without_the_csrf_token_changes_nothing(web: Web) -> None:
    web.user("ada@example.org")
    web.sign_in("ada@example.org")
    refused = web.post("/account/password", {"current": PASSWORD, "new": NEW, "repeat": NEW},
                       csrf=False)
    assert refused.status_code == 403
    assert web.sign_in("ada@example.org").status_code == 303
