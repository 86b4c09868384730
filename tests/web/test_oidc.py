"""Sign in with the OpenID Connect provider (its emulator over TLS): code + PKCE + state +
nonce, the id_token verified; every way it can go wrong signs nobody in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from emulators.oidc import OidcProvider
from renamerd.config import Settings
from renamerd.service.user_admin import UserAdmin
from renamerd.storage.database import Database
from servers import free_port
from web.conftest import Web, make_user, serve_on

REDIRECT = "http://127.0.0.1:8080/signin/oidc/callback"


@pytest.fixture(scope="module")
def provider() -> Iterator[OidcProvider]:
    p = OidcProvider(clients={"renamerd-web": ("s3cret", [REDIRECT])},
                     verified={"ada@example.org", "new@example.org", "eve@example.org"}).start()
    yield p
    p.stop()


def oauth(provider: OidcProvider, **extra: Any) -> dict[str, Any]:
    return {"issuer": provider.issuer, "client_id": "renamerd-web", "client_secret": "s3cret",
            "ca_bundle": provider.server.ca_bundle, "display_name": "Example ID", **extra}


def consent(provider: OidcProvider, location: str, login: str, decision: str = "allow") -> str:
    """What the person does on the provider's page; returns where it sends the browser."""
    with httpx.Client(verify=provider.server.ca_bundle) as http:
        page = http.get(location)
        assert page.status_code == 200 and "Allow" in page.text
        params = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        answer = http.post(f"{provider.issuer}/authorize",
                           data={**params, "login": login, "decision": decision})
    assert answer.status_code == 303
    return answer.headers["location"]


def callback_path(location: str) -> str:
    assert location.startswith(REDIRECT)
    parts = urlsplit(location)
    return f"{parts.path}?{parts.query}"


def test_sign_in_with_the_provider(make_web: Callable[..., Web], provider: OidcProvider) -> None:
    web = make_web(oauth=oauth(provider))
    web.user("ada@example.org", password=None)
    form = web.get("/signin?next=/tokens")
    assert "Sign in with Example ID" in form.text
    start = web.get("/signin/oidc?next=/tokens", follow_redirects=False)
    location = start.headers["location"]
    query = parse_qs(urlsplit(location).query)
    assert location.startswith(provider.issuer + "/authorize?")
    assert query["code_challenge_method"] == ["S256"] and query["nonce"] and query["state"]
    assert query["redirect_uri"] == [REDIRECT] and query["scope"] == ["openid email profile"]
    back = consent(provider, location, "ada@example.org")
    signed = web.get(callback_path(back), follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/tokens"
    assert web.get("/tokens").status_code == 200
    replay = web.get(callback_path(back))  # a code works once
    assert replay.status_code == 401 and "Sign-in with Example ID failed" in replay.text


def test_what_signs_nobody_in(make_web: Callable[..., Web], provider: OidcProvider) -> None:
    web = make_web(oauth=oauth(provider))
    web.user("ada@example.org", password=None)
    web.user("off@example.org", password=None)
    UserAdmin(web.db).set_disabled("off@example.org")
    provider.verified.update({"off@example.org", "nobody@example.org"})

    def attempt(login: str, decision: str = "allow", other_browser: bool = False) -> Any:
        web.client.cookies.clear()
        location = web.get("/signin/oidc", follow_redirects=False).headers["location"]
        back = consent(provider, location, login, decision)
        if other_browser:
            web.client.cookies.clear()
        return web.get(callback_path(back), follow_redirects=False)

    cases = [
        (attempt("ada@example.org", "deny"), "you did not allow it"),
        (attempt("ada@example.org", other_browser=True), "not started in this browser"),
        (attempt("nobody@example.org"), "has no account here"),
        (attempt("unverified@example.org"), "not verified"),
        (attempt("off@example.org"), "disabled"),
    ]
    for answer, words in cases:
        assert answer.status_code == 401 and words in answer.text, words
        assert "renamerd_session=" not in answer.headers.get("set-cookie", "")
    tampered = web.get("/signin/oidc", follow_redirects=False).headers["location"]
    back = consent(provider, tampered, "ada@example.org")
    path = callback_path(back).replace("state=", "state=x")
    assert web.get(path).status_code == 401


def test_a_forged_id_token_is_refused(make_web: Callable[..., Web], provider: OidcProvider,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    web = make_web(oauth=oauth(provider))
    web.user("ada@example.org", password=None)
    real = provider.id_token
    for claims in ({"aud": "someone-else"}, {"nonce": "replayed"}, {"iss": "https://evil.example"},
                   {"exp": 1}):
        monkeypatch.setattr(provider, "id_token",
                            lambda grant, client_id, c=claims: real(grant, client_id, **c))
        web.client.cookies.clear()
        location = web.get("/signin/oidc", follow_redirects=False).headers["location"]
        answer = web.get(callback_path(consent(provider, location, "ada@example.org")))
        assert answer.status_code == 401, claims


def test_auto_create_users(make_web: Callable[..., Web], provider: OidcProvider) -> None:
    web = make_web(oauth=oauth(provider, auto_create_users=True))
    location = web.get("/signin/oidc", follow_redirects=False).headers["location"]
    answer = web.get(callback_path(consent(provider, location, "new@example.org")),
                     follow_redirects=False)
    assert answer.status_code == 303
    assert web.accounts.get_user("new@example.org").email == "new@example.org"


@pytest.mark.slow
@pytest.mark.xdist_group("browser")
def test_the_consent_page_in_a_browser(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    provider = OidcProvider(clients={"renamerd-web": (None, [url + "/signin/oidc/callback"])},
                            verified={"ada@example.org"}).start()
    settings = Settings(
        database={"url": f"sqlite:///{tmp_path / 'oidc.db'}"}, server={"public_url": url},
        daemon={"state_dir": str(tmp_path / "state")},
        oauth={"issuer": provider.issuer, "client_id": "renamerd-web",
               "ca_bundle": provider.server.ca_bundle, "display_name": "Example ID"})
    db = Database(settings.database.url)
    db.upgrade()
    make_user(settings, db, "ada@example.org", password=None)
    _, _, stop = serve_on(settings, db, port)
    context = browser.new_context(ignore_https_errors=True)  # the emulator's test CA
    try:
        page = context.new_page()
        page.goto(url + "/")
        page.get_by_role("link", name="Sign in with Example ID").click()
        page.get_by_label("Account e-mail").fill("ada@example.org")
        page.get_by_role("button", name="Allow").click()
        expect(page.locator("#balance")).to_have_text("50")
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    finally:
        context.close()
        stop()
        provider.stop()
        db.dispose()
