"""The confidence policy, and the meaningful part of an original file name.

A document whose overall confidence is below the threshold is not renamed unless the policy
says so (`below_confidence`):

=======  =====================================================  ===========
policy   what happens                                           credit
=======  =====================================================  ===========
keep     the original name, no folder: left where it is         not charged
review   the original name, in the review folder ("Review")     not charged
rename   renamed anyway, like a confident document              charged
=======  =====================================================  ===========

Independently of the policy, a field that could not be read never replaces a meaningful part
of the original name: "Garden notes May.pdf" keeps "Garden notes May" where its date, issuer
or type would have stood. A name is meaningful when it has at least one real word: three or
more letters, not a scanner, camera or app default ("scan_0001", "IMG_2024", "document(3)",
"Screenshot 2024-05-03"), not a month name or a document-type word, not mixed with digits.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from renamerd.engine.cleaning import clean_filename
from renamerd.engine.lexicon import LANGUAGES, fold, load

#: words of default names given by scanners, cameras, phones, browsers and office apps
_GENERIC = """
scan scans scanned scanner scansione escaneo escaneado digitalizacao digitalizado numerisation
numerise img image images imag dsc dscn dscf dcim pxl mvimg vid photo photos foto fotos pic pics
picture pict bild bilder imagen imagem immagine afbeelding document documents doc docs dokument
dokumente documento documentos file files datei dateien fichier fichiers archivo arquivo bestand
untitled unnamed unbenannt sans titre sin titulo senza titolo naamloos page pages seite copy
kopie copie copia new neu nouveau nuevo nuovo download downloads attachment anhang piece jointe
screenshot screen shot bildschirmfoto capture captura whatsapp signal telegram cam camera
camscanner genius scanbot lens adobe acrobat office word excel powerpoint microsoft outlook mail
email fax print printout export output default temp tmp test final version rev draft item pdf
jpg jpeg png tif tiff heic heif docx xlsx pptx odt ods txt am pm at um
"""
GENERIC_WORDS = frozenset(_GENERIC.split())


@dataclass(frozen=True)
class Policy:
    """The policy in force for one rename: `below` ("keep" | "review" | "rename"), the
    threshold and the review folder."""

    below: str
    threshold: float
    review_folder: str

    def applies(self, confidence: float) -> bool:
        """True when the document keeps its name (keep/review and confidence below)."""
        return self.below != "rename" and confidence < self.threshold


@functools.cache
def _uninformative_words() -> frozenset[str]:
    """Generic words, month names and single document-type words of every lexicon language."""
    words = set(GENERIC_WORDS)
    for lang in LANGUAGES:
        table = load(lang)
        for names in table["months"]:
            words.update(fold(n) for n in names)
        for phrases in table["types"].values():
            words.update(fold(p.lstrip("^*")) for p in phrases if " " not in p)
        for phrases in table.get("instructions", {}).get("types_plural", {}).values():
            words.update(fold(p) for p in phrases if " " not in p)
    words.update(["invoice", "invoices", "receipt", "receipts", "bill", "statement"])
    return frozenset(words)


_WORD = re.compile(r"[^\W_]+")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def split_name(filename: str) -> tuple[str, str]:
    """(stem, extension with its dot) of a cleaned file name; "" extension when it has none."""
    clean = clean_filename(filename)
    stem, dot, ext = clean.rpartition(".")
    if dot and stem and 0 < len(ext) <= 5 and ext.isalnum():
        return stem.strip(), f".{ext}"
    return clean.strip(), ""


def meaningful_stem(filename: str) -> str | None:
    """The stem of `filename` when it says something a person wrote ("Garden notes May"),
    None for scanner, camera and app defaults ("scan_0001", "IMG_2024", "document(3)"). Pure."""
    stem, _ext = split_name(filename)
    uninformative = _uninformative_words()
    for word in _WORD.findall(stem):
        if any(ch.isdigit() for ch in word):
            continue  # "IMG20240503", "a3f9", "0001": codes, not words
        if _UNSPACED.search(word):
            if len(word) >= 2 and fold(word) not in uninformative:
                return stem
            continue
        if len(word) >= 3 and fold(word) not in uninformative:
            return stem
    return None


def unread_fields(fields: tuple[str, ...] | list[str], values: Mapping[str, Any]) -> list[str]:
    """The fields of a name pattern that could not be read: absent, or the type "other"
    (year and month count as the date)."""
    out: list[str] = []
    for name in fields:
        key = "date" if name in ("year", "month") else name
        value = values.get(key)
        unread = value in (None, "") or (key == "document_type" and value == "other")
        if unread and key not in out:
            out.append(key)
    return out


def core_unread(values: Mapping[str, Any]) -> list[str]:
    """The core fields (date, issuer, document_type) that could not be read."""
    return unread_fields(("date", "issuer", "document_type"), values)
