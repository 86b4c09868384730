"""/api/v1/connections: the owner's connections as JSON (list, create, change, delete), the
config file's read-only, another user's 404 with nothing changed, bad input 400."""

from __future__ import annotations

from typing import Any

from cryptography.fernet import Fernet

from api.conftest import MakeApi
from api.test_account import assert_error
from renamerd.config import ConnectionSettings
from renamerd.service import secrets as secrets_store
from renamerd.service.connections import all_connections

PROVIDERS = {"gdrive": {"client_id": "c", "client_secret": "s"}}


def _api(make_api: MakeApi) -> Any:
    api = make_api()
    api.settings.providers = PROVIDERS
    api.settings.secrets.key = Fernet.generate_key().decode()
    api.settings.connections = [ConnectionSettings(
        name="office", provider="local", owner=api.accounts.get_user_by_id(api.user_id).email,
        watch="/srv/in")]
    return api


def test_create_change_list_delete(make_api: MakeApi) -> None:
    api = _api(make_api)
    r = api.client.post("/api/v1/connections", headers=api.auth, json={
        "provider": "gdrive", "watch": "Scans", "target": "/Documents",
        "strategy": "by_date", "language": "fr", "refreshToken": "1//secret-token"})
    assert r.status_code == 201, r.text
    made = r.json()
    name = made["name"]
    assert made["source"] == "user" and made["watch"] == "/Scans" and made["language"] == "fr"
    assert "secret-token" not in r.text and made["connectUrl"].endswith(f"connection={name}")
    assert secrets_store.load_refresh_token(api.db, api.settings, name) == "1//secret-token"
    daemon_view = {c.name: c for c in all_connections(api.settings, api.db)}
    assert daemon_view[name].options == PROVIDERS["gdrive"] and daemon_view[name].enabled
    r = api.client.patch(f"/api/v1/connections/{name}", headers=api.auth,
                         json={"paused": True, "instructions": "name it company then date"})
    assert r.status_code == 200 and r.json()["paused"] is True
    assert not {c.name: c for c in all_connections(api.settings, api.db)}[name].enabled
    listed = api.client.get("/api/v1/connections", headers=api.auth).json()
    assert [(c["name"], c["source"]) for c in listed] == [("office", "config"), (name, "user")]
    assert api.client.delete(f"/api/v1/connections/{name}", headers=api.auth).status_code == 204
    assert secrets_store.load_refresh_token(api.db, api.settings, name) is None
    assert_error(api.client.get(f"/api/v1/connections/{name}", headers=api.auth), 404)


def test_another_users_and_the_config_files_are_404(make_api: MakeApi) -> None:
    api = _api(make_api)
    other = make_api()
    r = api.client.post("/api/v1/connections", headers=api.auth,
                        json={"provider": "gdrive", "watch": "/In"})
    name = r.json()["name"]
    for method, body in (("get", None), ("patch", {"paused": True}), ("delete", None)):
        resp = other.client.request(method.upper(), f"/api/v1/connections/{name}",
                                    headers=other.auth, json=body)
        assert_error(resp, 404)
    assert api.client.get(f"/api/v1/connections/{name}", headers=api.auth).json()["paused"] \
        is False
    assert_error(api.client.patch("/api/v1/connections/office", headers=api.auth,
                                  json={"paused": True}), 404)


def test_bad_input_is_400(make_api: MakeApi) -> None:
    api = _api(make_api)
    cases = [{"provider": "ftp", "watch": "/x"}, {"provider": "gdrive"},
             {"provider": "gdrive", "watch": "/x", "strategy": "by_mood"},
             {"provider": "gdrive", "watch": "/x", "language": "xx"},
             {"provider": "gdrive", "watch": "/x\ty"}]
    for body in cases:
        r = api.client.post("/api/v1/connections", headers=api.auth, json=body)
        assert r.status_code in (400, 422), (body, r.text)
        assert "error" in r.json(), body
    assert api.client.get("/api/v1/connections", headers=api.auth).json()[1:] == []


def test_the_confidence_policy_of_a_connection(make_api: MakeApi) -> None:
    api = _api(make_api)
    r = api.client.post("/api/v1/connections", headers=api.auth, json={
        "provider": "gdrive", "watch": "/Scans", "belowConfidence": "keep",
        "confidenceThreshold": 0.7, "refreshToken": "1//t"})
    assert r.status_code == 201, r.text
    made = r.json()
    assert (made["belowConfidence"], made["confidenceThreshold"]) == ("keep", 0.7)
    daemon_view = {c.name: c for c in all_connections(api.settings, api.db)}[made["name"]]
    assert (daemon_view.below_confidence, daemon_view.confidence_threshold) == ("keep", 0.7)
    r = api.client.patch(f"/api/v1/connections/{made['name']}", headers=api.auth,
                         json={"belowConfidence": None, "confidenceThreshold": None})
    assert r.status_code == 200 and r.json()["belowConfidence"] is None
    daemon_view = {c.name: c for c in all_connections(api.settings, api.db)}[made["name"]]
    assert (daemon_view.below_confidence, daemon_view.confidence_threshold) == (None, None)
    for bad in ({"belowConfidence": "maybe"}, {"confidenceThreshold": 1.5},
                {"confidenceThreshold": "high"}):
        r = api.client.patch(f"/api/v1/connections/{made['name']}", headers=api.auth, json=bad)
        assert r.status_code == 400, (bad, r.text)


def test_local_folders_only_inside_the_users_roots(make_api: MakeApi, tmp_path: Any) -> None:
    """A stranger's report: with `[providers.local]` configured, any user could watch /etc or
    another user's folder and have its files moved into their own."""
    ada, bob = make_api(), make_api()
    ada_email = ada.accounts.get_user_by_id(ada.user_id).email
    bob_email = bob.accounts.get_user_by_id(bob.user_id).email

    def post(api: Any, **body: Any) -> Any:
        return api.client.post("/api/v1/connections", headers=api.auth,
                               json={"provider": "local", **body})

    for api in (ada, bob):
        api.settings.providers = {"local": {}}
    refused = post(bob, watch="/etc", dryRun=True)
    assert_error(refused, 400)
    assert "[providers.local] roots" in refused.json()["error"]

    for api in (ada, bob):
        api.settings.providers = {"local": {"roots": [f"{tmp_path}/{{email}}"]}}
    ada_in, bob_in = f"{tmp_path}/{ada_email}/in", f"{tmp_path}/{bob_email}/in"
    for body in ({"watch": "/etc"}, {"watch": ada_in, "target": f"{tmp_path}/{bob_email}/out"},
                 {"watch": bob_in, "target": f"{tmp_path}/{bob_email}/../{ada_email}"}):
        r = post(bob, **body)
        assert_error(r, 400)
        assert "outside the folders you may use" in r.json()["error"]
    made = post(bob, watch=bob_in, target=f"{tmp_path}/{bob_email}/out")
    assert made.status_code == 201, made.text
    name = made.json()["name"]
    moved = bob.client.patch(f"/api/v1/connections/{name}", headers=bob.auth,
                             json={"target": f"{tmp_path}/{ada_email}"})
    assert_error(moved, 400)
    assert bob.client.get(f"/api/v1/connections/{name}", headers=bob.auth).json()["target"] == (
        f"{tmp_path}/{bob_email}/out")
    daemon_view = {c.name: c for c in all_connections(bob.settings, bob.db)}
    assert daemon_view[name].options == {}  # `roots` is not the connector's option

    bob.settings.providers = {"local": {"roots": [f"{tmp_path}/elsewhere"]}}
    assert name not in {c.name for c in all_connections(bob.settings, bob.db)}


def test_a_connection_never_signed_in_waits_for_its_owner(make_api: MakeApi) -> None:
    """Made without `refreshToken`: the daemon does not poll it (no warning every minute
    with advice for the admin's CLI), and its state tells the owner to sign in."""
    api = _api(make_api)
    made = api.client.post("/api/v1/connections", headers=api.auth,
                           json={"provider": "gdrive", "watch": "/In"}).json()
    assert made["state"].startswith("not signed in yet")
    assert made["name"] not in {c.name for c in all_connections(api.settings, api.db)}
    secrets_store.store_refresh_token(api.db, api.settings, made["name"], "1//t")
    assert made["name"] in {c.name for c in all_connections(api.settings, api.db)}
    got = api.client.get(f"/api/v1/connections/{made['name']}", headers=api.auth).json()
    assert got["state"] == "waiting for the first poll"


def test_no_secrets_key_no_drive_connection(make_api: MakeApi, tmp_path: Any) -> None:
    """Without a key to keep sign-ins, a drive's connection is refused at once (it could never
    be signed in); the Connect button tells a user to ask the admin, without the key's path."""
    api = make_api()
    api.settings.providers = PROVIDERS
    api.settings.secrets.key_file = str(tmp_path / "missing.key")
    r = api.client.post("/api/v1/connections", headers=api.auth,
                        json={"provider": "gdrive", "watch": "/In"})
    assert_error(r, 400)
    assert r.json()["code"] == "NO_SECRETS_KEY"


def test_the_start_warns_when_drives_are_offered_without_a_key(
        make_api: MakeApi, tmp_path: Any, capsys: Any) -> None:
    from types import SimpleNamespace

    from renamerd.commands.daemon import _warn_no_secrets_key

    settings = make_api().settings
    settings.providers = PROVIDERS
    settings.secrets.key_file = str(tmp_path / "missing.key")
    _warn_no_secrets_key(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    said = capsys.readouterr().err
    assert "users cannot connect them" in said and "missing.key" in said
    settings.secrets.key_file = ""
    settings.secrets.key = Fernet.generate_key().decode()
    _warn_no_secrets_key(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    assert capsys.readouterr().err == ""


def test_an_unknown_key_is_an_unknown_field(make_api: MakeApi) -> None:
    api = _api(make_api)
    r = api.client.post("/api/v1/connections", headers=api.auth,
                        json={"provider": "gdrive", "watch": "/x", "pausd": True})
    assert r.status_code == 400 and r.json()["code"] == "UNKNOWN_FIELD"
    assert r.json()["error"].startswith("unknown field 'pausd' (did you mean 'paused'?)")
