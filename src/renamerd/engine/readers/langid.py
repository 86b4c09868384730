"""Guess a text's language from its commonest words, for picking OCR language data.

Works on text OCR'd with the wrong language model too: words are compared without diacritics
(an English model reads "für" as "fur"), so the first OCR pass is enough to choose the second.
"""

from __future__ import annotations

import re
import unicodedata

#: tesseract code -> frequent, fairly distinctive words (documents and letters)
STOPWORDS: dict[str, tuple[str, ...]] = {
    "eng": ("the", "and", "of", "to", "for", "with", "your", "is", "this", "invoice", "date",
            "total", "please", "payment", "due", "amount", "from", "our", "you", "are"),
    "deu": ("der", "die", "das", "und", "für", "mit", "von", "den", "ist", "nicht", "rechnung",
            "datum", "betrag", "bitte", "ihre", "sie", "wir", "zu", "auf", "dem", "des", "gesamt"),
    "fra": ("le", "les", "et", "des", "du", "pour", "avec", "facture", "montant", "votre",
            "est", "une", "sur", "nous", "vous", "au", "aux", "par", "total", "date"),
    "spa": ("el", "los", "las", "y", "del", "para", "con", "factura", "fecha", "importe", "su",
            "por", "una", "que", "usted", "al", "total", "pago"),
    "ita": ("il", "di", "e", "per", "con", "della", "fattura", "data", "importo", "che", "una",
            "sono", "gli", "alla", "totale", "pagamento", "nel"),
    "por": ("o", "os", "do", "da", "para", "com", "fatura", "valor", "não", "uma", "em", "que",
            "dos", "das", "ao", "pagamento", "total", "data"),
    "nld": ("het", "een", "en", "van", "voor", "met", "factuur", "datum", "bedrag", "uw", "niet",
            "wij", "u", "op", "aan", "totaal", "betaling", "de"),
    "pol": ("i", "w", "z", "na", "nie", "się", "faktura", "kwota", "jest", "dla", "oraz", "do",
            "data", "wystawienia", "razem", "płatności", "nr"),
    "swe": ("och", "att", "det", "är", "för", "med", "som", "faktura", "datum", "belopp", "av",
            "till", "på", "inte", "vi", "er", "summa", "betalning"),
    "dan": ("og", "at", "det", "er", "for", "med", "som", "faktura", "dato", "beløb", "af", "til",
            "på", "ikke", "vi", "jeres", "betaling", "i alt"),
    "nor": ("og", "å", "det", "er", "for", "med", "som", "faktura", "dato", "beløp", "av", "til",
            "på", "ikke", "vi", "deres", "betaling", "totalt"),
    "fin": ("ja", "on", "ei", "että", "lasku", "päivämäärä", "summa", "sekä", "tai", "kanssa",
            "myös", "laskun", "eräpäivä", "yhteensä", "maksu"),
    "ces": ("a", "je", "na", "se", "v", "z", "že", "faktura", "datum", "částka", "pro", "nebo",
            "k", "celkem", "platba", "vystavení", "splatnosti"),
    "tur": ("ve", "bir", "bu", "için", "ile", "fatura", "tarih", "tutar", "değil", "toplam",
            "ödeme", "tarihi", "sayın", "adres"),
}

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_FOLD = str.maketrans({"ø": "o", "æ": "ae", "ß": "ss", "ł": "l", "ı": "i", "đ": "d"})


def fold(word: str) -> str:
    """Lower-case `word` and strip its diacritics ("Beløb" -> "belob")."""
    word = word.lower().translate(_FOLD)
    return "".join(
        c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c)
    )


_FOLDED: dict[str, frozenset[str]] = {
    lang: frozenset(fold(w) for w in words) for lang, words in STOPWORDS.items()
}


def guess_language(text: str, candidates: tuple[str, ...] | None = None) -> str | None:
    """Return the tesseract code of the most likely language of `text`, or None if unsure.

    `candidates` restricts the answer. "Unsure" means fewer than 4 stopword hits or a runner-up
    within 25 % of the best. Pure; safe to repeat.
    """
    langs = candidates if candidates is not None else tuple(STOPWORDS)
    words = [fold(w) for w in _WORD.findall(text[:20_000])]
    if not words:
        return None
    scores: list[tuple[int, str]] = []
    for lang in langs:
        table = _FOLDED.get(lang)
        if table is None:
            continue
        scores.append((sum(1 for w in words if w in table), lang))
    if not scores:
        return None
    scores.sort(reverse=True)
    best, lang = scores[0]
    runner_up = scores[1][0] if len(scores) > 1 else 0
    if best < 4 or runner_up * 1.25 >= best:
        return None
    return lang
