"""What a company name looks like, for the issuer scorer (issuer.py): legal forms (with
their OCR misreadings fixed), OCR debris, words that name a kind of business or an address,
and the clean-up of a value. Pure functions and cached patterns built from the lexicon."""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import LANGUAGES, alternation, common, fold, load

_RX0 = re.compile(r"[^\W\d_]{3,}")
_FIVE_LETTERS = re.compile(r"[^\W\d_]{5}")
_RX1 = re.compile(r"\s+")
_LABEL_PREFIX = re.compile(r"^[^\w]*(?:(?:from|von|de|da|van|od|fra|från|lähettäjä|od|denominazione|"
                           r"ragione sociale|razón social|razão social|nome/razão social|"
                           r"raison sociale|company name|firmenname)"
                           r"\s*:[\s*|]*"
                           # (a company's name label needs no colon: an Italian e-invoice's
                           # copy prints "Denominazione OFFICINE MECCANICHE BREMBANA S.R.L.")
                           r"|(?:denominazione|ragione sociale|razón social|razão social|"
                           r"raison sociale|company name|firmenname)\s+(?=[^\W\d_]))", re.I)
#: a footer's copyright notice before the name ("Copyright © 2023 Apple Distribution
#: International Ltd.", "© 2019-2024 ACME GmbH")
_COPYRIGHT = re.compile(r"^(?:copyright\s*(?:©|\(c\))?|©)\s*(?:\d{4}(?:\s*[-–]\s*\d{4})?\s*)?",
                        re.I)

#: legal forms written before the name (Indonesia, Korea, Latvia, Lithuania: "SIA PARAUGS";
#: after it too: "Stuart Energy, UAB")
PREFIX_FORMS = frozenset({"PT", "PT.", "CV", "CV.", "주식회사", "(주)", "㈜", "유한회사",
                          "SIA", "UAB", "SARL", "EURL", "SASU"})


_INSENSITIVE = {"gmbh", "ltd", "ltd.", "llc", "sarl", "inc", "inc.", "ltda", "lda", "plc", "bhd",
                "sdn bhd", "sdn. bhd.", "oyj", "aps", "spa", "srl", "eurl", "sasu", "pte ltd",
                "berhad", "limited", "corporation", "sp. z o.o.", "incorporated"}


@functools.cache
def suffix_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    suffixes = common()["legal_suffixes"]
    strict = {s for s in suffixes if s.lower() not in _INSENSITIVE}
    loose = {s.lower() for s in suffixes if s.lower() in _INSENSITIVE}
    return re.compile(alternation(strict, exact=True)), re.compile(alternation(loose, exact=True),
                                                                    re.I)


def legal_suffixes(text: str) -> list[re.Match[str]]:
    """Every legal-form suffix in `text`, in order (the longer first where two start
    together)."""
    strict, loose = suffix_patterns()
    return sorted((m for p in (strict, loose) for m in p.finditer(text)
                   if not _province(text, m) and not _no_form(text, m)),
                  key=lambda m: (m.start(), -m.end()))


#: a Canadian postcode ("T5H 1N7") after a province's code
_CA_POSTCODE = re.compile(r"\s+[A-Z]\d[A-Z] ?\d[A-Z]\d(?!\w)")


def _province(text: str, m: re.Match[str]) -> bool:
    """Sweden's "AB" is Alberta's code in a Canadian address: after a town and a comma or a
    dot ("Edmonton, AB", "Edmonton. AB") or before a postcode ("Edmonton AB T5H 1N7")."""
    return m.group(0) == "AB" and (text[max(0, m.start() - 2):m.start()] in (", ", ". ")
                                   or _CA_POSTCODE.match(text, m.end()) is not None)


#: a capitalised word after "Co.": an Irish or English county ("Co. Cork P31 X2F7", "Co.
#: Durham"), unless it is a form itself ("& Co. Ltd", "Co. KG")
_COUNTY = re.compile(r"\s+(?!(?:Ltd|Limited|Inc|KG|LLC|Pty|Pvt|Plc|GmbH|Pte)\b)[A-Z][a-z]{2,}\b")


#: a capitalised name after a Spanish graduate's title ("Lda. Carmen Oliveros Peña": a
#: licenciada, never Portugal's Limitada, which follows its name)
_GRADUATE = re.compile(r"\.? [A-ZÁÉÍÓÚÑ][a-záéíóúñ]+")


def _no_form(text: str, m: re.Match[str]) -> bool:
    """"Co." before a capitalised word, a form run into a code by a dash ("Bestelling
    BV-5521": an order's number), "Lda." opening a line before a person's name: no form."""
    if text[m.end():m.end() + 1] == "-" and text[m.end() + 1:m.end() + 2].isdigit():
        return True
    if (m.start() == 0 and m.group(0).rstrip(".") in ("Lda", "Ldo")
            and _GRADUATE.match(text, m.end())):
        return True
    return m.group(0) in ("Co.", "CO.") and _COUNTY.match(text, m.end()) is not None


@functools.lru_cache(maxsize=4096)
def legal_suffix(text: str) -> re.Match[str] | None:
    """The last legal-form suffix (GmbH, Ltd, S.p.A., Sp. z o.o. ...) in `text`, if any."""
    found = legal_suffixes(text)
    if not found:
        return None
    return max(found, key=lambda m: (m.end(), m.end() - m.start()))


@functools.cache
def ocr_fixes() -> tuple[tuple[re.Pattern[str], str], ...]:
    """OCR misreadings of legal forms ("SON BHD", "5DN BHD", "$/B"), from common.json."""
    return tuple((re.compile(pattern), repl)
                 for pattern, repl in common()["ocr_suffix_fixes"])


#: a lookbehind assertion at the start of a pattern's source
_LEADING_LOOKBEHIND = re.compile(r"^\(\?<[!=](?:\[[^\]]*\]|\\.|[^()\\])*\)")


@functools.cache
def any_ocr_fix() -> re.Pattern[str]:
    """One pattern matching (at least) wherever any of the fixes would, to skip lines that
    need none (most) with one search. Each fix's leading lookbehind is dropped (a weaker
    pattern, so never a missed fix): then every branch starts with a literal or a character
    class and `re` scans for those characters instead of trying each branch at each offset."""
    parts = []
    for pattern, _repl in common()["ocr_suffix_fixes"]:
        flags = ""
        if pattern.startswith("(?i)"):
            pattern, flags = pattern[4:], "i"
        parts.append(f"(?{flags}:{_LEADING_LOOKBEHIND.sub('', pattern)})")
    return re.compile("|".join(parts))


#: initials ("D.I.Y.", "S.H.H."): single capitals or digits joined by dots
_INITIALS = re.compile(r"(?<![\w.])(?:[A-Z0-9]\.){2,}[A-Z0-9]?(?![\w])")
_INITIAL_LETTERS = str.maketrans("1058", "IOSB")
_INITIALS_HINT = re.compile(r"[A-Z0-9]\.[A-Z0-9]\.")  # what every match holds, found faster


def fix_ocr_suffixes(text: str) -> str:
    """`text` with misread legal forms corrected ("MR DIY (M) SON BHD" -> "... SDN BHD"), and
    digits inside initials that hold a letter read as the letters they resemble
    ("MR O.1.Y." -> "MR O.I.Y."). Pure."""
    if any_ocr_fix().search(text):
        for pattern, repl in ocr_fixes():
            text = pattern.sub(repl, text)
    if "." in text and _INITIALS_HINT.search(text):
        text = _INITIALS.sub(
            lambda m: m.group(0).translate(_INITIAL_LETTERS)
            if any(ch.isalpha() for ch in m.group(0)) else m.group(0), text)
    return text


#: a word of letters with digits that OCR reads for the letters they resemble ("TRAD1NG",
#: "(5ETIA", "LI6HTR0OM", "8anhMi", "B00KS"): one or two digits between letters, or one
#: opening the word
_DIGIT_SLIP = re.compile(
    r"(?<![\w&-])(?=(?:[0-9]*[^\W\d_]){3})[0-9]?[^\W\d_]+(?:[01568]{1,2}[^\W\d_]+)*(?![\w&-])")
#: what every word that _DIGIT_SLIP mends holds (found faster)
_LOOKALIKE_BESIDE_LETTER = re.compile(r"[01568][^\W\d_]")
_UPPER_LOOKALIKES = str.maketrans("01568", "OISGB")
_LOWER_LOOKALIKES = str.maketrans("015", "ols")


def mend_digits(name: str) -> str:
    """`name` with digits misread inside its words as the letters they resemble ("SAM SAM
    TRAD1NG CO" -> "SAM SAM TRADING CO"). Words of four characters or more, with at least
    three letters, digits 0 1 5 6 8 only between letters or opening the word ("(5ETIA"); words
    that are codes ("B2B", "MP3", "Win10", "3M", "7-Eleven", "1&1") are left alone. Pure."""
    if not _LOOKALIKE_BESIDE_LETTER.search(name):
        return name
    return _DIGIT_SLIP.sub(_mend_word, name)


def _mend_word(match: re.Match[str]) -> str:
    word = match.group(0)
    if len(word) < 4 or word.isalpha() or (word[0].isdigit() and word[0] not in "0568"):
        return word
    out = []
    for i, ch in enumerate(word):
        if ch.isdigit():
            neighbour = word[i + 1] if i + 1 < len(word) else word[i - 1]
            lower = neighbour.islower() and i > 0 and word[i - 1].islower()
            mended = ch.translate(_LOWER_LOOKALIKES if lower else _UPPER_LOOKALIKES)
            if mended == ch:
                return word
            out.append(mended)
        else:
            out.append(ch)
    return "".join(out)


@functools.cache
def business_words() -> re.Pattern[str]:
    """Words that name a kind of shop or business ("restaurant", "hardware", "perniagaan")."""
    return re.compile(alternation(common()["business_words"]))


#: babel locales of the lexicon languages (where a country's name is written)
_PLACE_LOCALES = ("en", "de", "fr", "es", "it", "nl", "pl", "pt", "sv", "da", "nb", "fi", "cs",
                  "tr", "ja", "zh", "ko", "ar", "hi", "id")


@functools.cache
def never_names() -> frozenset[str]:
    """Folded texts that are never a sender's name on their own: a table's column heading
    ("Description", "Menge", "Montant"), a copy's banner ("DUPLICATE", "*** COPY ***",
    "Kundenbeleg"), a till slip's word ("CASH", "ROUNDING", "Rückgeld", "DISC"), a total's
    label in any lexicon language ("Total", "Gesamtbetrag") or a
    country's name in any lexicon language ("United States", "Deutschland", CLDR's territory
    names through babel)."""
    from babel import Locale

    words = {fold(h) for h in common()["table_headers"]}
    words.update(fold(b) for b in common()["banners"])
    words.update(fold(c) for c in common()["pos_cues"])
    words.update(fold(w) for w in common()["till_words"])
    words.update(fold(t) for code in LANGUAGES for t in load(code)["labels"]["total"])
    for code in _PLACE_LOCALES:
        words.update(fold(name) for name in Locale.parse(code).territories.values())
    return frozenset(words)


@functools.cache
def address_words() -> re.Pattern[str]:
    return re.compile(alternation(common()["address_words"]), re.I)


def name_words(text: str) -> int:
    """Words of `text` that are neither legal-form words nor short bracketed codes."""
    count = 0
    for w in text.split():
        bare = w.strip("().,")
        match = legal_suffix(w)
        if len(bare) < 2 or (match is not None and match.group(0) == w):
            continue
        if w.startswith("(") and len(bare) <= 3:
            continue
        count += 1
    return count


def garbage(text: str) -> bool:
    """OCR debris: too few letters (under four, or under 60% of the non-blank characters), or
    no word of three letters or more (five letters in all; four before a legal form: "Lidl
    sp. z o.o.")."""
    letters = sum(map(str.isalpha, text))
    if letters < 4 or letters / max(len(text) - text.count(" "), 1) < 0.6:
        return True
    if _FIVE_LETTERS.search(text):  # (one word of five letters is enough: found faster)
        return False
    words = sum(map(len, _RX0.findall(text)))
    if words >= 5:
        return False
    form = legal_suffix(text)
    return form is None or sum(map(len, _RX0.findall(text[:form.start()]))) < 4


_ACRONYM = re.compile(r"[A-Z][A-Z0-9&]{1,6}")
_BRAND = re.compile(r"[A-Z][A-Za-z]{3,}|[A-Z]{4,}")
#: a brand written with its number ("REMA 1000", "Forever 21", "Motel 6")
BRAND_NUMBER = re.compile(r"(?:[A-Z][A-Za-z]{3,}|[A-Z]{4,}) \d{1,4}")
#: ... before a legal form, also with its web domain ("Alza.cz a.s.")
_BRAND_HEAD = re.compile(r"(?:[A-Z][A-Za-z]{3,}|[A-Z]{4,})(?:\.[a-z]{2,3})?")


#: two or three short words in capitals, one of three letters or more ("A MART", "MR DIY")
_SHORT_CAPS = re.compile(r"(?=.*[A-Z]{3})[A-Z]{1,4}(?: [A-Z]{2,6}){1,2}")


def short_name(value: str) -> bool:
    """A short name that `garbage` would refuse: an acronym or a capitalised word with its
    legal form ("KPN B.V.", "SAP SE", "Alza a.s.", "Alza.cz a.s."), one capitalised word of
    four letters or more ("Uber", "IKEA"), alone or with its number ("REMA 1000"), or two or
    three short words in capitals ("A MART", "MR DIY")."""
    if _BRAND.fullmatch(value) or _SHORT_CAPS.fullmatch(value) or BRAND_NUMBER.fullmatch(value):
        return True
    suffix = legal_suffix(value)
    if suffix is None or value[suffix.end():].strip(" .,"):
        return False
    head = value[:suffix.start()].strip(" ,")
    return _ACRONYM.fullmatch(head) is not None or _BRAND_HEAD.fullmatch(head) is not None


@functools.cache
def _made_with() -> re.Pattern[str]:
    return re.compile(alternation(common()["made_with"]))


def made_with(text: str) -> bool:
    """`text` names the software that made the document ("Powered by InvoiceApp Inc.",
    "Erstellt mit ..."), not its sender."""
    return _made_with().search(fold(text)) is not None


def copyright_notice(text: str) -> bool:
    """`text` holds a copyright notice ("© 2023", "Copyright (c)")."""
    folded = fold(text)
    return "©" in text or "copyright" in folded or "(c) " in folded


#: a mailbox with its display name ('"Steam Support" <noreply@steampowered.com>')
_MAILBOX = re.compile(r"\"?([^\"<>@]{2,60}?)\"?\s*<[^<>@\s]+@[^<>\s]+>")
_DOMAIN_END = re.compile(r"\.[a-z]{2,6}\.$")


@functools.cache
def _rights_reserved() -> re.Pattern[str]:
    return re.compile(r"\s*(?:" + alternation(common()["rights_reserved"]) + ")")


#: lower-case words that belong inside company names ("Banco de Sabadell", "Smit & de Vries")
NAME_PARTICLES = frozenset({"de", "van", "der", "den", "la", "le", "les", "di", "du", "del",
                            "della", "des", "do", "da", "dos", "das", "y", "e", "et", "und",
                            "and", "of", "the", "for", "für", "i", "og", "och", "ve", "a", "&"})


#: the end of a sentence before a name, where a footer's line starts with it ("Verkäufer der
#: Ware. Kaufmann Haushaltswaren e.K. · Amtsgericht ...", the sentence begun a line above)
_SENTENCE_TAIL = re.compile(r"(?:[^\W\d_]+ ){2,8}?[^\W\d_]{3,}\. (?=[^\W\d_])")


def clean_name(value: str) -> str:
    prefix = _LABEL_PREFIX.match(value) or _COPYRIGHT.match(value)
    if prefix:
        value = value[prefix.end():]
    tail = _SENTENCE_TAIL.match(value)
    if tail and any(word[:1].islower() for word in tail.group(0).split()):
        form = legal_suffix(value)  # (not inside a legal form: "Procházka Tiskárna spol. s r.o.")
        if form is None or form.start() >= tail.end():
            value = value[tail.end():]
    if "<" in value:
        mailbox = _MAILBOX.fullmatch(value.strip())
        if mailbox:  # 'From: "Cloudflare" <noreply@notify.cloudflare.com>'
            value = mailbox.group(1)
    if prefix and prefix.re is _COPYRIGHT:  # "© 1996–2026 Booking.com. All rights reserved."
        reserved = _rights_reserved().search(fold(value))
        value = value[:reserved.start()] if reserved else value
        if _DOMAIN_END.search(value):  # "Booking.com." ends its sentence, "Ltd." is kept
            value = value[:-1]
    if "  " in value or not value.isprintable():  # else its only blanks are single spaces
        value = _RX1.sub(" ", value)
    value = value.strip(" \t,;:-–·|•*#_~\"'")
    return value[:100].strip()


@functools.cache
def _department_at_end() -> re.Pattern[str]:
    return re.compile(r"[ ,·|•–-]*(?:" + alternation(common()["departments"]) + r")[ .]*$")


@functools.cache
def _department_ends() -> frozenset[str]:
    """The last word of each department's name (the quick test)."""
    return frozenset(fold(d).split()[-1] for d in common()["departments"])


def without_department(value: str) -> str:
    """`value` without a department written after the name, as a return address or a sender
    line shows it ("congstar Kundenservice" -> "congstar", "ACME Ltd - Customer Service");
    `value` itself when nothing else is left. Pure."""
    folded = fold(value)
    words = folded.rstrip(" .").rsplit(None, 1)
    if not words or words[-1] not in _department_ends():
        return value
    found = _department_at_end().search(folded)
    if found is None or found.start() < 2:
        return value
    return value[:found.start()]


#: a branch's word and number after a shop's name ("ALBERT HEIJN FILIAAL 1427", "ALDI Store
#: #57", "Costco Warehouse #258")
_BRANCH_AT_END = re.compile(
    r"(?:\s*[-–,]\s*|\s+)(?:branch|store|filiaal|filiale|filial|fil\.|succursale|sucursal|tienda|"
    r"loja|negozio|magasin|oddzia[lł]|pobočka|warehouse)\s*(?:no\.?|nr\.?|n[°º]|#)?\s*"
    r"[:#]?\s*\d{1,5}$"
    # a store's number after a sign ("Barnes & Noble Booksellers #2937", "Pilot #048")
    r"|\s+#\s?\d{1,5}$", re.I)


#: a phone number ending a name's line ("Longos 905-209-7655", "ACME Tel. +49 30 1234567")
_PHONE_AT_END = re.compile(
    r"\s+(?:(?:tel|phone|ph)\.?:?\s*\+?[\d\s()/-]{6,}\d|\+\d{1,3}[\s-]?[\d\s()-]{6,}\d"
    r"|\(?\d{3}\)?[\s-]\d{3}-\d{4})$", re.I)


def without_phone(value: str) -> str:
    """`value` without a phone number at its end (after its label, with its country's prefix,
    or written "905-209-7655"); `value` itself when less than three characters would be left.
    Pure."""
    return _without_end(value, _PHONE_AT_END)


def without_branch(value: str) -> str:
    """`value` without a branch's word and number at its end ("ALBERT HEIJN FILIAAL 1427" ->
    "ALBERT HEIJN") or a store's number after "#"; `value` itself when less than three
    characters would be left. Pure."""
    return _without_end(value, _BRANCH_AT_END)


def _without_end(value: str, pattern: re.Pattern[str]) -> str:
    """`value` up to where `pattern` (ending in a digit) matches its end, when three
    characters are left at least."""
    found = pattern.search(value) if value[-1:].isdigit() else None
    return value if found is None or found.start() < 3 else value[:found.start()]


def strip_debris(value: str) -> str:
    """`value` without OCR debris at its end when it is written in capitals: specks beside a
    letterhead read as symbols or as a short lower-case fragment ("99 SPEED MART $ mi")."""
    words = value.split()
    end = len(words)
    while end > 2 and (not any(ch.isalnum() for ch in words[end - 1])
                       or (len(words[end - 1]) <= 2 and words[end - 1].islower())):
        end -= 1
    if end == len(words) or not all_capitals(" ".join(words[:end])):
        return value
    return " ".join(words[:end]).rstrip(" ,;:-")


def letters_ratio(text: str) -> float:
    letters = sum(map(str.isalpha, text))
    return letters / max(len(text) - text.count(" "), 1)


def all_capitals(text: str) -> bool:
    """Every letter of `text` is a capital (and it has one)."""
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and all(ch.isupper() for ch in letters)
