"""One database for the service and its admin: where the config comes from, relative paths in it,
and what `--verbose` tells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import renamerd.config.loading as config_loading
from clirun import run_cli
from renamerd.config import find_config_file, load_settings

REPO = Path(__file__).resolve().parents[2]


def test_lookup_order_ends_with_the_system_config(tmp_path: Path, monkeypatch) -> None:
    system = tmp_path / "etc" / "config.toml"
    system.parent.mkdir()
    system.write_text("[server]\nport = 9201\n")
    monkeypatch.setattr(config_loading, "SYSTEM_CONFIG", system)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    assert find_config_file() == system
    assert load_settings().server.port == 9201
    (cwd / "config.toml").write_text("[server]\nport = 9202\n")
    assert load_settings().server.port == 9202  # ./config.toml first
    env = tmp_path / "env.toml"
    env.write_text("[server]\nport = 9203\n")
    monkeypatch.setenv("RENAMERD_CONFIG", str(env))
    assert load_settings().server.port == 9203
    assert load_settings(system).server.port == 9201  # --config wins
    system.unlink()
    (cwd / "config.toml").unlink()
    monkeypatch.delenv("RENAMERD_CONFIG")
    assert find_config_file() is None


def test_relative_paths_in_a_file_are_relative_to_its_folder(tmp_path: Path, monkeypatch) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    cfg = etc / "config.toml"
    cfg.write_text(
        '[database]\nurl = "sqlite:///data/renamerd.db"\n'
        '[daemon]\nstate_dir = "state"\n'
        '[secrets]\nkey_file = "../keys/secret.key"\n'
        '[[connections]]\nname = "inbox"\nprovider = "local"\nowner = "a@b.c"\n'
        'watch = "./inbox"\ntarget = "/srv/library"\n'
        '[connections.options]\nca_bundle = "ca.pem"\nrefresh_token = { file = "token" }\n')
    monkeypatch.chdir(tmp_path)
    s = load_settings(cfg)
    assert s.database.url == f"sqlite:///{etc}/data/renamerd.db"
    assert s.daemon.state_dir == str(etc / "state")
    assert s.secrets.key_file == str(tmp_path / "keys" / "secret.key")
    conn = s.connections[0]
    assert (conn.watch, conn.target) == (str(etc / "inbox"), "/srv/library")
    assert conn.options == {"ca_bundle": str(etc / "ca.pem"),
                            "refresh_token": {"file": str(etc / "token")}}
    # the environment and the embedded defaults stay relative to the current folder
    monkeypatch.setenv("RENAMERD_DAEMON__STATE_DIR", "./here")
    assert load_settings(cfg).daemon.state_dir == "./here"
    monkeypatch.delenv("RENAMERD_DAEMON__STATE_DIR")
    defaults = config_loading.Settings()
    assert defaults.database.url == "sqlite:///./var/renamerd.db"
    for url in ("sqlite://", "sqlite:///:memory:", "postgresql+psycopg://u:p@h/db"):
        cfg.write_text(f'[database]\nurl = "{url}"\n')
        assert load_settings(cfg).database.url == url


def test_the_example_config_resolves_to_the_repository_as_make_run_uses_it(
        monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    s = load_settings("config.example.toml")
    assert s.database.url == f"sqlite:///{REPO}/var/renamerd.db"
    assert s.daemon.state_dir == str(REPO / "var" / "state")
    assert s.connections[0].watch == str(REPO / "var" / "inbox")


def test_every_command_finds_the_same_database_from_any_folder(tmp_path: Path, monkeypatch,
                                                               capsys) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    cfg = etc / "config.toml"
    cfg.write_text('[database]\nurl = "sqlite:///renamerd.db"\n')
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    monkeypatch.chdir(etc)
    assert run_cli(capsys, "--config", str(cfg), "users", "create", "ada@example.org").code == 0
    monkeypatch.chdir(elsewhere)
    r = run_cli(capsys, "--config", str(cfg), "--verbose", "users", "list", "--json")
    assert r.code == 0, r.err
    assert [u["email"] for u in json.loads(r.out)] == ["ada@example.org"]
    assert f"renamerd: config: {cfg}" in r.err
    assert f"renamerd: database: sqlite:///{etc}/renamerd.db" in r.err
    assert not (elsewhere / "var").exists() and not (elsewhere / "renamerd.db").exists()


def test_verbose_hides_the_database_password(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[database]\nurl = "postgresql+psycopg://renamerd:s3cret@127.0.0.1:1/x"\n')
    r = run_cli(capsys, "users", "list", "--config", str(cfg), "-v")
    assert "renamerd:***@127.0.0.1:1/x" in r.err and "s3cret" not in r.err


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_is_global(tmp_path: Path, capsys, where: str) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/r.db"\n')
    args = ["--verbose", "users", "list"] if where == "before" else ["users", "list", "--verbose"]
    r = run_cli(capsys, "--config", str(cfg), *args)
    assert r.code == 0 and "renamerd: database: " in r.err
    r = run_cli(capsys, "--config", str(cfg), "users", "list")
    assert r.err == ""
