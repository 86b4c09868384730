"""Refresh tokens encrypted at rest: round trips on both databases, key handling, no clear text."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from renamerd.config import ConnectionSettings, Settings
from renamerd.service.secrets import (
    SecretsError,
    SecretsKeyError,
    connector_options,
    delete_refresh_token,
    has_key,
    load_refresh_token,
    store_refresh_token,
)
from renamerd.storage.database import Database
from renamerd.storage.models import StoredSecret

TOKEN = "1//0gRefreshTokenThatMustNeverAppearInClear-XyZ123"


def with_key(settings: Settings, key: str) -> Settings:
    return settings.model_copy(update={"secrets": settings.secrets.model_copy(update={"key": key})})


@pytest.fixture
def keyed(settings: Settings) -> Settings:
    return with_key(settings, Fernet.generate_key().decode())


def conn(provider: str = "gdrive", **options: object) -> ConnectionSettings:
    return ConnectionSettings(name="drive", provider=provider, owner="a@example.org",
                              watch="/Inbox", options=options)


def test_round_trip_and_replace(db: Database, keyed: Settings) -> None:
    assert load_refresh_token(db, keyed, "drive") is None
    store_refresh_token(db, keyed, "drive", TOKEN)
    assert load_refresh_token(db, keyed, "drive") == TOKEN
    store_refresh_token(db, keyed, "drive", TOKEN + "-new")  # reconnect replaces
    assert load_refresh_token(db, keyed, "drive") == TOKEN + "-new"
    assert load_refresh_token(db, keyed, "other") is None
    with db.session() as s:
        rows = s.query(StoredSecret).all()
    assert len(rows) == 1 and TOKEN not in rows[0].ciphertext
    assert delete_refresh_token(db, "drive") is True
    assert delete_refresh_token(db, "drive") is False
    assert load_refresh_token(db, keyed, "drive") is None


def test_no_key_is_a_clear_error(db: Database, settings: Settings) -> None:
    assert not has_key(settings)
    with pytest.raises(SecretsKeyError, match="Fernet.generate_key"):
        store_refresh_token(db, settings, "drive", TOKEN)
    with db.session() as s:
        assert s.query(StoredSecret).count() == 0


def test_malformed_key(db: Database, settings: Settings) -> None:
    with pytest.raises(SecretsKeyError, match="not a valid Fernet key"):
        store_refresh_token(db, with_key(settings, "too-short"), "drive", TOKEN)


def test_wrong_key_and_rotation(db: Database, keyed: Settings) -> None:
    store_refresh_token(db, keyed, "drive", TOKEN)
    other = with_key(keyed, Fernet.generate_key().decode())
    with pytest.raises(SecretsError, match="cannot be decrypted"):
        load_refresh_token(db, other, "drive")
    rotated = with_key(keyed, f"{other.secrets.key},{keyed.secrets.key}")
    assert load_refresh_token(db, rotated, "drive") == TOKEN  # old key still decrypts
    store_refresh_token(db, rotated, "drive", TOKEN)  # re-encrypted with the new first key
    assert load_refresh_token(db, other, "drive") == TOKEN


def test_row_copied_to_other_connection_is_refused(db: Database, keyed: Settings) -> None:
    store_refresh_token(db, keyed, "drive", TOKEN)
    with db.write_session() as s:
        row = s.get(StoredSecret, ("drive", "refresh_token"))
        assert row is not None
        s.add(StoredSecret(connection="thief", kind="refresh_token", ciphertext=row.ciphertext))
    with pytest.raises(SecretsError, match="belongs elsewhere"):
        load_refresh_token(db, keyed, "thief")


def test_key_from_file_and_environment(
    db: Database, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "secrets.key"
    key_file.write_text(Fernet.generate_key().decode() + "\n")
    from_file = settings.model_copy(
        update={"secrets": settings.secrets.model_copy(update={"key_file": str(key_file)})}
    )
    store_refresh_token(db, from_file, "drive", TOKEN)
    assert load_refresh_token(db, from_file, "drive") == TOKEN

    missing = settings.model_copy(
        update={"secrets": settings.secrets.model_copy(update={"key_file": str(tmp_path / "no")})}
    )
    with pytest.raises(SecretsKeyError, match="cannot read"):
        load_refresh_token(db, missing, "drive")

    monkeypatch.setenv("RENAMERD_SECRETS__KEY", key_file.read_text().strip())
    from_env = Settings(database={"url": settings.database.url})
    assert from_env.secrets.key
    assert load_refresh_token(db, from_env, "drive") == TOKEN


def test_key_file_readable_by_others_is_warned_about(
    settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key_file = tmp_path / "secrets.key"
    key_file.write_text(Fernet.generate_key().decode())
    s = settings.model_copy(
        update={"secrets": settings.secrets.model_copy(update={"key_file": str(key_file)})}
    )
    key_file.chmod(0o600)
    with caplog.at_level("WARNING", logger="renamerd.service.secrets"):
        assert has_key(s)
    assert not caplog.records
    key_file.chmod(0o644)
    with caplog.at_level("WARNING", logger="renamerd.service.secrets"):
        assert has_key(s)
    assert "chmod 600" in caplog.text and key_file.read_text() not in caplog.text


def test_connector_options_fills_stored_token(db: Database, keyed: Settings) -> None:
    assert connector_options(db, keyed, conn(client_id="cid")) == {"client_id": "cid"}
    store_refresh_token(db, keyed, "drive", TOKEN)
    assert connector_options(db, keyed, conn(client_id="cid")) == {
        "client_id": "cid", "refresh_token": TOKEN,
    }
    # the config wins when it names a token itself
    configured = conn(refresh_token={"env": "MY_TOKEN"})
    assert connector_options(db, keyed, configured) == {"refresh_token": {"env": "MY_TOKEN"}}
    assert connector_options(db, keyed, conn(refresh_token_file="/run/t")) == {
        "refresh_token_file": "/run/t"
    }
    # local folders have no token, and need no key
    assert connector_options(db, keyed, conn("local", stable_checks=2)) == {"stable_checks": 2}


def test_connector_options_without_key_when_token_stored(db: Database, keyed: Settings,
                                                         settings: Settings) -> None:
    assert connector_options(db, settings, conn()) == {}  # nothing stored: no key needed
    store_refresh_token(db, keyed, "drive", TOKEN)
    with pytest.raises(SecretsKeyError):
        connector_options(db, settings, conn())


def test_sqlite_file_never_holds_token_in_clear(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    database = Database(url)
    database.upgrade()
    s = Settings(database={"url": url}, secrets={"key": Fernet.generate_key().decode()})
    for i in range(3):
        store_refresh_token(database, s, f"conn{i}", f"{TOKEN}{i}")
    assert load_refresh_token(database, s, "conn2") == TOKEN + "2"
    database.dispose()
    files = [p for p in tmp_path.iterdir() if p.name.startswith("r.db")]
    assert files
    needle = TOKEN.encode()
    for f in files:
        data = f.read_bytes()
        assert needle not in data
        assert needle[:20] not in data
