"""The folder browser's JSON: the folders of a path of the user's own connection; another
user's connection and a path that is no folder are 404."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from cryptography.fernet import Fernet

from renamerd.service.connections import Connections, Fields
from renamerd_connectors import memory
from web.conftest import Web


def test_folders_of_my_connection_only(make_web: Callable[..., Web]) -> None:
    name = f"browse{os.getpid()}"
    drive = memory.drive(name)
    try:
        drive.mkdir("/Scans/2024")
        drive.mkdir("/Documents")
        drive.put("/Scans/a.pdf", b"x")
        web = make_web(providers={"memory": {"drive": name}},
                       secrets={"key": Fernet.generate_key().decode()})
        ada = web.user("ada@example.org")
        web.user("bob@example.org")
        row = Connections(web.db, web.settings).create(ada.id, "memory",
                                                       Fields.check({"watch": "/Scans"}))
        web.sign_in("ada@example.org")
        url = f"/connections/{row.name}/folders"
        assert web.client.get(url, params={"path": "/"}).json() == {
            "path": "/", "folders": ["Documents", "Scans"]}
        assert web.client.get(url, params={"path": "Scans/"}).json() == {
            "path": "/Scans", "folders": ["2024"]}
        missing = web.client.get(url, params={"path": "/nope"})
        assert missing.status_code == 404 and "error" in missing.json()
        web.sign_in("bob@example.org")
        assert web.client.get(url, params={"path": "/"}).status_code == 404
    finally:
        memory.forget_drive(name)


def test_a_local_connection_browses_only_the_users_roots(make_web: Callable[..., Web],
                                                         tmp_path: Path) -> None:
    """The browser of a user's server folder shows the way down to their roots and what is in
    them, never the rest of the server's filesystem."""
    root = tmp_path / "users" / "ada@example.org"
    (root / "in" / "2024").mkdir(parents=True)
    (tmp_path / "users" / "bob@example.org").mkdir()
    web = make_web(providers={"local": {"roots": [f"{tmp_path}/users/{{email}}"]}})
    ada = web.user("ada@example.org")
    row = Connections(web.db, web.settings).create(ada.id, "local",
                                                   Fields.check({"watch": f"{root}/in"}))
    web.sign_in("ada@example.org")
    url = f"/connections/{row.name}/folders"

    def listed(path: str) -> list[str]:
        r = web.client.get(url, params={"path": path})
        assert r.status_code == 200, r.text
        return list(r.json()["folders"])

    assert listed(f"{tmp_path}/users") == ["ada@example.org"]
    assert listed(str(root)) == ["in"]
    assert listed(f"{root}/in") == ["2024"]
    assert listed("/etc") == []
    assert listed("/") == [str(tmp_path).split("/")[1]]
    page = web.client.get("/connections").text
    assert row.name in page and "Reconnect" not in page  # a server folder has no sign-in
