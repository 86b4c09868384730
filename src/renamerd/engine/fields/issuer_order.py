"""Which of the best issuer candidates names the sender: a letterhead's brand before its own
legal entity ("Hotel Alpenrose" over "Alpenrose Hotelbetriebs GmbH"), a logo read one word a
line before the whole name below it ("WHOLE" / "FOODS" / "WHOLE FOODS MARKET"), a wordmark wrapped over the
letterhead's first two lines joined ("Pinecrest" / "Outfitters"). Pure: each step takes the
candidates best first (fields/issuer.py) and returns them in a new order."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from renamerd.engine.fields.issuer_scores import LETTER_RUN, IssuerCandidate, Page, key
from renamerd.engine.fields.names import business_words, legal_suffix, mend_digits
from renamerd.engine.fields.places import address
from renamerd.engine.lexicon import fold

#: how far a letterhead's brand is put ahead of its own legal entity (a clear lead: the two
#: name one business)
BRAND_LEAD = 1.5


def best_first(ctx: Page, cands: list[IssuerCandidate]) -> list[IssuerCandidate]:
    """`cands` (best first) with the whole name, the brand and the joined wordmark put first
    where the page shows them (the steps below, in this order)."""
    return _wordmark_joined(ctx, _brand_first(ctx, _whole_name_first(cands)))


def _brand_first(ctx: Page, cands: list[IssuerCandidate]) -> list[IssuerCandidate]:
    """`cands` with the letterhead's brand first when the best one is its own legal entity
    named below the letterhead ("Hotel Alpenrose" over "Alpenrose Hotelbetriebs GmbH" in the
    footer: either is right; the brand the customer knows is preferred). Same brand: a word
    of four letters or more, not a kind of business, in both names; not a word from inside
    the legal name after its acronym ("INVESTMENT" over "TPI Investment GmbH": a logo read in
    part)."""
    if len(cands) < 2 or legal_suffix(cands[0].value) is None:
        return cands
    top = cands[0]
    if top.line.index in ctx.rank or any(  # (a legal name in the letterhead too is printed)
            ctx.rank.get(c.line.index, 99) <= 1 and key(c.value) == key(top.value)
            for c in cands[1:4]):
        return cands
    words = _brand_words(top.value)
    for cand in cands[1:4]:
        if (ctx.rank.get(cand.line.index, 99) <= 1 and cand.line.index < top.line.index
                and legal_suffix(cand.value) is None and words & _brand_words(cand.value)
                and not _inside_name(cand.value, top.value)):
            brand = IssuerCandidate(cand.value, cand.line, top.score + BRAND_LEAD,
                                    (*cand.reasons, "brand of the legal entity below"))
            return [brand, *(c for c in cands if c is not cand)]
    return cands


def _whole_name_first(cands: list[IssuerCandidate]) -> list[IssuerCandidate]:
    """`cands` with the best one's whole name first when a candidate as good, a few lines
    below, starts with it: a logo read one word a line ("WHOLE" / "FOODS" / "WHOLE FOODS
    MARKET - WESTPORT"); nearly as good when its first words are the logo's."""
    if len(cands) < 2:
        return cands
    top = cands[0]
    start = key(top.value)
    for cand in cands[1:3]:
        if (0 < cand.line.index - top.line.index <= 3
                and len(start) >= 3 and key(cand.value).startswith(start)
                and len(cand.value) > len(top.value)
                and (cand.score >= top.score or (cand.score >= top.score - 2.0
                                                 and _opens_with(cand.value, start)
                                                 and not address(cand.line.text)))):
            return [cand, *(c for c in cands if c is not cand)]
    return cands


def _opens_with(name: str, letters: str) -> bool:
    """`name`'s first words spell `letters` (a key) and more words than a legal form follow:
    a logo above its name, kerned or spaced apart ("KAV YA" / "Kavya Print Solutions"), not a
    word that begins another, nor the brand's own legal entity ("banh mi cafe sdn bhd")."""
    form = legal_suffix(name)
    if form is not None and key(name[:form.start()]) == letters:
        return False
    words = name.split()
    return any(key(" ".join(words[:n])) == letters for n in range(1, min(3, len(words)) + 1))


def _wordmark_joined(ctx: Page, cands: list[IssuerCandidate]) -> list[IssuerCandidate]:
    """`cands` with a wordmark wrapped over the letterhead's first two lines joined first
    ("Pinecrest" / "Outfitters", "H O T E L L" / "STRANDVIK", "Clínica Veterinaria" /
    "ALAMEDA", "FARMACIA" / "SAN ROCCO"): the best one is the whole first or second line of
    the letterhead, and the other line a candidate too (`_wordmark_words`), without digits or
    legal form."""
    if len(cands) < 2 or ctx.rank.get(cands[0].line.index) not in (0, 1):
        return cands
    top = cands[0]
    for cand in cands[1:4]:
        first, second = (top, cand) if ctx.rank[top.line.index] == 0 else (cand, top)
        if (second.line.index == first.line.index + 1
                and ctx.rank.get(first.line.index) == 0 and ctx.rank.get(second.line.index) == 1
                and _wordmark_words(first.value, second.value)
                and all(_whole_line_name(c) for c in (first, second))
                # (not the logo read again: "REWE" / "R E U E")
                and SequenceMatcher(None, key(first.value), key(second.value)).ratio() < 0.6):
            whole = IssuerCandidate(f"{first.value} {second.value}", first.line, top.score,
                                    (*top.reasons, "wordmark over two lines"))
            return [whole, *(c for c in cands if c is not cand and c is not top)]
    return cands


def _wordmark_words(first: str, second: str) -> bool:
    """A wordmark's two lines: two words over one, one over one, or a kind of business over
    a name of two words ("FARMACIA" / "SAN ROCCO"; not "ŽELAZKO" / "Market Budowlany")."""
    above, below = len(first.split()), len(second.split())
    if below == 1:
        return above <= 2
    return above == 1 and below == 2 and business_words().fullmatch(fold(first)) is not None


def _whole_line_name(cand: IssuerCandidate) -> bool:
    """`cand` is all of its line (as OCR's digits for letters are mended: "HOLLYBRO0K"),
    without digits or a legal form."""
    return (key(cand.value) == key(mend_digits(cand.line.text))
            and legal_suffix(cand.value) is None
            and not any(map(str.isdigit, cand.value)))


def _inside_name(part: str, name: str) -> bool:
    """`part` is `name` without the acronym opening it ("INVESTMENT" of "TPI Investment
    GmbH": a logo whose letters are drawn, not read)."""
    words = name.split()
    return (len(words) > len(part.split()) and _ACRONYM.fullmatch(words[0]) is not None
            and legal_suffix(words[0]) is None  # (not a form before it: "SARL Plomberie")
            and key(" ".join(words[1:])).startswith(key(part)))


#: an acronym: two to four capitals
_ACRONYM = re.compile(r"[A-Z]{2,4}")


def _brand_words(name: str) -> set[str]:
    folded = business_words().sub(" ", fold(name))
    return {w for w in LETTER_RUN.findall(folded) if len(w) >= 4}
