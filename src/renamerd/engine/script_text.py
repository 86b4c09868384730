"""Page text in the scripts Latin-minded extraction gets wrong, made ready for it:

- Chinese, Japanese and Korean as OCR gives them: tesseract puts blanks between characters
  ("請求 書 番号"), which are removed between two such characters; and reads the yen sign as
  a backslash or "Y" before a number (0x5C is ¥ in Japanese encodings);
- Arabic lines as a PDF text layer gives them, put back in reading order (below).

`page_text(text)` applies both; it is cheap for text without those scripts. Pure.

Arabic: PDF producers draw right-to-left text in visual order; pypdf turns each Arabic run back into
reading order but leaves the runs in visual order, so "تاريخ الفاتورة: 03/05/2024" comes out
as "03/05/2024 :تاريخ الفاتورة", with the label after its value. A page is taken to be in
that order when more of its mixed lines start with a left-to-right run and end with an Arabic
one than the other way round; then the runs of every mixed line are reversed (and the
punctuation between them turned round). Pages already in reading order (OCR output, where the
Arabic label comes first) are left as they are. Pure.
"""

from __future__ import annotations

import re

_ARABIC = "\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff"
#: runs: Arabic words (with the dots and spaces inside them), left-to-right words and numbers
#: (with their inner punctuation), and what is between (blanks, colons...)
_RUNS = re.compile(rf"(?P<rtl>[{_ARABIC}](?:[{_ARABIC}. ]*[{_ARABIC}.])?)"
                   rf"|(?P<ltr>[^\s{_ARABIC}:;،؛]+(?:[ ][^\s{_ARABIC}:;،؛]+)*)"
                   rf"|(?P<neutral>[\s:;،؛]+)")
_HAS_ARABIC = re.compile(f"[{_ARABIC}]")
#: right-to-left letters: Hebrew, Arabic (and the scripts between), their presentation forms
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def right_to_left(text: str) -> bool:
    """`text` holds a right-to-left letter (a PDF's visual-order reading keeps no reading
    order for it)."""
    return _RIGHT_TO_LEFT.search(text) is not None


def _runs(line: str) -> list[re.Match[str]]:
    return list(_RUNS.finditer(line))


def _vote(runs: list[re.Match[str]]) -> int:
    """+1 for a line laid out visually (LTR run first, Arabic last), -1 for reading order."""
    strong = [m.lastgroup for m in runs if m.lastgroup != "neutral"]
    if len(strong) < 2 or "rtl" not in strong or "ltr" not in strong:
        return 0
    if strong[0] == "ltr" and strong[-1] == "rtl":
        return 1
    return -1 if strong[0] == "rtl" and strong[-1] == "ltr" else 0


def reverse_runs(line: str) -> str:
    """The runs of a mixed Arabic line in the opposite order (neutral runs turned round)."""
    runs = _runs(line)
    if sum(1 for m in runs if m.lastgroup != "neutral") < 2 or not _HAS_ARABIC.search(line):
        return line
    return "".join(m.group(0)[::-1] if m.lastgroup == "neutral" else m.group(0)
                   for m in reversed(runs))


def reading_order_text(text: str) -> str:
    """A page's text in reading order (see the module docstring); cheap without Arabic."""
    if not _HAS_ARABIC.search(text):
        return text
    lines = text.split("\n")
    if sum(_vote(_runs(line)) for line in lines) <= 0:
        return text
    return "\n".join(reverse_runs(line) for line in lines)


_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff01-\uff5e"
_HAS_CJK = re.compile(f"[{_CJK}]")
#: blanks between two CJK characters (or a CJK character and a full-width colon)
_CJK_GAP = re.compile(f"(?<=[{_CJK}])[ \t]+(?=[{_CJK}:：])")
#: the yen sign as OCR misreads it, before an amount: "\\98,495", "Y9,849.59"
_YEN = re.compile(r"(?<![A-Za-z0-9])[\\Y](?=\d)")


def join_cjk(text: str) -> str:
    """`text` without the blanks OCR puts between Chinese, Japanese or Korean characters, and
    with "¥" for the backslash or "Y" it reads before an amount."""
    if not _HAS_CJK.search(text):
        return text
    return _YEN.sub("¥", _CJK_GAP.sub("", text))


def page_text(text: str) -> str:
    """A page's text ready for extraction: join_cjk, then reading_order_text."""
    return reading_order_text(join_cjk(text))
