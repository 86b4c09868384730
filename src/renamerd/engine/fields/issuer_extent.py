"""How far an issuer's name goes: on its line (from after the last small word before its legal
form, without a registration number in brackets at its end) and onto the lines around it (the
line above when only the kind of business and the form are left or the line opens with a
joining word or an owner's "Inh.", the line below when it is a lone form or the name ends in
"&" or a joining word, a thanks broken over two lines). Pure; used by fields/issuer.py.
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.issuer_cuts import despaced
from renamerd.engine.fields.issuer_labels import WRAPPED_NAME
from renamerd.engine.fields.issuer_scores import BRACKETED, LETTER_RUN, Page, branch_line
from renamerd.engine.fields.names import (
    NAME_PARTICLES,
    PREFIX_FORMS,
    address_words,
    business_words,
    legal_suffix,
    legal_suffixes,
    letters_ratio,
)
from renamerd.engine.fields.places import POSTCODE, address
from renamerd.engine.lexicon import LANGUAGES, fold, load

#: a name's line ending in "&" or a word that joins it to the next ("Smith &", "Academy of",
#: "Autobedrijf Van der" / "Meulen")
_JOINING_WORDS = ("and", "of", "for", "und", "für", "et", "de", "des", "du", "van", "der", "den",
                  "von", "voor", "di", "del", "y", "e")
_JOINED_END = re.compile(r"(?:&|\b(?:" + "|".join(_JOINING_WORDS) + r"))\s*$", re.I)
#: the last characters of those (a quick test before the search)
_JOINING_ENDS = frozenset("&" + "".join(w[-1] + w[-1].upper() for w in _JOINING_WORDS))

_RX1D = re.compile(r"\d")
#: a year opening a text and a month's name and day closing one ("January 29, " / "2026 ...")
_YEAR_OPENS = re.compile(r"(?:19|20)\d\d (?=[^\W\d_])")
_MONTH_DAY_ENDS = re.compile(r"[^\W\d_]{3,9}\.? \d{1,2}, $")
_LETTERS = re.compile(r"[^\W\d_]{2}")


def name_extent(ctx: Page, line: Line, text: str, suffix: re.Match[str] | None,
                seg_no: int, segments: int,
                reasons: list[str]) -> tuple[str, re.Match[str] | None]:
    """The name's text and legal form: with a legal form, from the last ": " or ", " before
    it to its end, preceded by the line above when only the form or the kind of business
    is left ("RESTAURANT SDN BHD" under "LIAN CHI VEGETARIAN"); without one, followed by
    the next line when that is a lone legal form or ends the form begun ("... SOCIEDAD" /
    "DE RESPONSABILIDAD LIMITADA"), or the name ends in "&"."""
    doc, n = ctx.doc, len(ctx.doc.lines)
    if suffix and suffix.start() == 0 and suffix.group(0).strip() in PREFIX_FORMS \
            and text[suffix.end():].strip():
        return text, suffix  # the form comes first ("PT Sinar Jaya", "주식회사 한빛전자")
    if suffix:
        start = _name_start(text, suffix, (line.index, seg_no) in ctx.sold_by)
        text = text[start:suffix.end()]
        prev = doc.lines[line.index - 1] if line.index > 0 else None
        if seg_no == 0 and start == 0 and prev is not None and (
                wrapped := WRAPPED_NAME.search(prev.text)):
            # a footer's sentence wrapped inside the name: "... partenaire. Siel" / "Telecom
            # SAS au capital de ..."
            reasons.append(CONTINUED)
            return f"{wrapped.group(1)} {text}", suffix
        if (seg_no == 0 and prev is not None and prev.index not in ctx.skip
                and unclosed(prev.text) and text.count(")") > text.count("(")):
            reasons.append(CONTINUED)  # "ACME ENTERPRISE (SETIA" / "ALAM) SDN BHD"
            return f"{prev.text} {text}", suffix
        short = all(len(w.strip("().,")) <= 3 for w in text[:suffix.start()].split())
        # only the kind of business before the form ("RESTAURANT SDN BHD"): the name is above
        # (one name word is a name: "AEON CO. (M) BHD" under "Welcome" stays as it is)
        head = fold(text[:suffix.start()])
        short = short or (business_words().search(head) is not None
                          and not LETTER_RUN.search(business_words().sub(" ", head)))
        if (seg_no == 0 and short and prev is not None
                and prev.index not in ctx.skip and plausible_name_line(prev, ctx.vocab)
                and legal_suffix(prev.text) is None):
            text = f"{prev.text} {text}"
            reasons.append(CONTINUED)
        return text, suffix
    text = before_slogan(text)
    if line.index + 1 < n and line.index + 1 not in ctx.skip and seg_no == segments - 1:
        nxt = doc.lines[line.index + 1]
        nxt_text = ctx.fixed_line(nxt.index)
        sm = legal_suffix(nxt_text)
        if (sm is not None and sm.start() <= 2 and len(nxt_text) <= 25
                and not ctx.registration.search(nxt.folded)
                and not (sm.group(0).strip() in PREFIX_FORMS and nxt_text[sm.end():].strip())):
            text = f"{text} {nxt_text[:sm.end()]}"
            return text, legal_suffix(text)
        joined = f"{text} {nxt_text}"
        sm = legal_suffix(joined)
        if (sm is not None and sm.start() < len(text) < sm.end()
                and sm.end() >= len(joined.rstrip(" .,;"))):
            # a legal form broken over two lines ("... SOCIEDAD" / "DE RESPONSABILIDAD
            # LIMITADA")
            return joined[:sm.end()], sm
        # (a text ending in "&" or a joining word ends in one of these: tested first, for
        # speed)
        if (text.rstrip()[-1:] in _JOINING_ENDS and _JOINED_END.search(text)
                and plausible_name_line(nxt, ctx.vocab)):
            text = f"{text} {nxt.text}"
    return text, suffix


#: "of" in the Romance languages, which opens no name after a sentence's word ("une marque de
#: Siel Telecom SAS", "un marchio di ...")
_OF_AFTER_SENTENCE = frozenset({"de", "di", "du", "da", "des", "del", "della"})


#: particles that join a name's words but never open one ("de" and "van" may: "de Vries BV")
_JOINING_ONLY = frozenset({"of", "for", "and", "und", "für", "et", "y", "e", "i", "og", "och",
                           "ve", "a", "&"})


@functools.cache
def _title_words() -> frozenset[str]:
    """One-word titles of bills in every lexicon language, folded ("invoice", "factura")."""
    return frozenset(fold(word) for code in LANGUAGES for kind in
                     ("invoice", "receipt", "credit_note", "quote")
                     for word in load(code)["types"].get(kind, []) if word.isalpha())


def after_title_word(text: str, start: int, end: int) -> int:
    """Where the name before a legal form (at `end`) starts, from `start`: after a title in
    capitals opening it ("INVOICE Shenzhen Linkhub CO., LTD"), when a name not in capitals
    follows ("RECEIPT BANK LTD" is a company's name)."""
    word = text[start:end].split(" ", 1)[0]
    rest = text[start + len(word):end].strip(" ,")
    if word.isupper() and fold(word) in _title_words() and rest and not rest.isupper():
        return start + len(word) + 1
    return start


def before_slogan(text: str) -> str:
    """A name in capitals without its slogan, a sentence beside it on the line ("THE HOME
    DEPOT More saving.", "WALMART Save money."): the capitals. `text` as it is otherwise (a
    name in Title Case, "BP Connect.", "ACME Trading Ltd.")."""
    if text[-1:] not in ".!":
        return text
    words = text.split()
    caps = 0
    while caps < len(words) and words[caps].isupper():
        caps += 1
    tail = [w.rstrip(".!,") for w in words[caps:]]
    if (caps == 0 or len(tail) < 2 or not tail[0].istitle()
            or not all(w.isalpha() and w.islower() for w in tail[1:])
            or sum(map(str.isalpha, " ".join(words[:caps]))) < 3):
        return text
    return " ".join(words[:caps])


#: a number of five digits or more: an id's, never a name's word
_LONG_NUMBER = re.compile(r"(?<!\S)[\w./-]*\d{5,}[\w./-]*\s+")


def after_long_number(text: str, start: int, end: int) -> int:
    """Where the name before a legal form (at `end`) starts, from `start`: after an id of
    five digits or more when a word follows it ("rej: BDO 000002265 Lidl sp. z o.o." has lost
    its label to OCR); "12345678 LTD", a number as the whole name, stays."""
    found = list(_LONG_NUMBER.finditer(text, start, end))
    if not found or not _LETTERS.search(text, found[-1].end(), end):
        return start
    return found[-1].end()


def _capital_lost(before: str) -> bool:
    """`before`, the small-letter words cut from a name's start, is one long word of no
    sentence: the name's first word, its capital lost to OCR ("avenida Cafés, Lda.", as
    PP-OCR read "Avenida"); "by", "door", "bei" and two words or more are a sentence's."""
    words = before.split()
    return (len(words) == 1 and len(words[0]) >= 5 and words[0].isalpha()
            and words[0] not in _common_words())


@functools.cache
def _common_words() -> frozenset[str]:
    """The common words of every lexicon language."""
    return frozenset(w for lang in LANGUAGES for w in load(lang).get("common", ()))


def after_lower_case_words(text: str, start: int, end: int) -> int:
    """Where the name before a legal form (at `end`) starts, from `start`: after the last
    lower-case word that is no name particle ("Operated by Kingsley Software Inc.",
    "Geëxploiteerd door Meijer B.V.": the name starts after "by", "door")."""
    position = start
    offset = start
    # (the words of another legal form are no sentence: "Lidl sp. z o.o. sp. k.")
    forms = [(m.start(), m.end()) for m in legal_suffixes(text[:end])]
    named = False  # a capitalised word and a particle right after it: "Institut für ..."
    capital = False
    for word in text[start:end].split():
        offset = text.index(word, offset) + len(word)
        bare = word.strip("().,:;")
        if any(a < offset <= b for a, b in forms):
            continue
        # (a brand written in small letters then capitals is a name: "flatexDEGIRO Bank AG";
        # small words after "für" are the name's: "Institut für betriebliches Entgelt...")
        if bare.islower() and bare.isalpha() and bare not in NAME_PARTICLES and not named:
            position = offset
        named = named or (capital and bare in NAME_PARTICLES)
        capital = bare[:1].isupper() and not word.endswith(".") and offset > position
    while position < end and text[position] == " ":
        position += 1
    if _capital_lost(text[start:position]):
        return start
    # (a joining word never opens a name: "the property of Natures Aid Ltd")
    first, _, rest = text[position:end].partition(" ")
    if position > start and (first in _JOINING_ONLY
                             or (first in _OF_AFTER_SENTENCE and rest[:1].isupper())):
        position += len(first) + 1  # (and "une marque de Siel Telecom SAS": "of" after a word)
    # nothing but the form left: the lower-case words are the name's ("Au bon moulin SARL")
    return position if position < end else start


CONTINUED = "name continues from the line above"


def _name_start(text: str, suffix: re.Match[str], labelled: bool) -> int:
    """Where the name ending in its legal form `suffix` starts in `text`: after the last ": "
    or ", " before the form (a comma right before it is the name's: "Amazon Web Services,
    Inc."), a sentence's small words (not after a seller's label, `labelled`: "Dodavatel:" /
    "Kuchyňské potřeby Čížek s.r.o." is all name), a title, a long number, a date's year."""
    head = text[:suffix.start()]
    bare = head.rstrip()
    bare = bare[:-1] if bare.endswith(",") else head
    cut = max(bare.rfind(": "), bare.rfind(", "))
    start = cut + 2 if cut >= 0 else 0
    if not labelled:
        start = after_lower_case_words(text, start, suffix.start())
    start = after_title_word(text, start, suffix.start())
    start = after_long_number(text, start, suffix.start())
    if _YEAR_OPENS.match(text, start) and _MONTH_DAY_ENDS.search(text, 0, start):
        start += 5  # the year of "January 29, 2026" before the name on its line
    return start


def without_bracketed_number(value: str) -> str:
    """`value` without a group in brackets at its end holding a digit ("(519537-X)") or two
    words or more in small letters (a web page's link: "Tessan Direct (seller profile)")."""
    if not value.endswith(")"):
        return value
    groups = list(BRACKETED.finditer(value))
    last = groups[-1] if groups else None
    if last is None or last.end() != len(value):
        return value
    inside = last.group(0).strip("()")
    if not _RX1D.search(inside) and not (len(inside.split()) >= 2 and inside.islower()):
        return value
    return value[:last.start()].rstrip(" ,;:-") or value


def unclosed(text: str) -> bool:
    """`text` opens a bracket it does not close."""
    return text.count("(") > text.count(")")


def plausible_name_line(line: Line, vocab: re.Pattern[str], text: str = "") -> bool:
    """`line` (or `text`, as its words are meant: a letter-spaced word despaced) may be a
    name's line: mostly capitalised words, few digits, no type word, no address."""
    text = text or line.text
    words = [w for w in text.split() if w[:1].isalpha()]
    if not words or sum(1 for w in words if w[0].islower()) * 2 > len(words):
        return False
    return (letters_ratio(text) >= 0.7 and sum(map(str.isdigit, text)) <= 2
            and not vocab.search(line.folded) and not address(text)
            and not address_words().search(text) and not POSTCODE.search(text)
            and len(text) <= 60 and sum(map(str.isalpha, text)) >= 4)


def name_goes_on(doc: Doc, line: Line) -> str:
    """The rest of a name a till slip's thanks breaks over two lines ("Thank you for
    shopping at FUYI MINI" / "MARKET"): the next line when it is a few words without digits
    naming a kind of business or a legal form; "" otherwise."""
    if line.index + 1 >= len(doc.lines):
        return ""
    below = doc.lines[line.index + 1].text.strip()
    if (len(below.split()) > 4 or any(ch.isdigit() for ch in below)
            or not (business_words().search(fold(below)) or legal_suffix(below))):
        return ""
    return " " + below


#: words that join a name's parts and never open one, opening a line that goes on with a
#: capital: the name began on the line above ("R E N T" / "& KLART ApS", "Pasticceria Dolce
#: Vita" / "di Rossi Giulia – Corso San Maurizio 47/B"); and a German shop's owner under its
#: name ("Buchhandlung Seitenwind" / "Inh. Jana Petersen e.K.")
_OPENS_JOINED = frozenset({"&", "di", "del", "della", "und", "and", "et", "og", "och", "ve",
                           "y", "of", "Inh.", "Inhaber", "Inhaberin", "Inhaber:", "Inhaberin:"})


#: a professional's title before a person's name: "Farmacia San Rocco" / "della Dott.ssa
#: Lucia Ferretti" is the pharmacist who owns it, not more of its name
_PERSONS_TITLE = re.compile(r"(?:Dott|Dr|Dra|Avv|Ing|Geom|Rag|Arch|Prof|Mag)(?:\.|ssa\b|\.ssa\b)")


def name_from_above(ctx: Page, line: Line, segment: str) -> str:
    """`segment` (a line's first) with the name's first words from the line above when it
    opens with a joining word; as it is otherwise."""
    first, _, rest = segment.lstrip().partition(" ")
    if (first not in _OPENS_JOINED or not rest[:1].isupper() or line.index == 0
            or line.index - 1 in ctx.skip or _PERSONS_TITLE.match(rest)):
        return segment
    above = ctx.doc.lines[line.index - 1]
    text = despaced(above.text.strip())
    if (not plausible_name_line(above, ctx.vocab, text) or legal_suffix(text) is not None
            or branch_line(text)):  # ("Filiale Lüneburg Am Sande" / "Inh. Jürgen Meißner")
        return segment
    return f"{text} {segment.lstrip()}"
