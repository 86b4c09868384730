"""Connecting a drive in a real browser, for each provider against its emulator: Connect ->
the provider's consent page -> Allow -> the settings form (Watch folder, Target folder, Save);
a document in the emulated drive is renamed and shows in Jobs; Undo puts it back and it stays.
Also: a callback that does not belong to a connect started in this browser is refused, and
another user's connection is a 404."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.fernet import Fernet
from playwright.sync_api import expect

from daemon.e2e import invoice_pdf
from emulators.base import EmulatorServer
from emulators.dropbox import DropboxEmulator
from emulators.gdrive import DriveEmulator
from emulators.onedrive import OneDriveEmulator
from renamerd.service import jobs as J
from web.conftest import Live, sign_in_page
from web.test_browser import shot

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


@dataclass
class Provider:
    id: str
    button: str
    options: dict[str, Any]
    put: Callable[[str, bytes], Any]
    listing: Callable[[str], list[str]]
    mkdir: Callable[[str], Any]


@pytest.fixture
def provider(request: pytest.FixtureRequest) -> Iterator[Provider]:
    kind = request.param
    if kind == "gdrive":
        emu = DriveEmulator().start()
        emu.state.consent_page = True
        yield Provider("gdrive", "Connect Google Drive", {
            "client_id": "emu-client", "client_secret": "emu-secret",
            "auth_uri": emu.auth_uri, "token_uri": emu.token_uri, "api_endpoint": emu.url,
            "ca_bundle": emu.ca_bundle, "pace_seconds": 0},
            emu.state.put, emu.state.listing, emu.state.mkdir)
        emu.stop()
    elif kind == "dropbox":
        box = DropboxEmulator().start()
        box.account.add_app("test-app", "test-secret")
        yield Provider("dropbox", "Connect Dropbox", {
            "app_key": "test-app", "app_secret": "test-secret", "endpoint": box.url,
            "ca_bundle": box.ca_bundle},
            box.account.put, box.account.listing,
            lambda path: box.account._make_folders(path))
        box.stop()
    else:
        od = OneDriveEmulator()
        srv = EmulatorServer(od.app).start()
        yield Provider("onedrive", "Connect OneDrive", {
            "client_id": "renamerd-test-client", "tenant": "consumers",
            "authority": srv.url, "graph_endpoint": f"{srv.url}/v1.0",
            "ca_bundle": srv.ca_bundle},
            od.put, od.listing, od.mkdir)
        srv.stop()


def _live(make_live: Callable[..., Live], p: Provider) -> Live:
    return make_live(connections=[], providers={p.id: p.options},
                     secrets={"key": Fernet.generate_key().decode()},
                     daemon_overrides={"user_poll_seconds": 0.5})


def _wait(cond: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.2)


@pytest.mark.parametrize("provider", ["gdrive", "dropbox", "onedrive"], indirect=True)
def test_connect_set_folders_rename_undo(provider: Provider, make_live: Callable[..., Live],
                                         browser: Any) -> None:
    live = _live(make_live, provider)
    live.user("ada@example.org")
    context = browser.new_context(viewport={"width": 1280, "height": 860},
                                  ignore_https_errors=True)  # the emulator's test CA
    context.set_default_timeout(20_000)
    try:
        page = sign_in_page(context.new_page(), live.url, "ada@example.org")
        page.get_by_role("link", name="Connections").click()
        page.get_by_role("link", name=provider.button).click()
        page.get_by_role("button", name="Allow").click()  # the provider's consent page
        expect(page.get_by_label("Watch folder")).to_be_visible()
        provider.mkdir("/Scans")
        provider.put("/Scans/scan_0001.pdf", invoice_pdf(3))
        # the folder browser lists the drive's folders; a click chooses one
        page.get_by_role("button", name="Browse folders").first.click()
        page.get_by_role("button", name="Scans", exact=True).click()
        expect(page.get_by_label("Watch folder")).to_have_value("/Scans")
        page.get_by_label("Watch folder").fill("/Scans")
        page.get_by_label("Target folder").fill("/Documents")
        page.get_by_label("Strategy").select_option("by_date_type")
        page.get_by_label("Output language").select_option("en")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("takes the new settings")).to_be_visible()
        shot(page, f"connections-{provider.id}")
        _wait(lambda: len(J.JobQueue(live.db).find(state=J.DONE)) == 1, "the rename")
        assert provider.listing("/Scans") == []
        page.get_by_role("link", name="Jobs").click()
        row = page.locator("tbody tr", has_text="INV-10003")
        expect(row).to_be_visible()
        row.get_by_role("button", name="Undo").click()
        expect(page.locator("tbody tr", has_text="scan_0001.pdf").get_by_role(
            "button", name="Rename again")).to_be_visible()
        assert provider.listing("/Scans") == ["scan_0001.pdf"]
        time.sleep(2.0)  # a few polls: the file undone stays where it is
        assert provider.listing("/Scans") == ["scan_0001.pdf"]
        assert len(J.JobQueue(live.db).find()) == 1
    finally:
        context.close()


@pytest.mark.parametrize("provider", ["gdrive"], indirect=True)
def test_a_foreign_callback_and_another_users_connection(provider: Provider,
                                                          make_live: Callable[..., Live],
                                                          browser: Any) -> None:
    live = _live(make_live, provider)
    live.user("ada@example.org")
    live.user("bob@example.org")
    ada = browser.new_context(ignore_https_errors=True)
    bob = browser.new_context(ignore_https_errors=True)
    try:
        page = sign_in_page(ada.new_page(), live.url, "ada@example.org")
        page.goto(live.url + "/connections")
        page.get_by_role("link", name=provider.button).click()
        page.get_by_role("button", name="Allow").click()
        expect(page.get_by_label("Watch folder")).to_be_visible()
        settings_url = page.url
        other = sign_in_page(bob.new_page(), live.url, "bob@example.org")
        assert other.goto(settings_url).status == 404
        forged = other.goto(live.url + "/connections/callback/gdrive?code=x&state=y")
        assert forged is not None
        expect(other.get_by_text("does not belong to a connect started here")).to_be_visible()
    finally:
        ada.close()
        bob.close()
