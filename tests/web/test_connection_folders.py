"""The folder browser's JSON: the folders of a path of the user's own connection; another
user's connection and a path that is no folder are 404."""

from __future__ import annotations

import os
from collections.abc import Callable

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
