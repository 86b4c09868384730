"""What the words around a name say about it, for the issuer scorer (fields/issuer.py):
seller and operator labels ("Sold by", "Titulaire du compte :", "Operated by"), a company's
legal details ("... au capital de", "Registered office"), two names side by side on one line,
labels with no value, greetings and forms of address. Pure; patterns built once per language.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from renamerd.engine.fields.document import Doc, Line
from renamerd.engine.fields.names import (
    NAME_PARTICLES,
    PREFIX_FORMS,
    legal_suffix,
    legal_suffixes,
)
from renamerd.engine.lexicon import LANGUAGES, alternation, common, fold, load

#: a company's legal details: the name written just before them (same line, or the line
#: above when they start a line) is the issuer's: a customer's are never printed so
LEGAL_DETAILS = re.compile(
    r"(?<!\w)(?:au capital de|capital social|capitale sociale|share capital|stammkapital|"
    r"grundkapital|kapitał zakładowy|siège social|sede legale|sede social|domicilio social|"
    r"registered office|regd\.? office|registered in england|sitz der gesellschaft|"
    r"registergericht|société anonyme|societe anonyme|statutaire zetel)(?!\w)", re.I)
#: a form of address before a person's name: the addressee ("Herrn", "Dhr. J. Jansen",
#: "M. Dupont"; not "Dr": a doctor's practice bills under the doctor's name; not "Mr": "MR DIY"
#: is a shop, and English bills label their addressee)
SALUTATION = re.compile(r"^(?:(?:herrn?|frau|dhr|mevr|mw|mme|mlle|sr|sra|srta|sig|sig\.ra|hr|fru)"
                        r"\.?|m\.)\s+\S", re.I)
#: a greeting opening a letter or an e-mailed bill ("Bonjour, voici votre facture")
GREETING = re.compile(r"^(?:hello|hi|dear|bonjour|bonsoir|hallo|guten tag|sehr geehrte|"
                      r"hola|estimado|buongiorno|gentile|ciao|hej|geachte|beste|dzień dobry|"
                      r"olá|prezado|merhaba|hei|moi|welcome|selamat datang|willkommen|bienvenue|"
                      r"bienvenido|benvenuto|welkom|välkommen|velkommen|tervetuloa|witamy|"
                      r"vítejte|hoş geldiniz|bem-vindo)\b", re.I)
_CONTACT_END = re.compile(r"\s[|·•]\s|\s{3,}|\t|,|$")
_WORD = re.compile(r"[^\W\d_]{3,}")
#: words of a sentence addressed to the reader, never of a name: "YOUR GUEST NUMBER IS",
#: "Ihre Bestellung ist", "Merci de votre visite" (pronouns, "is", "please", "thanks")
SENTENCE_WORDS = re.compile(
    r"\b(?:your|you|is|are|please|thanks|thank|ihre|ihr|ist|sind|bitte|danke|vielen|votre|vos|"
    r"vous|merci|usted|gracias|grazie|vostro|vostra|uw|bedankt|obrigado|obrigada)\b", re.I)


#: a thanks left open at the end of its line ("THANK YOU FOR" / "SHOPPING"): folded
_OPEN_THANKS = re.compile(
    r"\b(?:thank you|thanks|thank u|merci|danke|gracias|grazie|obrigad[oa]|bedankt|dank u|"
    r"tack|takk|tak|kiitos|dziekujemy|dekujeme|terima kasih)\b.*\b(?:for|at|with|to|pour|de|"
    r"chez|fur|bei|bij|voor|por|en|per|presso|da|hos|dla|za|w|em|na|com|di)[ .,]*$")


def thanks_goes_on(above: str, segment: str, language: str) -> str | None:
    """When the line `above` (folded) ends a thanks left open ("Thank you for"), the name it
    thanks with on this line (`segment`: "SHOPPING AT WALMART" -> "WALMART"), or "" when the
    line only ends the sentence ("SHOPPING"); None when `above` is no open thanks. Pure."""
    if len(above) > 80 or not _OPEN_THANKS.search(above):
        return None
    return signed_off(above.strip() + " " + segment, language) or ""


@dataclass(frozen=True)
class Label:
    """A seller or operator label found in a segment."""

    kind: str  # "sender" or "operator"
    rest: str  # the segment after the label ("" when only the label is there)
    at_start: bool  # the label opens the segment


@functools.cache
def seller_labels(language: str, kind: str = "sender") -> re.Pattern[str]:
    """A seller label at the start of a segment ("Sold by", "Verkäufer:", "Titulaire du
    compte :", "Service Provider:"), or after a dash or bar ("Virement BRED – Titulaire du
    compte : NETPRESSE"). A one-word label needs its colon ("From:", not "From the team").
    With kind="operator": the label of a brand's operating company ("Operated by",
    "Provozovatel", "İşletmeci"), which may go without its colon."""
    single: set[str] = set()
    multi: set[str] = set()
    # (an operator's label is distinctive in any language: a Czech hotel's French bill)
    langs = LANGUAGES if kind == "operator" else (language, "en")
    for lang in langs:
        for phrase in load(lang)["labels"].get(kind, []):
            if lang not in (language, "en") and len(phrase) < 6:
                continue
            (multi if " " in phrase.strip() or kind == "operator" else single).add(phrase)
    # (or after an account's number: "RABO 0318 7742 15 t.n.v. Van Dijk Tuinontwerp B.V.")
    holders = multi | {p for p in single if "." in p.strip(".")}
    return re.compile(r"(?:^[^\w(]*|\s[-–|·•]\s)(?:(?:" + alternation(multi) + r")\s*[:：]?"
                      r"|(?:" + alternation(single) + r")\s*(?:[:：]|$))\s*"
                      r"|(?<=\d )(?:" + alternation(holders) + r")\s*[:：]?\s*")


def find_label(segment: str, language: str) -> Label | None:
    """The seller label in `segment` (anywhere `seller_labels` allows), else an operator's
    label opening it; None without either."""
    folded = fold(segment)
    kind, m = "sender", seller_labels(language).search(folded)
    if m is None:
        kind, m = "operator", seller_labels(language, "operator").match(folded)
        if m is None:
            return None
    return Label(kind, segment[m.end():].strip(), m.start() == 0)


@functools.cache
def _sign_offs(language: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A team's sign-off frames ("the {name} team", "l'équipe {name}") of `language` and
    English, as `_frames` compiles them (a sign-off's few words are read only in the
    document's language and English)."""
    return _frames(frozenset(fold(f) for lang in dict.fromkeys((language, "en"))
                             for f in load(lang)["labels"].get("sign_off", [])))


@functools.cache
def _thanks() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A shop's thanks or welcome ("Thank you for shopping at {name}", "Tack för ditt köp hos
    {name}") of every language, as `_frames` compiles them (a thanks is a whole sentence: any
    language's may be read, as a Malaysian slip in English thanks in Malay)."""
    return _frames(frozenset(fold(f) for lang in LANGUAGES
                             for f in load(lang)["labels"].get("thanks", [])))


def _frames(frames: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """`frames` (folded, "{name}" where the sender names itself) as one pattern, a name group
    per frame, longest frames first ("the {name} billing team" before "the {name} team"), and
    the longest fixed word of each frame (the quick test: "team", "équipe", "shopping")."""
    ordered = sorted(frames, key=len, reverse=True)
    name = r"[^\W_][^\s,;:]*(?: [^\s,;:]+){0,4}?"
    pattern = "|".join(re.escape(f).replace(r"\{name\}", f"(?P<name{i}>{name})")
                       for i, f in enumerate(ordered))
    cues = {max(f.replace("{name}", " ").replace("-", " ").split(), key=len) for f in ordered}
    return (re.compile(pattern or r"(?!x)x"),
            re.compile("|".join(map(re.escape, sorted(cues))) or r"(?!x)x"))


@functools.cache
def _no_names() -> tuple[frozenset[str], frozenset[str]]:
    """The words that only say which team ("billing", "support") and the pronouns ("us")."""
    return frozenset(common()["team_words"]), frozenset(common()["pronouns"])


#: where a thanks goes on with another sentence ("Thank you for shopping at Safeway! Please
#: come again"): "!" or "." before a capitalised word ("Co. KG" stays whole)
_SENTENCE_END = re.compile(r"[!.]\s+(?=[A-ZÀ-Þ][a-zà-ÿ])|!")


def signed_off(segment: str, language: str) -> str | None:
    """The name the sender gives itself when `segment` is a sign-off, a thanks or a welcome
    and nothing else ("Your A&O Team", "The Heroku Billing Team", "Dein congstar Team",
    "L'équipe Qonto", "Thank you for booking with Travellink", "Terima kasih telah berbelanja
    di Indomaret"; a sentence after it is cut off): as written; None otherwise, or when the
    name only says which team or who ("The Support Team", "Thank you for shopping with us").
    Pure."""
    if len(segment) > 120:
        return None
    folded = fold(segment)
    frames = [pattern for pattern, cues in (_sign_offs(language), _thanks())
              if cues.search(folded) is not None]
    if not frames:
        return None
    end = _SENTENCE_END.search(segment)
    stop = len(folded[:end.start() if end else len(folded)].rstrip(" .!,*"))
    start = len(folded) - len(folded.lstrip(" -–*"))
    for pattern in frames:
        m = pattern.fullmatch(folded, start, stop)
        if m is None:
            continue
        group = next(g for g, v in m.groupdict().items() if v is not None)
        value = segment[m.start(group):m.end(group)]
        words = set(fold(value).split())
        team_words, pronouns = _no_names()
        return None if words <= team_words or words & pronouns else value
    return None


#: a name's first words in capitals ending a line after the end of a sentence ("...
#: partenaire. Siel" over "Telecom SAS au capital de ...")
WRAPPED_NAME = re.compile(r"[^\W\d_]{2}[.!?] ((?:[A-ZÀ-Þ][^\W\d_&'-]*[ &]+){0,2}"
                          r"[A-ZÀ-Þ][^\W\d_'-]*)$")
#: a paragraph's line: what a sentence wrapped onto the next line is as long as
PARAGRAPH_LINE = 60


def legal_named(doc: Doc, skip: set[int]) -> set[int]:
    """Lines (outside `skip`) that name a company right before its legal details ("BOUYGUES
    TELECOM - Société Anonyme au capital de ...", or "NETPRESSE" over "Siège social : ..."),
    not a sentence's words wrapped from the line above ("... prowadzonego przez Sąd" /
    "Rejonowy dla Krakowa-Śródmieścia w Krakowie, XI Wydział Gospodarczy KRS; kapitał ...")."""
    out: set[int] = set()
    for line in doc.lines:
        m = LEGAL_DETAILS.search(line.text)
        if m is None or line.index in skip:
            continue
        head = line.text[:m.start()].strip(" -–|·,:")
        if head and not _wrapped_sentence(doc, line, head):
            out.add(line.index)
        elif line.index > 0 and line.index - 1 not in skip:
            out.add(line.index - 1)
    return out


def _wrapped_sentence(doc: Doc, line: Line, head: str) -> bool:
    """`line` goes on with the sentence of the paragraph's line above it (which ends in a
    word, not in the first words of a name after a sentence's end): its `head` holds a small
    word that is no name's particle nor its legal form's ("Rejonowy dla Krakowa")."""
    if line.index == 0 or len(line.text) < PARAGRAPH_LINE:
        return False
    above = doc.lines[line.index - 1].text.rstrip()
    if (len(above) < PARAGRAPH_LINE or not above[-1:].isalpha()
            or WRAPPED_NAME.search(above) is not None):
        return False
    form = legal_suffix(head)
    words = (head[:form.start()] if form else head).split()
    return any(w[:1].islower() and w.isalpha() and w not in NAME_PARTICLES for w in words)


def footer_named(doc: Doc, skip: set[int], registration: re.Pattern[str]) -> set[int]:
    """Lines of the last ten (outside `skip`) that open with a name and its legal form, with
    a bank's details and a registration number on that line or the two below ("Albert Heijn
    B.V." / "Provincialeweg 11 ... BTW NL002230884B01 IBAN NL46INGB..." / "... KvK Zaandam
    35012085 BIC ..."): the seller's footer, as European bills print it; a customer's bank
    and registration are not printed."""
    out: set[int] = set()
    n = len(doc.lines)
    if not n or BANK_DETAILS.search(doc.folded, doc.lines[max(0, n - 10)].start) is None:
        return out  # (the quick test: no bank's details in the footer)
    for line in doc.lines[max(0, n - 10):]:
        form = legal_suffix(line.text) if line.index not in skip else None
        # (not a brand's operating company: "Operated by Kingsley Software Inc.")
        if (form is None or form.start() < 2 or form.start() > 60
                or seller_labels("en", "operator").search(line.folded)):
            continue
        block = " ".join(ln.folded for ln in doc.lines[line.index:line.index + 3])
        if BANK_DETAILS.search(block) and registration.search(block):
            out.add(line.index)
    return out


#: a bank account's labels on a bill's footer
BANK_DETAILS = re.compile(r"(?<!\w)(?:iban|bic|swift)(?!\w)")


@functools.cache
def _contact() -> tuple[re.Pattern[str], frozenset[str]]:
    """The label of a person on either side ("Your reference", "Ihr Zeichen", "Vår referens",
    "Ansprechpartner": the lexicons' "contact" labels, of every language), and the longest
    word of each label (folded): the pattern is run only on text holding one of them."""
    phrases = {fold(p) for code in LANGUAGES for p in load(code)["labels"].get("contact", [])}
    hints = frozenset(max(p.split(), key=len) for p in phrases)
    return re.compile(alternation(phrases) + r"\s*[:：.]?\s*"), hints


def contact_persons(doc: Doc) -> list[str]:
    """The names after a contact person's or a reference's label ("Er referens: Anna
    Svensson"), on its line or, after a label alone, on the next."""
    out: list[str] = []
    pattern, hints = _contact()
    if not any(hint in doc.folded for hint in hints):
        return out
    for m in pattern.finditer(doc.folded):
        line = doc.line_at(m.start())
        rest = doc.text[m.end():line.start + len(line.text)]
        if not rest.strip() and line.index + 1 < len(doc.lines):
            rest = doc.lines[line.index + 1].text
        name = rest[:_CONTACT_END.search(rest).start()].strip()  # type: ignore[union-attr]
        if _WORD.search(name):
            out.append(name)
    return out


def side_by_side(segment: str) -> list[str]:
    """`segment` cut after its first legal form when another name with its own form follows
    (two columns joined by a text layer: "Kowalski IT Sp. z o.o. Nowak Handel S.A." is the
    seller beside the buyer); else `[segment]`."""
    if legal_suffix(segment) is None:  # (no form at all: the scorer asks this of it anyway)
        return [segment]
    found = legal_suffixes(segment)
    if len(found) < 2:
        return [segment]
    first = found[0]
    if first.start() == 0 and first.group(0).strip() in PREFIX_FORMS:
        return [segment]  # a form written before the name ("PT. TELKOM INDONESIA ... Tbk")
    rest = segment[first.end():]
    later = [m for m in found[1:] if m.start() >= first.end()]
    if not later or not _WORD.search(rest[:later[-1].start() - first.end()]):
        return [segment]
    return [segment[:first.end()], rest.strip()]


@functools.cache
def _mail_header() -> re.Pattern[str]:
    return re.compile(r"\W*(?:" + alternation(common()["mail_headers"]) + r")\s*[:：]")


def mail_header(text: str) -> bool:
    """`text` is an e-mail's subject or sending line ("Subject: Your Cloudflare invoice",
    "Betreff: ...", "Sent: Monday"): it names the message, not its sender."""
    return _mail_header().match(fold(text)) is not None


def label_only(text: str) -> bool:
    """A short label waiting for its value ("Notes :", "Bank details:", and with a speck OCR
    read after it, "Odběratel: ="): no name."""
    stripped = text.rstrip()
    if stripped[-1:] in _SPECKS and stripped[:-1].rstrip().endswith((":", "：")):
        stripped = stripped[:-1].rstrip()
    return (stripped.endswith((":", "：")) and len(stripped.split()) <= 3
            and legal_suffix(stripped) is None)


#: marks OCR reads from a speck or a ruling after a label's colon
_SPECKS = frozenset("=~-_|.,'`")


def colon_below(doc: Doc, line: Line) -> bool:
    """The line below is a lone colon: this line is a label whose colon a text layer put on
    a line of its own ("Notes" / ":")."""
    return line.index + 1 < len(doc.lines) and doc.lines[line.index + 1].text in (":", "：")
