"""Words a PDF's text layer parts with blanks, put back together.

pypdf writes a blank wherever the gap between two glyphs is wider than it expects inside a
word. Two kinds of type widen the gaps inside words, and then each real blank between words
comes out twice: capitals spaced apart (CSS `letter-spacing`: "H Ô T E L  L E  M A R A I S")
and small capitals drawn as a large capital and smaller ones (a browser's
`font-variant: small-caps`: "R EDWOOD  & P INE  C ABINETRY"). On a line whose words stand two
blanks apart, the single blanks inside such words are glyph gaps: `joined_words` takes them out.

Some producers draw a blank as a tab (Debian's wkhtmltopdf, which prints Odoo's invoices, maps
the space glyph so: "Harrowgate\tJoinery\tLtd"): `tabs_as_blanks` writes them as blanks.
"""

from __future__ import annotations

import re

_WORD_GAP = re.compile(r" {2,}")
_TAB_BETWEEN = re.compile(r"(?<=\S)\t(?=\S)")
_BLANK_BETWEEN = re.compile(r"(?<=\S) (?=\S)")
#: a spaced-out word with this many letters is one on a line of its own ("P A R I S")
LONG_SPACED = 4


def joined_words(text: str) -> str:
    """`text` with its letter-spaced and small-capital words written whole, on the lines
    where two or more are, or one of at least LONG_SPACED letters; other lines as they are.
    Pure."""
    if "  " not in text:
        return text
    return "\n".join(_joined(line) if "  " in line else line for line in text.split("\n"))


def blanks_are_tabs(text: str) -> bool:
    """Most words of `text` stand a tab apart, not a blank. Pure."""
    return "\t" in text and (len(_TAB_BETWEEN.findall(text))
                             > len(_BLANK_BETWEEN.findall(text)))


def tabs_as_blanks(text: str) -> str:
    """`text` with each tab between two words written as a blank when `blanks_are_tabs`;
    else `text` as it is (a tab between columns stays). Pure."""
    return _TAB_BETWEEN.sub(" ", text) if blanks_are_tabs(text) else text


def _joined(line: str) -> str:
    indent = line[:len(line) - len(line.lstrip(" "))]
    words = _WORD_GAP.split(line.strip(" "))
    spaced = [_despaced(word) for word in words]
    capitals = [_small_capitals(word) for word in words]
    parted = sum(a != word or b != word for a, b, word in zip(spaced, capitals, words, strict=True))
    long_spaced = any(a != word and sum(c.isalpha() for c in a) >= LONG_SPACED
                      for a, word in zip(spaced, words, strict=True))
    if parted < 2 and not long_spaced:
        return line
    return indent + " ".join(a if a != word else b
                             for a, b, word in zip(spaced, capitals, words, strict=True))


def _despaced(word: str) -> str:
    """`word` without its blanks when it is letter-spaced ("L E", "S. R . L ."); else `word`."""
    pieces = word.split(" ")
    if len(pieces) >= 2 and all(_glyph(p) for p in pieces) and any(p[0].isalpha()
                                                                   for p in pieces):
        return "".join(pieces)
    return word


def _small_capitals(word: str) -> str:
    """`word` with each capital drawn apart from the small capitals after it joined to them
    ("O FFICINA" -> "OFFICINA", "& P INE" -> "& PINE"); else `word`."""
    pieces = word.split(" ")
    out: list[str] = []
    for piece in pieces:
        last = out[-1] if out else ""
        if (len(last) == 1 and last.isalpha() and last.isupper() and len(piece) >= 2
                and piece[0].isalpha() and piece.isupper()
                and not (len(out) >= 2 and len(out[-2]) == 1 and out[-2].isalpha())):
            out[-1] = last + piece
        else:
            out.append(piece)
    return " ".join(out)


def _glyph(piece: str) -> bool:
    """One letter or mark, a letter with its dot ("S."), never a digit."""
    if len(piece) == 1:
        return not piece.isdigit() and not piece.isspace()
    return len(piece) == 2 and piece[0].isalpha() and piece[1] == "."
