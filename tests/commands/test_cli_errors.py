"""Errors are one line: every command, whatever failed (database down, read-only folder, bad
usage), prints one line on stderr naming it and what to do, and exits 1 (2 for usage and
config); `--verbose` adds the traceback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import run_cli

COMMANDS = [
    ("credits", "show", "ada@example.org"),
    ("users", "list"),
    ("users", "create", "ada@example.org"),
    ("tokens", "create", "ada@example.org"),
    ("tokens", "list", "ada@example.org"),
    ("credits", "grant", "ada@example.org", "5"),
    ("credits", "deduct", "ada@example.org", "1", "--reason", "refund"),
    ("jobs", "list"),
    ("teams", "list"),
    ("db", "upgrade"),
]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def pg_down(tmp_path: Path) -> str:
    cfg = tmp_path / "pg.toml"
    cfg.write_text('[database]\nurl = "postgresql+psycopg://renamerd:s3cret@127.0.0.1:'
                   f'{_closed_port()}/renamerd"\n')
    return str(cfg)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_database_down_is_one_line(pg_down: str, command: tuple[str, ...], capsys) -> None:
    r = run_cli(capsys, "--config", pg_down, *command)
    assert r.code == 1
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert lines[0].startswith("error: the database postgresql+psycopg://renamerd:***@")
    assert "unreachable" in lines[0] and "database.url" in lines[0]
    assert "s3cret" not in r.err and "Traceback" not in r.err


def test_verbose_adds_the_traceback(pg_down: str, capsys) -> None:
    r = run_cli(capsys, "--config", pg_down, "--verbose", "credits", "show", "ada@example.org")
    assert r.code == 1
    assert "Traceback" in r.err and "OperationalError" in r.err
    assert r.err.strip().splitlines()[-1].startswith("error: the database ")


def _as_unprivileged() -> list[str]:
    """A prefix running a command without the power to ignore file permissions (root here)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root without setpriv: a read-only folder cannot be made")
    caps = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]


def _renamerd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from renamerd.commands.cli import main; main(sys.argv[1:])"
    return subprocess.run([*_as_unprivileged(), sys.executable, "-c", code, *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_sqlite_in_a_read_only_folder_is_one_line(tmp_path: Path, existing: bool,
                                                   capsys) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    cfg = tmp_path / "c.toml"
    cfg.write_text('[database]\nurl = "sqlite:///ro/renamerd.db"\n')
    if existing:  # made by its owner, then read-only for everyone (as another user sees it)
        assert run_cli(capsys, "--config", str(cfg), "users", "create", "a@b.c").code == 0
        for file in folder.iterdir():
            file.chmod(0o444)
    folder.chmod(0o555)
    try:
        for command in (("credits", "show", "a@b.c"), ("users", "create", "x@y.z"),
                        ("tokens", "create", "a@b.c"), ("jobs", "list")):
            p = _renamerd("--config", str(cfg), *command, cwd=tmp_path)
            lines = p.stderr.strip().splitlines()
            assert p.returncode == 1, (command, p.stderr)
            assert len(lines) == 1 and lines[0].startswith("error: "), (command, p.stderr)
            assert "Traceback" not in p.stderr
            assert str(folder) in lines[0] or "read-only" in lines[0], lines[0]
    finally:
        folder.chmod(0o755)


def test_usage_and_config_errors_exit_2(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/r.db"\n')
    r = run_cli(capsys, "--config", str(cfg), "tokens", "create", "a@b.c", "--expires-in", "5y")
    assert r.code == 2 and "90d" in r.err
    r = run_cli(capsys, "--config", str(cfg), "credits", "deduct", "a@b.c", "1")
    assert r.code == 2 and "--reason" in r.err
    bad = tmp_path / "bad.toml"
    bad.write_text('[database]\nurl = "not a url"\n')
    r = run_cli(capsys, "--config", str(bad), "users", "list")
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1 and "database.url" in r.err
    r = run_cli(capsys, "--config", str(tmp_path / "missing.toml"), "users", "list")
    assert r.code == 2 and "does not exist" in r.err
