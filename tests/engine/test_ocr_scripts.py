"""Scans in non-Latin scripts: tesseract's OSD names the script of a weak first reading and the
page is read again with that script's packs (engine/ocr/scripts.py), in both OCR modes that
run tesseract. Measured on generated invoices (200 dpi scans)."""

from __future__ import annotations

import pytest

from engine.docmaker import make_scan
from renamerd.engine import EngineConfig, RenameOptions, rename
from renamerd.engine.ocr.scripts import parse_osd, pp_ocr_reads, script_pack
from renamerd.engine.ocr.tesseract import candidate_languages, installed_languages

OSD = """Page number: 0
Orientation in degrees: 180
Rotate: 180
Orientation confidence: 3.25
Script: Hangul
Script confidence: 1.26
"""

INVOICES = {
    "ja": ["山田商事株式会社", "千代田区丸の内1-1-1", "", "請求書", "請求書番号: INV-2024-0815",
           "請求日: 2024年3月5日", "合計金額: ¥12,345"],
    "zh": ["华联贸易有限公司", "北京市朝阳区建国路1号", "", "增值税普通发票", "发票号码: 20240815",
           "开票日期: 2024年3月5日", "价税合计: ¥1,234.56"],
    "ko": ["주식회사 한빛전자", "서울특별시 중구 세종대로 1", "", "청구서", "청구서 번호: INV-2024-0815",
           "발행일: 2024년 3월 5일", "합계금액: 12,345원"],
    "hi": ["शर्मा ट्रेडर्स प्राइवेट लिमिटेड", "", "बीजक", "बीजक संख्या: INV-2024-0815",
           "दिनांक: 05/03/2024", "कुल राशि: ₹12,345.00"],
    "ar": ["شركة النور للتجارة", "شارع الملك فهد 1", "", "فاتورة ضريبية",
           "رقم الفاتورة: INV-2024-0815", "تاريخ الفاتورة: 05/03/2024", "الإجمالي: 1,234.56 ر.س"],
}
PACKS = {"ja": "jpn", "zh": "chi_sim", "ko": "kor", "hi": "hin", "ar": "ara"}


def test_osd_output_is_parsed() -> None:
    assert parse_osd(OSD) == (180, "Hangul")
    assert parse_osd(OSD.replace("1.26", "0.05")) == (180, None)  # unsure of the script
    assert parse_osd("") == (0, None)


def test_a_script_maps_to_the_installed_allowed_packs() -> None:
    assert script_pack("Han", ("eng", "jpn", "chi_sim")) == "jpn+chi_sim"
    assert script_pack("Han", ("eng", "chi_sim")) == "chi_sim"
    assert script_pack("Hangul", ("eng", "deu")) is None  # not installed or not allowed
    assert script_pack("Latin", ("eng",)) is None and script_pack(None, ("eng",)) is None
    assert not pp_ocr_reads("kor") and pp_ocr_reads("jpn+chi_sim") and pp_ocr_reads("eng")


def test_the_new_scripts_are_candidates_by_default_and_by_api_code() -> None:
    installed = set(installed_languages())
    defaults = candidate_languages(EngineConfig())
    assert defaults[0] == "eng"  # the primary stays Latin: no slower first pass
    for code in ("jpn", "chi_sim", "chi_tra", "kor", "ara", "hin", "ind"):
        assert (code in defaults) is (code in installed)
    if "chi_tra" in installed:
        assert candidate_languages(EngineConfig(ocr_languages=("zh-Hant", "ko"))) == (
            "chi_tra", "kor")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["tesseract", "auto"])
@pytest.mark.parametrize("lang", sorted(INVOICES))
def test_a_scan_in_another_script_is_read(mode: str, lang: str) -> None:
    if PACKS[lang] not in installed_languages():
        pytest.skip(f"tesseract-ocr-{PACKS[lang].replace('_', '-')} is not installed")
    data = make_scan(INVOICES[lang], dpi=200)
    r = rename(data, "scan_0001.png", RenameOptions(below_confidence="rename"),
               EngineConfig(ocr=mode))
    info = r.extracted_info
    assert info.get("date") == "2024-03-05", info
    assert info["document_type"] == "invoice", info
    assert "amount" in info, info
    if lang != "ar":  # "ر.س" is not read as riyal yet
        assert info.get("currency") in ("JPY", "CNY", "KRW", "INR"), info
    assert r.confidence >= 0.4


@pytest.mark.slow
def test_a_latin_scan_stays_on_its_pack() -> None:
    data = make_scan(["ACME GmbH", "Rechnung", "Rechnungsnummer: RE-77",
                      "Rechnungsdatum: 05.02.2024", "Gesamtbetrag: 119,00 EUR"], dpi=200)
    r = rename(data, "scan.png", RenameOptions(), EngineConfig(ocr="tesseract"))
    assert r.extracted_info.get("date") == "2024-02-05"
    assert r.extracted_info["document_type"] == "invoice"
