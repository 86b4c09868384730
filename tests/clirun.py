"""Run the `renamerd` CLI in-process, the way a shell would, and capture what it prints."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from renamerd.commands.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    capsys.readouterr()
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)
