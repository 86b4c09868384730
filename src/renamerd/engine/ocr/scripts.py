"""Which tesseract language data reads a page of a non-Latin script.

A document's first OCR'd page is read with a Latin-script pack (``eng`` unless configured);
Japanese, Chinese, Korean, Arabic or Hindi read that way give little text of low confidence.
Such a weak reading asks tesseract's OSD (`--psm 0 -l osd`), which names the page's script as
well as its orientation; the page is then read again with the pack(s) of that script, when they
are installed and allowed (`EngineConfig.ocr_languages`):

==============================  ====================  ==================================
OSD script                      packs                 Debian packages
==============================  ====================  ==================================
Han (kanji or hanzi)            jpn+chi_sim           tesseract-ocr-jpn, -chi-sim
Japanese, Hiragana, Katakana    jpn                   tesseract-ocr-jpn
Hangul, Korean                  kor                   tesseract-ocr-kor
Arabic                          ara                   tesseract-ocr-ara
Devanagari                      hin                   tesseract-ocr-hin
==============================  ====================  ==================================

Han is read with Japanese and Simplified Chinese together: OSD cannot tell a kanji-heavy
Japanese page from a Chinese one, and the pair reads both as well as the right pack alone
(measured on generated invoices; one pass, about 0.8 s a page). Tesseract's automatic layout
misses lines of Korean pages that one block of text (`--psm 6`) reads, so a script reading
with few words is read again that way. Pure.
"""

from __future__ import annotations

import re

#: OSD script names -> tesseract packs that read them, in the order given to tesseract
SCRIPT_PACKS: dict[str, tuple[str, ...]] = {
    "Han": ("jpn", "chi_sim"),
    "Japanese": ("jpn",),
    "Hiragana": ("jpn",),
    "Katakana": ("jpn",),
    "Hangul": ("kor",),
    "Korean": ("kor",),
    "Arabic": ("ara",),
    "Devanagari": ("hin",),
}
#: packs of scripts PP-OCR's shipped models (Chinese and English) do not read: a page read with
#: one of them is not given to PP-OCR as a second reader (its reading would be noise)
NOT_FOR_PP_OCR = frozenset({"kor", "ara", "hin"})
#: packs of the scripts above: a page read with one of them keeps tesseract's own order of
#: blocks (its lines run right to left, or its words are not split by blanks)
NOT_LATIN = frozenset(pack for packs in SCRIPT_PACKS.values() for pack in packs)
#: below this OSD script confidence the script is not trusted
MIN_SCRIPT_CONFIDENCE = 0.2

_ROTATE = re.compile(r"Rotate:\s*(\d+)")
_SCRIPT = re.compile(r"Script:\s*(\S+)")
_SCRIPT_CONF = re.compile(r"Script confidence:\s*([0-9.]+)")


def parse_osd(out: str) -> tuple[int, str | None]:
    """Tesseract OSD output -> (clockwise rotation to apply, script name or None when OSD
    named none or was unsure of it)."""
    rotate = _ROTATE.search(out)
    script = _SCRIPT.search(out)
    conf = _SCRIPT_CONF.search(out)
    sure = script is not None and (conf is None or float(conf.group(1)) >= MIN_SCRIPT_CONFIDENCE)
    return (int(rotate.group(1)) % 360 if rotate else 0,
            script.group(1) if script is not None and sure else None)


def pp_ocr_reads(lang: str) -> bool:
    """Whether PP-OCR can read a page tesseract read with `lang` ("kor", "eng+deu")."""
    return _none_of(lang, NOT_FOR_PP_OCR)


def latin(lang: str) -> bool:
    """Whether `lang` ("eng", "deu+fra") reads only Latin-script pages."""
    return _none_of(lang, NOT_LATIN)


def _none_of(lang: str, packs: frozenset[str]) -> bool:
    return not any(code in packs for code in lang.split("+"))


def script_pack(script: str | None, candidates: tuple[str, ...]) -> str | None:
    """The tesseract language string ("jpn+chi_sim", "kor") for a page of `script`, from the
    allowed installed `candidates`; None for a Latin or unknown script, or none installed."""
    packs = [p for p in SCRIPT_PACKS.get(script or "", ()) if p in candidates]
    return "+".join(packs) or None
