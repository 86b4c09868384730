"""DOC, XLS and PPT: converted to PDF by LibreOffice when it is installed.

Each conversion runs `soffice --headless --convert-to pdf` in its own temporary directory with
its own user profile (`-env:UserInstallation`), so parallel conversions do not share a profile
lock, and with a timeout. Without LibreOffice these formats raise UnsupportedDocument.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from renamerd.engine.types import EngineConfig, UnreadableDocument, UnsupportedDocument

#: binaries tried in order; RENAMERD_SOFFICE overrides
SOFFICE_NAMES = ("soffice", "libreoffice")


def find_soffice() -> str | None:
    """Path of the LibreOffice binary, or None when it is not installed."""
    override = os.environ.get("RENAMERD_SOFFICE")
    if override:
        return shutil.which(override)
    for name in SOFFICE_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def convert_command(soffice: str, source: Path, workdir: Path) -> list[str]:
    """The argv converting `source` to PDF inside `workdir` (output: workdir/out/<stem>.pdf)."""
    profile = (workdir / "profile").as_uri()
    return [
        soffice, f"-env:UserInstallation={profile}", "--headless", "--norestore",
        "--nolockcheck", "--convert-to", "pdf", "--outdir", str(workdir / "out"), str(source),
    ]


def convert_to_pdf(data: bytes, kind: str, config: EngineConfig) -> bytes:
    """Convert a DOC/XLS/PPT to PDF bytes.

    Raises UnsupportedDocument when LibreOffice is missing, UnreadableDocument when the
    conversion fails or exceeds `config.ocr_timeout_s`. Safe to repeat (no shared state).
    """
    soffice = find_soffice()
    if soffice is None:
        raise UnsupportedDocument(
            f"{kind.upper()} files need LibreOffice, which is not installed on this server "
            "(install libreoffice-core, or save the file as PDF or Office Open XML)"
        )
    with tempfile.TemporaryDirectory(prefix="renamerd-soffice-") as tmp:
        workdir = Path(tmp)
        source = workdir / f"document.{kind}"
        source.write_bytes(data)
        proc = subprocess.Popen(
            convert_command(soffice, source, workdir), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            proc.wait(timeout=config.ocr_timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise UnreadableDocument(
                f"LibreOffice took longer than {config.ocr_timeout_s:g} s converting the file"
            ) from None
        out = workdir / "out" / "document.pdf"
        if proc.returncode != 0 or not out.is_file():
            raise UnreadableDocument(f"LibreOffice could not convert the {kind.upper()} file")
        return out.read_bytes()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the converter and the helpers it spawned (its own session), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
