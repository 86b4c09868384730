from __future__ import annotations

from pathlib import Path

import pytest

from clirun import run_cli
from renamerd.config import ConfigFileError, load_settings


def test_defaults_match_the_documented_values(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.source_file is None
    assert (s.server.host, s.server.port) == ("127.0.0.1", 8080)
    assert s.database.url.startswith("sqlite:///")
    assert s.limits.max_upload_mb == 25
    assert s.limits.burst_per_minute == 200
    assert s.limits.concurrent_per_account == 20
    assert s.limits.daily_per_account == 10000
    assert s.credits.enabled is True
    assert s.credits.signup_grant == 50
    assert s.credits.validity_days == 365
    assert s.fetch.allow_networks == []


def test_example_config_is_valid_and_documents_every_key() -> None:
    example = Path(__file__).parent.parent / "config.example.toml"
    s = load_settings(example)
    assert s.connections[0].provider == "local"
    text = example.read_text()
    for section, model in s:
        if section in ("connections", "source_file"):
            continue
        if section == "providers":  # tables of provider options, shown commented out
            assert "[providers.gdrive]" in text
            continue
        assert f"[{section}]" in text, section
        for name, field in type(model).model_fields.items():
            key = field.alias or name  # [mail] from (a Python keyword)
            assert f"\n{key} =" in text or f"\n# {key} =" in text, f"{section}.{key} undocumented"


def test_file_lookup_order(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.toml").write_text("[server]\nport = 9001\n")
    assert load_settings().server.port == 9001
    other = tmp_path / "other.toml"
    other.write_text("[server]\nport = 9002\n")
    monkeypatch.setenv("RENAMERD_CONFIG", str(other))
    assert load_settings().server.port == 9002
    explicit = tmp_path / "explicit.toml"
    explicit.write_text("[server]\nport = 9003\n")
    assert load_settings(explicit).server.port == 9003


def test_environment_overrides_file_with_json_lists(tmp_path: Path, monkeypatch) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[server]\nport = 9001\n[fetch]\nallow_networks = ["10.0.0.0/8"]\n')
    monkeypatch.setenv("RENAMERD_SERVER__PORT", "9100")
    monkeypatch.setenv("RENAMERD_FETCH__ALLOW_NETWORKS", '["192.168.7.0/24", "fd00::/8"]')
    monkeypatch.setenv("RENAMERD_CREDITS__ENABLED", "false")
    s = load_settings(cfg)
    assert s.server.port == 9100
    assert s.fetch.allow_networks == ["192.168.7.0/24", "fd00::/8"]
    assert s.credits.enabled is False


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("[server]\nport = 'eighty'\n", "server.port"),
        ("[limits]\nmax_upload_mbb = 3\n", "limits.max_upload_mbb: unknown setting"),
        ("[fetch]\nallow_networks = ['not-a-net']\n", "fetch.allow_networks"),
        ("[[connections]]\nname='a'\nprovider='local'\nowner='a@b.c'\nwatch='/x'\nstrategy='by_moon'\n",
         "connection 'a': strategy: "),
        ("[[connections]]\nname='inbox'\nprovider='locl'\nowner='a@b.c'\nwatch='/x'\n",
         "connection 'inbox': provider: unknown provider 'locl' (registered: "),
        ("[[connections]]\nprovider='local'\nowner='a@b.c'\nwatch='/x'\n",
         "connection #1: name: Field required"),
        ("[server\n", "not valid TOML"),
    ],
)
def test_wrong_config_is_one_line_naming_key_and_file(tmp_path: Path, body: str, needle: str,
                                                       capsys) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(body)
    with pytest.raises(ConfigFileError) as info:
        load_settings(cfg)
    message = str(info.value)
    assert needle in message and str(cfg) in message and "\n" not in message
    result = run_cli(capsys, "--config", str(cfg), "users", "list")
    assert result.code == 2
    assert needle in result.err and "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_an_environment_variable_of_an_unknown_section_is_an_error(
        tmp_path: Path, monkeypatch, capsys) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[server]\nport = 9001\n")
    # not settings (no "__"): read elsewhere, never an error here
    for name in ("RENAMERD_CONFIG", "RENAMERD_TOKEN", "RENAMERD_LLM_API_KEY", "RENAMERD_SOFFICE"):
        monkeypatch.setenv(name, "x" if name != "RENAMERD_CONFIG" else str(cfg))
    monkeypatch.setenv("RENAMERD_SERVER__PORT", "9100")
    assert load_settings(cfg).server.port == 9100
    monkeypatch.setenv("RENAMERD_LIMIT__MAX_UPLOAD_MB", "1")
    with pytest.raises(ConfigFileError) as info:
        load_settings(cfg)
    assert str(info.value).startswith(
        "config error in the environment: RENAMERD_LIMIT__MAX_UPLOAD_MB: unknown section 'limit'")
    assert "limits" in str(info.value)
    result = run_cli(capsys, "--config", str(cfg), "users", "list")
    assert result.code == 2 and "RENAMERD_LIMIT__MAX_UPLOAD_MB" in result.err
