"""Numeric dates as OCR garbles them, put right before the date patterns run: letters read
for digits ("2l/o3/2018", "i0 mar 2018", "2O18"), a round digit for the 0 in a month's tens
("19/62/2018"), a slash read as 1 ("23103/2018"), a dot read as a colon ("12:09.2024") and a
speck read as a dot before a date ("Datum:.01.07.2023"). Every repair keeps the text's length,
so offsets into it stay valid. Pure."""

from __future__ import annotations

import re

from renamerd.engine.fields.date_labels import month_table

#: "o" for a 0 at a number's start or end ("o7/01/18", "2o18")
_OCR_O = re.compile(r"(?<![^\W\d_])o(?=\d)|(?<=\d)o(?![^\W\d_])")
#: "i" or "l" for a 1 at a number's start or end ("i0 mar 2018", "20i8")
_OCR_I = re.compile(r"(?<![^\W\d_])[il](?=\d)|(?<=\d)[il](?![^\W\d_])")
#: (an "i" or "l" beside a digit: written to start with "[il]" so that `re` skips other characters)
_I_BESIDE_DIGIT = re.compile(r"[il](?:\d|(?<=\d[il]))")
#: a slash read as "1" in a numeric date: "23103/2018", "11/0112019" (day, month, year)
_SLASH_AS_ONE = re.compile(
    r"(?<![\w.,/-])(?:(\d{2})1(\d{2})/([0-9oilsbz]{4}|\d{2})|(\d{2})/(\d{2})1(\d{4}))(?![\w/])")
#: a speck read as a dot before a date, after its label's colon or a blank
#: ("Datum:.01.07.2023"), or before the year after a month's name ("17 gennaio .2023")
_SPECK = re.compile(r"(?:(?<=:)|(?<=: ))\.(?=\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?![\d.]))"
                    r"|(?<=[^\W\d_] )\.(?=(?:19|20)\d{2}(?![\d.,]))")
#: a dot read as a colon in a dotted date: "12:09.2024", "12.09:2024" (never a time: a time
#: is not followed by a dot and a year)
_COLON_AS_DOT = re.compile(
    r"(?<![\w.,:/-])(\d{1,2})(?::(\d{1,2})\.|\.(\d{1,2}):)((?:19|20)\d{2})(?![\w/:])")


#: a numeric date as OCR may garble it: letters that look like digits inside its parts
_OCR_TOKEN = re.compile(
    r"(?<![\w.,/-])([0-9oilsbz|]{1,2})([./-])([0-9oilsbz|]{1,2})\2([0-9oilsbz|]{2,4})(?![\w/])"
)
_OCR_TOKEN_DIGITS = str.maketrans("oilsbz|", "0115821")
#: what every such token holds (a quick test that starts on the separator characters)
_OCR_TOKEN_HINT = re.compile(r"([./-])[0-9oilsbz|]{1,2}\1")
#: what every "o" that _OCR_O replaces touches
_O_BESIDE_DIGIT = re.compile(r"o(?:\d|(?<=\do))")  # (starts with "o": fast)


#: a day, a word where a month's name should be (OCR may add a speck: "januart!") and a year
_DAY_WORD_YEAR = re.compile(r"(?<![\w.])\d{1,2}\.? ([a-z]{5,10})([!|]?) (?:19|20)\d{2}(?!\d)")


def with_ocr_digits(folded: str) -> str:
    """`folded` with the letters OCR reads for digits inside dates put right, and a month's
    name it misread by one letter between a day and a year ("5 januart! 2021"; same length)."""
    # (the quick test: a year's blank and first digit)
    text = _DAY_WORD_YEAR.sub(_misread_month, folded) if " 1" in folded or " 2" in folded \
        else folded
    if _O_BESIDE_DIGIT.search(text):
        text = _OCR_O.sub("0", text)  # "o7/01/18", "2O18"
    if _I_BESIDE_DIGIT.search(text):
        text = _OCR_I.sub("1", text)  # "i0 mar 2018", "20i8"
    return ocr_date_tokens(text)  # "2l/03/2018"


def ocr_date_tokens(folded: str) -> str:
    """`folded` text with OCR-garbled numeric dates repaired, same length (offsets kept):
    letters that look like digits inside a date ("2l/o3/2018", "25/12/2ol8"), and a round
    digit misread for the 0 in the tens of the month ("19/62/2018"), a dot read for a colon
    ("12:09.2024") or for a speck before a date ("Datum:.01.07.2023"). A token is only touched
    when it has at least five real digits and its repaired form is a valid date shape."""
    def fix(m: re.Match[str]) -> str:
        whole = m.group(0)
        if sum(ch.isdigit() for ch in whole) < 5:
            return whole
        middle = m.group(3)
        if (middle.isdigit() and m.group(1).isdigit() and m.group(4).isdigit()
                and not (len(middle) == 2 and middle[0] in "689")):
            return whole  # a plain date: nothing to repair
        a, sep, b, c = (m.group(1).translate(_OCR_TOKEN_DIGITS), m.group(2),
                        m.group(3).translate(_OCR_TOKEN_DIGITS),
                        m.group(4).translate(_OCR_TOKEN_DIGITS))
        if len(b) == 2 and b[0] in "689" and b[1] != "0" and 12 < int(a) <= 31:
            b = "0" + b[1]  # the first part is a day, so the middle one is a month
        return f"{a}{sep}{b}{sep}{c}"

    if "/" in folded:
        folded = _SLASH_AS_ONE.sub(_slash_for_one, folded)
    if ":" in folded:
        folded = _COLON_AS_DOT.sub(_dot_for_colon, folded)
    if " ." in folded or ":." in folded:
        folded = _SPECK.sub(" ", folded)
    if not _OCR_TOKEN_HINT.search(folded):
        return folded  # no two like separators around one or two characters: no token
    return _OCR_TOKEN.sub(fix, folded)


def _misread_month(m: re.Match[str]) -> str:
    """The match with its word put right when it is one letter off the names of one month,
    of the same length ("januart" -> "januari"), a speck after it blanked."""
    word = m.group(1)
    table = month_table()
    if word in table:
        return m.group(0)
    near = sorted(name for name in table if len(name) == len(word)
                  and sum(a != b for a, b in zip(name, word, strict=True)) == 1)
    if not near or len({table[name] for name in near}) != 1:
        return m.group(0)  # (no month, or two: "janvier" and "juillet" are both far)
    start, end = m.start(1) - m.start(), m.end(2) - m.start()
    whole = m.group(0)
    return whole[:start] + near[0] + " " * len(m.group(2)) + whole[end:]


def _dot_for_colon(m: re.Match[str]) -> str:
    """"12:09.2024" -> "12.09.2024" when its parts are a day and a month."""
    day, month = int(m.group(1)), int(m.group(2) or m.group(3))
    if not (1 <= day <= 31 and 1 <= month <= 12):
        return m.group(0)
    return m.group(0).replace(":", ".")


def _slash_for_one(m: re.Match[str]) -> str:
    """"23103/2018" -> "23/03/2018" when its parts are a day and a month."""
    day, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(5))
    if not (1 <= int(day) <= 31 and 1 <= int(month) <= 12):
        return m.group(0)
    return m.group(0)[:2] + "/" + m.group(0)[3:5] + "/" + m.group(0)[6:]
