"""Moved: tesseract is one OCR backend of `renamerd.engine.ocr` (see engine/ocr/tesseract.py).

Kept so that imports of the former module keep working; new code imports from engine.ocr.
"""

from renamerd.engine.ocr.tesseract import (  # noqa: F401
    LEXICON_LANGUAGES,
    OcrReading,
    OcrSession,
    OcrTimeout,
    OcrUnavailable,
    PageImage,
    candidate_languages,
    installed_languages,
    parse_tsv,
    parse_tsv_full,
    tesseract_cmd,
)
