"""ruff and mypy stay clean: part of the suite, so CI keeps the tree that way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
BIN = Path(sys.executable).parent


def test_ruff_is_clean() -> None:
    proc = subprocess.run(
        [str(BIN / "ruff"), "check", "--output-format", "concise", "src", "connectors", "tests",
         "bench"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_is_clean() -> None:
    proc = subprocess.run(
        [str(BIN / "mypy"), "src", "connectors"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
