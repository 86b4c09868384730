"""The Admin page in a real browser: unlock a user locked out of sign-in, disable and enable a
user, deduct credits with a reason, delete a user after the confirmation step; and the Try it
page. Saves var/screenshots/admin.png, admin-sign-in-locked.png and try-it.png."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from web.conftest import PASSWORD, Live, sign_in_page
from web.test_browser import shot

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


def _sign_in_as_bob(page: Any, password: str) -> int:
    """Submit the sign-in form as bob; the answer's status."""
    page.get_by_label("Email").fill("bob@example.org")
    page.get_by_label("Password").fill(password)
    with page.expect_response(lambda r: r.url.endswith("/signin")) as answer:
        page.get_by_role("button", name="Sign in").click()
    status: int = answer.value.status
    return status


def _unlock_bob(live: Live, page: Any, bobs: Any) -> None:
    """Bob locked himself out with ten typos; the admin sees it and unlocks him; his right
    password works at once, in the same browser tab."""
    bobs.goto(live.url + "/signin")
    for _ in range(10):
        assert _sign_in_as_bob(bobs, "a typo a typo") == 401
    assert _sign_in_as_bob(bobs, PASSWORD) == 429
    page.get_by_role("link", name="Admin").click()
    row = page.locator("tbody tr", has_text="bob@example.org")
    expect(row.get_by_text("sign-in locked")).to_be_visible()
    expect(row).to_contain_text("at 127.0.0.1")
    expect(page.locator("tbody tr", has_text="root@example.org").get_by_text(
        "sign-in locked")).to_have_count(0)
    shot(page, "admin-sign-in-locked")
    row.get_by_role("button", name="Unlock sign-in").click()
    expect(page.get_by_text("bob@example.org may sign in again: 10 failed sign-in(s) "
                            "forgotten.")).to_be_visible()
    expect(page.locator("tbody tr", has_text="bob@example.org").get_by_text(
        "sign-in locked")).to_have_count(0)
    bobs.goto(live.url + "/signin")
    assert _sign_in_as_bob(bobs, PASSWORD) == 303
    bobs.wait_for_url(live.url + "/")


def test_the_admin_page_as_an_admin_uses_it(make_live: Callable[..., Live],
                                            new_page: Callable[[], Any]) -> None:
    live = make_live(daemon=False)
    live.user("root@example.org", admin=True)
    bob = live.user("bob@example.org")
    page = sign_in_page(new_page(), live.url, "root@example.org")
    _unlock_bob(live, page, new_page())
    row = page.locator("tbody tr", has_text="bob@example.org")
    row.get_by_role("button", name="Disable").click()
    expect(page.get_by_text("bob@example.org is disabled")).to_be_visible()
    assert Accounts(live.db).get_user("bob@example.org").disabled
    page.locator("tbody tr", has_text="bob@example.org").get_by_role(
        "button", name="Enable").click()
    expect(page.get_by_text("bob@example.org is enabled again")).to_be_visible()

    page.get_by_label("From").select_option(label="bob@example.org")
    page.get_by_label("Credits to deduct").fill("7")
    page.get_by_label("Reason for the deduction").fill("purchase refunded")
    page.get_by_role("button", name="Deduct credits").click()
    expect(page.get_by_text("Deducted 7 credits from bob@example.org; 43 left")).to_be_visible()
    assert Credits(live.db).balance(bob.id) == 43
    shot(page, "admin")
    # on a phone each user is a block: the actions stay on screen, none scrolls sideways
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    delete = page.locator("tbody tr", has_text="bob@example.org").get_by_role("link",
                                                                              name="Delete")
    box = delete.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    shot(page, "mobile-admin")
    page.set_viewport_size({"width": 1280, "height": 800})

    page.locator("tbody tr", has_text="bob@example.org").get_by_role(
        "link", name="Delete").click()
    expect(page.get_by_role("heading", name="Delete bob@example.org?")).to_be_visible()
    page.get_by_role("button", name="Delete bob@example.org").click()
    expect(page.get_by_text("bob@example.org is deleted")).to_be_visible()
    expect(page.locator("tbody tr", has_text="bob@example.org")).to_have_count(0)


def test_try_it_in_the_browser(make_live: Callable[..., Live], new_page: Callable[[], Any],
                               tmp_path: Any) -> None:
    from daemon.e2e import invoice_pdf

    live = make_live(daemon=False)
    live.user("ada@example.org")
    doc = tmp_path / "scan_0001.pdf"
    doc.write_bytes(invoice_pdf(5))
    page = sign_in_page(new_page(), live.url, "ada@example.org")
    page.get_by_role("link", name="Try it").click()
    page.get_by_label("Document").set_input_files(str(doc))
    page.get_by_role("button", name="Try it").click()
    expect(page.locator("#suggested-name")).to_contain_text("INV-10005")
    expect(page.get_by_text("One credit charged; 49 left.")).to_be_visible()
    expect(page.locator("#result")).to_be_focused()  # the result is where the reader is
    shot(page, "try-it")
    # a document over the limit is refused in the browser before it is sent
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4\n" + b" " * (26 * 1024 * 1024))
    page.get_by_label("Document").set_input_files(str(big))
    message = page.get_by_label("Document").evaluate("e => e.validationMessage")
    assert "too large" in message and "25 MB" in message
    assert page.evaluate("document.querySelector('form.stack').checkValidity()") is False


def test_an_invited_user_types_the_password_twice(make_live: Callable[..., Live],
                                                  new_page: Callable[[], Any]) -> None:
    from renamerd.service.invites import Invites

    live = make_live(daemon=False)
    new = live.user("new@example.org", password=None)
    token = Invites(live.db, live.settings).create(new.id)
    page = new_page()
    page.goto(f"{live.url}/invite/{token}")
    page.get_by_label("Password", exact=True).fill("a new good password")
    page.get_by_label("Password again").fill("a new good pasword")
    page.get_by_role("button", name="Set password and sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("The two passwords differ")
    shot(page, "invite-differ")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "mobile-invite-differ")
    page.get_by_label("Password", exact=True).fill("a new good password")
    page.get_by_label("Password again").fill("a new good password")
    page.get_by_role("button", name="Set password and sign in").click()
    expect(page.get_by_text("Your password is set. Welcome!")).to_be_visible()
