"""What of a segment of a line may be the issuer's name: pieces cut off it that name no one.
Pure functions of text (`fields/issuer.py` calls them on each candidate segment)."""

from __future__ import annotations

import re

from renamerd.engine.fields.doctype import type_pattern
from renamerd.engine.fields.names import legal_suffix
from renamerd.engine.lexicon import fold

#: one word in capitals printed letter-spaced, as till slips and logos print a shop's name
#: ("R E W E", "K Ō W H A I"): a quick test, then each letter is looked at
_LETTER_SPACED = re.compile(r"(?:[^\W\d_] ){2,}[^\W\d_]")


def despaced(text: str) -> str:
    """`text`, or the word it prints letter-spaced in capitals ("R E W E" -> "REWE")."""
    if _LETTER_SPACED.fullmatch(text) and text.isupper():
        return text.replace(" ", "")
    return text


#: a registration id after its label, then a blank ("CIF A41223344 ")
_ID_THEN_BLANK = re.compile(r"[\s:.#]*\S*\d\S*\s+(?=[^\W\d_])")


def cut_registration(text: str, registration: re.Pattern[str]) -> str | None:
    """`text` up to a registration label ("ACME Ltd Company Reg. No 123" -> "ACME Ltd"), or
    after the label and its id when a name with its legal form follows them (the customer's id
    and the seller's name side by side: "CIF A41223344 Traducciones Núñez y Asociados, S.L.");
    None when nothing is left."""
    reg = registration.search(fold(text))
    if reg is None:
        return text
    before = text[:reg.start()].rstrip(" (,;:-")
    if before:
        return before
    after = _ID_THEN_BLANK.match(text, reg.end())
    rest = text[after.end():] if after else ""
    return rest if rest and legal_suffix(rest) is not None else None


#: what follows a document's title ending a line: its number ("INVOICE #5371", "Rechnung
#: Nr. 17"), nothing else
_TITLE_TAIL = re.compile(r"\s*(?:[:#]|no\.?|nr\.?|n[°º]\.?)?\s*[\w/.-]*\d[\w/.-]*\s*")


#: a word in capitals ending a text right after another word's small letter ("LdFATURA")
_GLUED_CAPITALS = re.compile(r"(?<=[^\W\d_])[^\W\d_a-zß-ÿ]{5,}$")


def before_title(segment: str, language: str) -> str:
    """The name before a document's title and number sharing its line ("Epic Dental Lab
    INVOICE #5371" -> "Epic Dental Lab"); `segment` as it is otherwise (also when the title
    opens it: "Tax Invoice No 12" is all title). A title in capitals OCR glued to the last
    word of a name of several ("Unipessoal LdFATURA") is cut off too ("SmartINVOICE" stays),
    and so is a title ending the line in other letters than the name's, as a logo and a heading
    side by side are read ("ÅNGSTRÖM MÅLERI Faktura", "Epic Dental Lab INVOICE"), or in the
    same letters after a name of two words or more without a type word ("PLOMBERIE MARTIN
    FACTURE", "Tassar & Trim Kvitto")."""
    glued = _GLUED_CAPITALS.search(segment)
    if (glued and segment[glued.start() - 1].islower() and " " in segment[:glued.start()]
            and type_pattern(language).fullmatch(fold(glued.group(0)))):
        return segment[:glued.start()]
    name, _, last = segment.rpartition(" ")
    if (len(last) >= 5 and sum(ch.isalpha() for ch in name) >= 3 and last.isalpha()
            and (name.isupper() != last.isupper() and any(ch.islower() for ch in name + last)
                 or len(name.split()) >= 2 and not type_pattern(language).search(fold(name)))
            and type_pattern(language).fullmatch(fold(last))):
        return name.rstrip(" -–|:")
    if len(segment) > 80 or not any(ch.isdigit() for ch in segment):
        return segment
    folded = fold(segment)
    for m in type_pattern(language).finditer(folded):
        if (len(m.group(0)) >= 5 and (m.start() == 0 or folded[m.start() - 1].isspace())
                and _TITLE_TAIL.fullmatch(folded, m.end())):
            return segment[:m.start()].rstrip(" -–|:") if m.start() >= 3 else segment
    return segment
