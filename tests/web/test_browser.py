"""The web app in a real browser (Debian's Chromium under Playwright), driven as a person does:
sign in, watch a document dropped in the inbox get renamed in Jobs without a reload, Undo it
(and see it stay), Rename again, Retry a failed one, tokens, another user's 404s, CSRF, sign
out, and the 429 after ten wrong passwords. Saves the Jobs page to docs/img/jobs.png
when RENAMERD_UPDATE_DOCS_IMG is set (a suite run leaves the checkout clean)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from daemon.e2e import drop, invoice_pdf
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd_connectors import memory
from web.conftest import PASSWORD, Live, sign_in_page

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def shot(page: Any, name: str) -> None:
    """A full-page screenshot under var/screenshots (to look at when a page changes)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def jobs(live: Live, state: str | None = None) -> list[Any]:
    return J.JobQueue(live.db).find(state=state)


def wait_until(cond: Callable[[], bool], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {what}")
        time.sleep(0.1)


def test_sign_in_rename_live_undo_stays_rename_again(make_live: Callable[..., Live],
                                                     new_page: Callable[[], Any]) -> None:
    live = make_live()
    live.user("ada@example.org")
    page = new_page()
    page.goto(live.url + "/")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Email").fill("ada@example.org")
    page.get_by_label("Password").fill("not my password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong e-mail or password")
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#balance")).to_have_text("50")
    for name in ("Jobs", "Connections", "Tokens"):
        expect(page.get_by_role("link", name=name)).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    shot(page, "overview")

    page.get_by_role("link", name="Jobs").click()
    page.evaluate("window.notReloaded = true")
    drop(live.inbox / "scan_0001.pdf", invoice_pdf(3))
    row = page.locator("tbody tr", has_text="invoice_INV-10003.pdf")
    expect(row).to_be_visible(timeout=60_000)  # no reload: the list updates itself
    assert page.evaluate("window.notReloaded") is True
    expect(row.get_by_role("button", name="Undo")).to_be_visible()
    new_name = row.locator(".name-new").inner_text()
    assert not (live.inbox / "scan_0001.pdf").exists()
    assert [p.name for p in live.library.rglob("*.pdf")] == [new_name]

    row.get_by_role("button", name="Undo").click()
    expect(page.get_by_role("status").first).to_contain_text("Moved back")
    assert (live.inbox / "scan_0001.pdf").exists()
    assert list(live.library.rglob("*.pdf")) == []
    time.sleep(3)  # several polls of the inbox: the file stays, no new job
    assert (live.inbox / "scan_0001.pdf").exists()
    assert [j.state for j in jobs(live)] == [J.UNDONE]
    undone = page.locator("tbody tr", has_text="scan_0001.pdf")
    expect(undone.get_by_role("button", name="Rename again")).to_be_visible()

    undone.get_by_role("button", name="Rename again").click()
    expect(page.locator("tbody tr", has_text=new_name).get_by_role("button", name="Undo")
           ).to_be_visible(timeout=60_000)
    assert [p.name for p in live.library.rglob("*.pdf")] == [new_name]
    assert len(jobs(live)) == 1


def test_retry_of_a_failed_job(make_live: Callable[..., Live], new_page: Callable[[], Any],
                               tmp_path: Path) -> None:
    live = make_live(daemon_overrides={"max_attempts": 1})
    live.user("ada@example.org")
    shutil.rmtree(live.library)
    live.library.write_text("a file where the target folder should be")
    page = sign_in_page(new_page(), live.url, "ada@example.org")
    page.get_by_role("link", name="Jobs").click()
    drop(live.inbox / "bill.pdf", invoice_pdf(5))
    row = page.locator("tbody tr", has_text="bill.pdf")
    expect(row.get_by_role("button", name="Retry")).to_be_visible(timeout=60_000)
    expect(row).to_contain_text("failed")
    live.library.unlink()
    live.library.mkdir()
    row.get_by_role("button", name="Retry").click()
    expect(page.locator("tbody tr", has_text="INV-10005").get_by_role("button", name="Undo")
           ).to_be_visible(timeout=60_000)
    assert len(list(live.library.rglob("*.pdf"))) == 1


def test_tokens_shown_once_and_revoked(signed_in_page: tuple[Live, Any]) -> None:
    live, page = signed_in_page
    page.get_by_role("link", name="Tokens").click()
    page.get_by_label("Label").fill("scanner script")
    page.get_by_role("button", name="Create token").click()
    token = page.locator("#new-token").inner_text()
    assert token.startswith("rt_")
    expect(page.get_by_role("button", name="Copy")).to_be_visible()
    api = httpx.get(live.url + "/api/v1/credits", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 200
    shot(page, "tokens")
    page.reload()
    expect(page.locator("#new-token")).to_have_count(0)
    assert token not in page.content()
    row = page.locator("tbody tr", has_text="scanner script")
    row.get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("status").first).to_contain_text("revoked")
    expect(page.get_by_role("button", name="Revoke")).to_have_count(0)
    api = httpx.get(live.url + "/api/v1/credits", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 401


def test_a_user_changes_their_password_on_the_account_page(
        signed_in_page: tuple[Live, Any]) -> None:
    live, page = signed_in_page
    page.get_by_role("link", name="ada@example.org").click()
    expect(page.get_by_role("heading", name="Change your password")).to_be_visible()
    page.get_by_label("Current password").fill(PASSWORD)
    page.get_by_label("New password", exact=True).fill("a new password 2026")
    page.get_by_label("New password again").fill("a new password 2026")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_role("status").first).to_contain_text("Your password is changed")
    shot(page, "account")
    page.get_by_role("button", name="Sign out").click()
    sign_in_page(page, live.url, "ada@example.org", "a new password 2026")
    expect(page.locator("#balance")).to_have_text("50")


def test_another_user_gets_404_and_nothing_changes(make_live: Callable[..., Live],
                                                   new_page: Callable[[], Any]) -> None:
    live = make_live()
    live.user("ada@example.org")
    live.user("eve@example.org")
    drop(live.inbox / "scan.pdf", invoice_pdf(1))
    wait_until(lambda: len(jobs(live, J.DONE)) == 1, what="the document renamed")
    (job,) = jobs(live)
    row, token = Accounts(live.db, live.settings).create_token("ada@example.org", "ada's")
    eve = sign_in_page(new_page(), live.url, "eve@example.org")
    eve.get_by_role("link", name="Jobs").click()
    expect(eve.locator("tbody tr")).to_have_count(0)
    answer = eve.goto(f"{live.url}/jobs/{job.id}")
    assert answer is not None and answer.status == 404
    csrf = eve.locator('meta[name="csrf-token"]').get_attribute("content")
    for path in (f"/jobs/{job.id}/undo", f"/jobs/{job.id}/retry", f"/tokens/{row.id}/revoke"):
        posted = eve.request.post(live.url + path, form={"csrf_token": csrf or ""})
        assert posted.status == 404, path
    assert jobs(live)[0].state == J.DONE and not (live.inbox / "scan.pdf").exists()
    api = httpx.get(live.url + "/api/v1/user", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 200  # ada's token still works


def test_csrf_sign_out_and_the_old_cookie(signed_in_page: tuple[Live, Any],
                                          new_page: Callable[[], Any]) -> None:
    live, page = signed_in_page
    refused = page.request.post(live.url + "/tokens", form={"label": "forged"})
    assert refused.status == 403
    page.goto(live.url + "/tokens")
    expect(page.get_by_role("button", name="Revoke")).to_have_count(0)
    cookie = next(c for c in page.context.cookies() if c["name"] == "renamerd_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    other = new_page()
    other.context.add_cookies([{"name": "renamerd_session", "value": cookie["value"],
                                "url": live.url}])
    other.goto(live.url + "/jobs")
    expect(other.get_by_role("button", name="Sign in")).to_be_visible()
    assert "/signin" in other.url


def test_ten_wrong_passwords_then_429(make_live: Callable[..., Live],
                                      new_page: Callable[[], Any]) -> None:
    live = make_live(daemon=False)
    live.user("ada@example.org")
    page = new_page()
    page.goto(live.url + "/signin")
    for _ in range(10):
        page.get_by_label("Email").fill("ada@example.org")
        page.get_by_label("Password").fill("guess guess guess")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_contain_text("Wrong e-mail or password")
    page.get_by_label("Email").fill("ada@example.org")
    page.get_by_label("Password").fill(PASSWORD)
    with page.expect_response(lambda r: r.url.endswith("/signin")) as answer:
        page.get_by_role("button", name="Sign in").click()
    assert answer.value.status == 429
    expect(page.get_by_role("heading", name="Too many attempts")).to_be_visible()
    expect(page.get_by_text("Try again after")).to_be_visible()
    shot(page, "too-many-attempts")


def test_the_jobs_page_with_renamed_documents(make_live: Callable[..., Live],
                                              new_page: Callable[[], Any]) -> None:
    """The screenshot of the README: a few documents renamed, one undone, one skipped (on a
    memory drive, so the folders read as a cloud drive's)."""
    drive_name = f"shot{os.getpid()}"
    drive = memory.drive(drive_name)
    drive.mkdir("/Scans")
    try:
        live = make_live(connections=[{
            "name": "scans", "provider": "memory", "owner": "ada@example.org",
            "watch": "/Scans", "target": "/Documents", "poll_seconds": 0.5,
            "options": {"drive": drive_name}}])
        live.user("ada@example.org")
        for i in range(4):
            drive.put(f"/Scans/scan_{i + 1:04d}.pdf", invoice_pdf(i))
        drive.put("/Scans/notes.pdf", b"%PDF-1.4 a broken file")
        wait_until(lambda: len(jobs(live, J.DONE)) == 4 and len(jobs(live, J.SKIPPED)) == 1,
                   what="five documents handled")
        page = sign_in_page(new_page(), live.url, "ada@example.org")
        page.get_by_role("link", name="Jobs").click()
        page.locator("tbody tr", has_text="INV-10000").get_by_role("button", name="Undo").click()
        expect(page.locator("tbody tr", has_text="scan_0001.pdf").get_by_role(
            "button", name="Rename again")).to_be_visible()
        assert "scan_0001.pdf" in drive.listing("/Scans")
        page.goto(live.url + "/jobs")
        expect(page.locator("tbody tr")).to_have_count(5)
        shot(page, "jobs")
        if os.environ.get("RENAMERD_UPDATE_DOCS_IMG"):  # the README's picture, when asked
            DOCS_IMG.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(DOCS_IMG / "jobs.png"), full_page=True)
        # on a phone the page does not scroll sideways (wide tables scroll inside their card)
        page.set_viewport_size({"width": 390, "height": 844})
        for path in ("/jobs", "/connections", "/tokens", "/"):
            page.goto(live.url + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{path} is {width} px wide on a 390 px screen"
            # no table scrolls sideways inside its card: every row is a block of its own
            wide = page.evaluate("[...document.querySelectorAll('section.card')]"
                                 ".filter(c => c.scrollWidth > c.clientWidth + 1).length")
            assert wide == 0, f"{path}: {wide} card(s) scroll sideways on a 390 px screen"
            if path == "/jobs":  # each job a block of its own: no column cut at the card's edge
                shot(page, "mobile-jobs")
                row = page.locator("tbody tr").first.bounding_box()
                card = page.locator("section.card").first.bounding_box()
                assert row and card and row["x"] + row["width"] <= card["x"] + card["width"]
        shot(page, "mobile-overview")
        done = jobs(live, J.DONE)[0]
        page.goto(f"{live.url}/jobs/{done.id}")
        # a field's label and its value start on one line (a label pushed down misread them)
        label = page.locator("dl.fields dt").first.bounding_box()
        value = page.locator("dl.fields dd").first.bounding_box()
        assert label and value and abs(label["y"] - value["y"]) < 2
        shot(page, "mobile-job")
    finally:
        memory.forget_drive(drive_name)
