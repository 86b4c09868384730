"""The connection settings form without a browser: the confidence policy (Doubtful documents,
Confidence threshold) is shown with the server's default, saved, handed to the daemon, and a
bad value is refused with the form again."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cryptography.fernet import Fernet

from renamerd.service import secrets as secrets_store
from renamerd.service.connections import Connections, Fields, all_connections
from web.conftest import Web

PROVIDERS = {"gdrive": {"client_id": "c", "client_secret": "s"}}


def test_the_confidence_policy_in_the_settings_form(make_web: Callable[..., Web]) -> None:
    web = make_web(providers=PROVIDERS, secrets={"key": Fernet.generate_key().decode()})
    ada = web.user("ada@example.org")
    row = Connections(web.db, web.settings).create(ada.id, "gdrive", Fields.check(
        {"watch": "/Scans"}))
    secrets_store.store_refresh_token(web.db, web.settings, row.name, "1//t")
    web.sign_in("ada@example.org")
    form = web.get(f"/connections/{row.name}").text
    assert "Doubtful documents" in form and "as the server says (review)" in form
    assert 'placeholder="0.5"' in form

    base = {"watch": "/Scans", "target": "/Docs", "strategy": "by_date", "language": "en",
            "custom_template": ""}
    saved = web.post(f"/connections/{row.name}", {**base, "below_confidence": "keep",
                                                  "confidence_threshold": "0.7"},
                     follow_redirects=False)
    assert saved.status_code in (200, 303), saved.text
    daemon_view = {c.name: c for c in all_connections(web.settings, web.db)}[row.name]
    assert (daemon_view.below_confidence, daemon_view.confidence_threshold) == ("keep", 0.7)
    form = web.get(f"/connections/{row.name}").text
    assert '<option value="keep" selected>' in form and 'value="0.7"' in form

    bad = web.post(f"/connections/{row.name}", {**base, "below_confidence": "keep",
                                                "confidence_threshold": "2"})
    assert bad.status_code == 400 and "confidence_threshold" in bad.text
    cleared = web.post(f"/connections/{row.name}", {**base, "below_confidence": "",
                                                    "confidence_threshold": ""},
                       follow_redirects=False)
    assert cleared.status_code in (200, 303)
    daemon_view = {c.name: c for c in all_connections(web.settings, web.db)}[row.name]
    assert (daemon_view.below_confidence, daemon_view.confidence_threshold) == (None, None)


def test_without_a_drive_provider_the_page_says_who_sets_one_up(
        make_web: Callable[..., Web]) -> None:
    """No [providers] configured: a user learns drives come once the admin sets them up; the
    admin learns where (the config's [providers] tables, docs/web-connections.md)."""
    web = make_web()
    web.user("ada@example.org")
    web.user("boss@example.org", admin=True)
    web.sign_in("ada@example.org")
    page = web.get("/connections").text
    assert "Connect a drive" in page and "once your admin has set them up" in page
    assert "[providers.gdrive]" not in page
    web.sign_in("boss@example.org")
    page = web.get("/connections").text
    assert "[providers.gdrive]" in page and "docs/web-connections.md" in page


def test_connect_without_a_secrets_key_tells_a_user_to_ask_the_admin(
        make_web: Callable[..., Web], tmp_path: Path) -> None:
    web = make_web(providers=PROVIDERS, secrets={"key_file": str(tmp_path / "gone.key")})
    web.user("ada@example.org")
    web.user("root@example.org", admin=True)
    web.sign_in("ada@example.org")
    page = web.get("/connections/connect/gdrive", follow_redirects=True).text
    assert "no key to keep sign-ins with yet; ask your admin" in page
    assert "gone.key" not in page
    web.sign_in("root@example.org")
    assert "gone.key" in web.get("/connections/connect/gdrive", follow_redirects=True).text


def test_instructions_not_understood_are_named_where_they_are_entered(
        make_web: Callable[..., Web]) -> None:
    """Saving instructions with a part not understood says so, under the Instructions field
    of the form it goes back to (not a bare "Saved"); the hint uses the strategy's words of the
    dropdown, and "what is understood" is on the page (docs/instructions.md is not served)."""
    web = make_web(providers=PROVIDERS, secrets={"key": Fernet.generate_key().decode()})
    ada = web.user("ada@example.org")
    row = Connections(web.db, web.settings).create(ada.id, "gdrive", Fields.check(
        {"watch": "/Scans"}))
    web.sign_in("ada@example.org")
    form = web.get(f"/connections/{row.name}").text
    assert "follow custom prompt" not in form and "“As the instructions say”" in form
    assert "<summary>What is understood</summary>" in form and "sort by year and month" in form
    assert 'href="/docs">what is understood' not in form
    assert "Not understood" not in form

    base = {"watch": "/Scans", "target": "/Docs", "strategy": "follow_custom_prompt",
            "language": "en"}
    saved = web.post(f"/connections/{row.name}", {
        **base, "custom_template": "Use format YYYY-MM-DD - Company. frobnicate everything"},
        follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == f"/connections/{row.name}"
    page = web.get(f"/connections/{row.name}").text
    assert '<div class="flash warn" role="status">Saved: ' in page
    assert "see the notes under Instructions" in page
    notes = re.search(r'<div id="instr-notes">(.*?)</div>', page, re.S)
    assert notes, page
    assert ("Not understood, so left out: “frobnicate everything” (because of “frobnicate”)."
            in notes.group(1))
    assert "Use format" not in notes.group(1)

    fine = web.post(f"/connections/{row.name}", {
        **base, "custom_template": "Use format YYYY-MM-DD - Company. Put invoices in Big/"},
        follow_redirects=False)
    assert fine.headers["location"] == "/connections"
    assert 'id="instr-notes"' not in web.get(f"/connections/{row.name}").text


def test_folder_rules_under_another_strategy_are_said_to_be_unused(
        make_web: Callable[..., Web]) -> None:
    """Instructions with folder rules saved with a strategy that makes its own folders: the
    form says plainly, under the instructions, that their folder rules are not used (their
    naming rules are); under "As the instructions say" nothing is said."""
    web = make_web(providers=PROVIDERS, secrets={"key": Fernet.generate_key().decode()})
    ada = web.user("ada@example.org")
    row = Connections(web.db, web.settings).create(ada.id, "gdrive", Fields.check(
        {"watch": "/Scans"}))
    web.sign_in("ada@example.org")
    form = web.get(f"/connections/{row.name}").text
    assert ("Naming rules (format, fields, separator, case, date format) apply with every "
            "strategy; folder rules only with the strategy “As the instructions say”") in form
    base = {"watch": "/Scans", "target": "/Docs", "language": "en",
            "custom_template": "Use format YYYY-MM-DD - Company. Put invoices in Big/"}
    saved = web.post(f"/connections/{row.name}", {**base, "strategy": "by_date"},
                     follow_redirects=False)
    assert saved.headers["location"] == f"/connections/{row.name}"
    notes = re.search(r'<div id="instr-notes">(.*?)</div>', web.get(
        f"/connections/{row.name}").text, re.S)
    assert notes and ("The folder rules of these instructions are not used with the strategy "
                      "“By year”, which makes its own folders: folder rules apply only with "
                      "the strategy “As the instructions say”. Their naming rules apply with "
                      "every strategy.") in notes.group(1)
    assert "Not understood" not in notes.group(1)
    fine = web.post(f"/connections/{row.name}", {**base, "strategy": "follow_custom_prompt"},
                    follow_redirects=False)
    assert fine.headers["location"] == "/connections"


def test_the_output_languages_have_labels_one_can_tell_apart(
        make_web: Callable[..., Web]) -> None:
    """"auto" and "source" do the same (engine.rename: the detected language, English when
    none is): the list offers the one, labelled so; a connection set to "source" (through
    the API) shows it, labelled as the same as auto. No two options read alike."""
    web = make_web(providers=PROVIDERS, secrets={"key": Fernet.generate_key().decode()})
    ada = web.user("ada@example.org")
    store = Connections(web.db, web.settings)
    row = store.create(ada.id, "gdrive", Fields.check({"watch": "/Scans"}))
    web.sign_in("ada@example.org")

    def options(path: str) -> dict[str, str]:
        html = web.get(path).text
        select = html[html.index('<select id="language"'):]
        select = select[:select.index("</select>")]
        return dict(re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', select))

    for path in ("/try", f"/connections/{row.name}"):
        labels = options(path)
        assert labels["auto"] == ("The document&#39;s own language (auto: detected; English "
                                  "when unknown)")
        assert "source" not in labels
        assert len(set(labels.values())) == len(labels)
    store.update(ada.id, row.name, Fields.check({"watch": "/Scans", "language": "source"}))
    labels = options(f"/connections/{row.name}")
    assert labels["source"] == "The document&#39;s own language (source: the same as auto)"
    assert len(set(labels.values())) == len(labels)
    assert '<option value="source" selected>' in web.get(f"/connections/{row.name}").text
