"""Extraction in the output languages the first corpus lacked (Japanese, Chinese, Korean,
Arabic, Hindi, Indonesian, Brazilian Portuguese), on generated documents: born-digital PDFs
(text layer; Arabic drawn in visual order as PDF producers do) and, slower, scans read by OCR.

Issuers are measured but not held to an aim here: legal forms written before the name
("PT Sinar Jaya", "주식회사 한빛전자") are the issuer reader's (fields/issuer.py) to learn.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.corpus import WORLD_LANGS, samples, write_corpus
from renamerd.engine import EngineConfig
from renamerd.engine.evaluation import Report, evaluate

AIMS = {"date": 0.95, "document_type": 0.95, "amount": 0.95, "currency": 0.95,
        "invoice_number": 0.9}
#: tesseract language data per language (scripts/system-deps installs them)
TESSERACT = {"ja": "jpn", "zh-Hans": "chi_sim", "zh-Hant": "chi_tra", "ko": "kor", "ar": "ara",
             "hi": "hin", "id": "ind", "pt-BR": "por"}


def per_language(report: Report, aims: dict[str, float]) -> list[str]:
    misses = []
    for lang in report.languages():
        for name, aim in aims.items():
            right, total = report.accuracy(name, lang)
            if total and right / total < aim:
                misses.append(f"{lang} {name}: {right}/{total}")
    return misses


def test_born_digital_documents_in_the_new_languages(tmp_path: Path) -> None:
    items = samples(per_language=10, seed=31, languages=WORLD_LANGS)
    report = evaluate(write_corpus(tmp_path, items))
    assert not [d.error for d in report.docs if d.error]
    assert set(report.languages()) == set(WORLD_LANGS)
    assert per_language(report, AIMS) == [], "\n".join(report.lines())
    assert report.median_seconds() < 0.5


@pytest.mark.slow
@pytest.mark.parametrize("code", WORLD_LANGS)
def test_scans_in_the_new_languages_are_read_by_ocr(tmp_path: Path, code: str) -> None:
    """One invoice and one receipt per language, scanned: at least half their dates, types
    and amounts are read (OCR of these scripts is weaker than of Latin ones)."""
    items = [s for s in samples(per_language=4, seed=99, languages=(code,))
             if s.doc_type in ("invoice", "receipt")][:2]
    config = EngineConfig(ocr_languages=(TESSERACT[code], "eng"))
    report = evaluate(write_corpus(tmp_path, items, scans=True, noise=0.01), config=config)
    right = sum(report.accuracy(f)[0] for f in ("date", "document_type", "amount"))
    total = sum(report.accuracy(f)[1] for f in ("date", "document_type", "amount"))
    assert right * 2 >= total, "\n".join(report.lines())
