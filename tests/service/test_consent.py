"""The browser consent flow of each provider against its emulator, without a browser: the
consent page, Allow, the redirect with code and state, the code traded for a refresh token
(PKCE checked), and the token revoked when a connection is deleted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from emulators.base import EmulatorServer
from emulators.dropbox import DropboxEmulator
from emulators.gdrive import DriveEmulator
from emulators.onedrive import OneDriveEmulator
from renamerd.connectors import AuthError
from renamerd.service import consent

REDIRECT = "http://127.0.0.1:9/connections/callback/x"


@pytest.fixture(params=["gdrive", "dropbox", "onedrive"])
def provider(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, Any], Any]]:
    if request.param == "gdrive":
        emu = DriveEmulator().start()
        emu.state.consent_page = True
        yield "gdrive", {"client_id": "emu-client", "client_secret": "emu-secret",
                         "auth_uri": emu.auth_uri, "token_uri": emu.token_uri,
                         "ca_bundle": emu.ca_bundle}, emu.ca_bundle
        emu.stop()
    elif request.param == "dropbox":
        box = DropboxEmulator().start()
        box.account.add_app("test-app", "test-secret")
        yield "dropbox", {"app_key": "test-app", "app_secret": "test-secret",
                          "endpoint": box.url, "ca_bundle": box.ca_bundle}, box.ca_bundle
        box.stop()
    else:
        od = OneDriveEmulator()
        srv = EmulatorServer(od.app).start()
        yield "onedrive", {"client_id": "renamerd-test-client", "tenant": "consumers",
                           "authority": srv.url, "ca_bundle": srv.ca_bundle}, srv.ca_bundle
        srv.stop()


def _allow(url: str, ca: str) -> dict[str, str]:
    """Open the consent page, check it asks, press Allow; the redirect's query."""
    page = httpx.get(url, verify=ca)
    assert page.status_code == 200 and "Allow" in page.text
    answer = httpx.get(url + "&approve=1", verify=ca, follow_redirects=False)
    assert answer.status_code in (302, 303, 307)
    location = answer.headers["location"]
    assert location.startswith(REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def test_consent_code_token_revoke(provider: tuple[str, dict[str, Any], Any]) -> None:
    name, options, ca = provider
    started = consent.start(name, options, REDIRECT)
    query = _allow(started.url, ca)
    assert query["state"] == started.state
    with pytest.raises(AuthError):  # PKCE: the code is bound to this verifier
        consent.finish(name, options, REDIRECT, query["code"], "not-the-verifier")
    again = consent.start(name, options, REDIRECT)
    query = _allow(again.url, ca)
    token = consent.finish(name, options, REDIRECT, query["code"], again.verifier)
    assert token
    with pytest.raises(AuthError):  # a code works once
        consent.finish(name, options, REDIRECT, query["code"], again.verifier)
    if name == "onedrive":
        assert consent.revoke(name, options, token) is False  # Microsoft: not per token
    else:
        assert consent.revoke(name, options, token) is True
        with pytest.raises(AuthError):
            consent.revoke(name, options, token)
