"""`make lint` (ruff, and mypy in strict mode) stays clean: part of the suite, so `make test` and CI
keep the tree that way. The commands are read from the Makefile's `lint` recipe, so the suite
runs exactly what `make lint` runs."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
BIN = Path(sys.executable).parent


def lint_commands() -> dict[str, list[str]]:
    """The `make lint` recipe, by tool name ("ruff", "mypy"), with `$(VENV)/bin/` pointing at the
    environment running the tests."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("lint:"))
    commands: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        argv = shlex.split(line.strip().lstrip("@").replace("$(VENV)/bin/", f"{BIN}/"))
        commands[Path(argv[0]).name] = argv
    return commands


def test_make_lint_runs_ruff_and_mypy_on_src_and_connectors() -> None:
    commands = lint_commands()
    assert set(commands) == {"ruff", "mypy"}, commands
    for argv in commands.values():
        assert {"src", "connectors"} <= set(argv), argv


def test_mypy_is_strict() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config.get("strict") is True


def test_ruff_is_clean() -> None:
    proc = subprocess.run(lint_commands()["ruff"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_is_clean() -> None:
    proc = subprocess.run(lint_commands()["mypy"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
