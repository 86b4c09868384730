"""The deploy/ files: the systemd unit verifies, the image runs as non-root with a health check,
compose wires PostgreSQL and Redis. (No Docker engine runs here, so the image is not built.)"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).parent.parent / "deploy"


def test_systemd_unit_is_hardened() -> None:
    unit = (DEPLOY / "renamerd.service").read_text()
    for directive in ("StateDirectory=renamerd", "ProtectSystem=strict", "NoNewPrivileges=yes",
                      "Restart=on-failure", "Type=notify", "WatchdogSec=", "DynamicUser=yes"):
        assert directive in unit, directive


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_unit_bounds_files_and_memory() -> None:
    unit = (DEPLOY / "renamerd.service").read_text()
    assert "LimitNOFILE=65536" in unit and "MemoryMax=" in unit


def test_systemd_unit_verifies(tmp_path: Path) -> None:
    unit = (DEPLOY / "renamerd.service").read_text()
    # verify needs ExecStart to exist on this machine
    (tmp_path / "renamerd.service").write_text(
        unit.replace("/opt/renamerd/venv/bin/renamerd", shutil.which("true") or "/bin/true")
    )
    proc = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "renamerd.service")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "renamerd.service" not in proc.stderr, proc.stderr


def test_dockerfile_runs_as_non_root_with_healthcheck() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    assert "tesseract-ocr" in text
    assert "\nUSER renamerd" in text
    assert "HEALTHCHECK" in text and "/healthz" in text


def test_compose_has_postgres_and_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"renamerd", "worker", "db", "redis"} <= set(services)
    env = services["renamerd"]["environment"]
    assert env["RENAMERD_DATABASE__URL"].startswith("postgresql+psycopg://")
    assert env["RENAMERD_LIMITS__STORAGE_URL"].startswith("redis://")
