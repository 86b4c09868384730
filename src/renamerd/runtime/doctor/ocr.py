"""Checks of reading scans: tesseract with the languages the config asks for, and the OCR
backend `engine.ocr` names (tesseract, or RapidOCR with its models)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

from renamerd.config import Settings
from renamerd.engine.readers.ocr import (
    LEXICON_LANGUAGES,
    OcrUnavailable,
    installed_languages,
    tesseract_cmd,
)
from renamerd.runtime.doctor.findings import Finding, error, ok, warning

#: OCR backends and the Python packages each needs besides tesseract
_BACKEND_PACKAGES = {"rapidocr": ("rapidocr", "onnxruntime")}


def check_tesseract(settings: Settings) -> Finding:
    """tesseract runs, and has the languages `engine.ocr_languages` asks for (when empty: at
    least one of the lexicon's)."""
    try:
        cmd = tesseract_cmd()
        version = subprocess.run([cmd, "--version"], capture_output=True, text=True,
                                 timeout=30, check=False).stdout.splitlines()[:1]
        installed = set(installed_languages(cmd))
    except (OcrUnavailable, OSError, subprocess.SubprocessError) as err:
        return error("tesseract", f"{err}: install it (Debian: apt-get install tesseract-ocr "
                                  "tesseract-ocr-eng ...; scripts/system-deps does)")
    name = version[0] if version else "tesseract"
    asked = [LEXICON_LANGUAGES.get(code, code) for code in settings.engine.ocr_languages]
    if asked:
        missing = [code for code in asked if code not in installed]
        if missing:
            packages = " ".join(f"tesseract-ocr-{code.replace('_', '-')}" for code in missing)
            return error("tesseract", f"{name}: engine.ocr_languages asks for "
                                      f"{', '.join(missing)}, not installed: apt-get install "
                                      f"{packages}")
        return ok("tesseract", f"{name}; languages {', '.join(asked)}")
    known = [code for code in LEXICON_LANGUAGES.values() if code in installed]
    if not known:
        return error("tesseract", f"{name} has none of the lexicon's languages "
                                  f"({', '.join(LEXICON_LANGUAGES.values())}): apt-get install "
                                  "tesseract-ocr-eng (and the others you need)")
    absent = [code for code in LEXICON_LANGUAGES.values() if code not in installed]
    note = f" (not installed: {', '.join(absent)})" if absent else ""
    return ok("tesseract", f"{name}; {len(known)} languages: {', '.join(known)}{note}")


def check_backend(settings: Settings) -> Finding:
    """The OCR backend of `engine.ocr` (tesseract when the setting is absent): its packages
    importable and its models present."""
    backend = str(getattr(settings.engine, "ocr", "tesseract"))
    if backend == "tesseract":
        return ok("ocr backend", "tesseract (see the tesseract check)")
    problem = rapidocr_problem()
    if problem is None:
        return ok("ocr backend", f"{backend}: RapidOCR and its models are installed")
    if backend == "auto":
        return warning("ocr backend", f"auto: {problem}; scans are read by tesseract alone")
    return error("ocr backend", f"{backend}: {problem}")


def rapidocr_problem() -> str | None:
    """Why RapidOCR cannot run here (a package or its models missing), or None."""
    for package in _BACKEND_PACKAGES["rapidocr"]:
        if importlib.util.find_spec(package) is None:
            return (f"the Python package {package} is not installed: pip install rapidocr "
                    "onnxruntime into renamerd's environment")
    spec = importlib.util.find_spec("rapidocr")
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    models = [m for root in roots for m in Path(root).rglob("*.onnx")]
    if not models:
        return "the rapidocr package ships no .onnx models here: reinstall it"
    return None
