"""Per-language keyword tables (the JSON files beside this module), loaded once and cached.

Each `<lang>.json` holds: `day_first`, `months` (12 lists of names and abbreviations),
`labels` (issue_date, date, due_date, delivery_date, birth_date, period, invoice_number,
other_number, recipient, sender, operator, total, registration), `types` (document type -> keywords;
a leading `^` means "counts only in the heading", a leading `*` "also as the end of a
compound word", e.g. `*vertrag` for Mietvertrag, Dienstleistungsvertrag), `common`
(frequent words, for language detection), `unknown`, and optionally `instructions`
(phrasing for customTemplate).
`common.json` holds legal suffixes and currency symbols, `output.json` words per output language.

Matching is done on *folded* text: `fold()` lowercases and strips accents character by character,
so offsets in folded text equal offsets in the original text.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources
from typing import Any

LANGUAGES: tuple[str, ...] = (
    "en", "de", "fr", "es", "it", "pt", "nl", "pl", "sv", "da", "no", "fi", "cs", "tr",
    "id", "ja", "zh", "ko", "ar", "hi",
)
#: output codes read with another code's table (regional variants and scripts)
TABLE_OF: dict[str, str] = {"pt-BR": "pt", "zh-Hans": "zh", "zh-Hant": "zh"}
#: the script of each lexicon language (Latin when not listed)
SCRIPTS: dict[str, str] = {"ja": "cjk", "zh": "cjk", "ko": "cjk", "ar": "arabic",
                           "hi": "devanagari"}


def kin(language: str) -> tuple[str, ...]:
    """The lexicon languages written in the script of `language`, without it: the ones whose
    specific words are worth looking for in its documents (besides English)."""
    script = SCRIPTS.get(language, "latin")
    return tuple(lang for lang in LANGUAGES
                 if lang != language and SCRIPTS.get(lang, "latin") == script)

_SPECIAL = {
    "ı": "i", "İ": "i", "ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "æ": "a", "Æ": "a", "ß": "s",
    "đ": "d", "Đ": "d", "œ": "o", "Œ": "o", "’": "'", "‘": "'", "ʼ": "'", "\u00a0": " ",
    "\u2009": " ", "\u202f": " ", "–": "-", "—": "-", "‐": "-", "‑": "-", "º": "o", "ª": "a",
    # Arabic: the alef forms and the alef maksura are written interchangeably (and by OCR)
    "أ": "ا", "إ": "ا", "آ": "ا", "ى": "ي",
}


def _build_fold_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for cp in range(0x20, 0x250):
        c = chr(cp)
        low = c.lower()
        if len(low) != 1:
            low = c
        base = "".join(ch for ch in unicodedata.normalize("NFKD", low)
                       if not unicodedata.combining(ch))
        out = base if len(base) == 1 else low
        if out != c:
            table[cp] = out
    for k, v in _SPECIAL.items():
        table[ord(k)] = v
    # full-width forms (Japanese, Chinese, Korean text) -> ASCII: "２０２４" -> "2024", "：" -> ":"
    for cp in range(0xFF01, 0xFF5F):
        table[cp] = chr(cp - 0xFEE0).lower()
    table[0x3000] = " "  # ideographic space
    table[0xFFE5] = "¥"
    table[0xFFE6] = "₩"
    # Arabic-Indic, Persian and Devanagari digits -> 0-9; Arabic decimal and thousands marks
    for zero in (0x0660, 0x06F0, 0x0966):
        for i in range(10):
            table[zero + i] = str(i)
    table[0x066B] = "."
    table[0x066C] = ","
    return table


_FOLD = _build_fold_table()


def _fold_string(table: dict[int, str]) -> str:
    """`table` as a string indexed by code point, up to its last entry (every value is one
    character): str.translate looks a string up about three times faster than a dict, and keeps
    the characters past its end as they are, as it does those the dict lacks."""
    chars = list(map(chr, range(max(table) + 1)))
    for code, out in table.items():
        chars[code] = out
    return "".join(chars)


_FOLD_STRING = _fold_string(_FOLD)  # (130 kB)


def fold(text: str) -> str:
    """Lowercase and strip accents, one character in, one out (offsets are kept).

    Characters outside Latin (Greek, CJK...) are kept as they are, lowercased where that
    keeps one character. Pure; safe to repeat.
    """
    if text.isascii():  # the table changes only A-Z below 0x80: the same as lower(), 50x faster
        return text.lower()
    out = text.translate(_FOLD_STRING)
    if len(out) != len(text):  # cannot happen with the table above; guard anyway
        return text.lower() if len(text.lower()) == len(text) else text
    return out


def phrase_pattern(phrase: str) -> str:
    """Regex source for a folded keyword: whole words, spaces match runs of blanks."""
    words = [re.escape(w) for w in fold(phrase).split()]
    return r"(?<!\w)" + r"[ \t]+".join(words) + r"(?!\w)"


#: scripts written without blanks between words (Han, kana, and Hangul, whose words carry
#: particles): their keywords match anywhere, not as whole words
_UNSPACED = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf"
                       "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def written_unspaced(phrase: str) -> bool:
    """`phrase` (not empty) begins or ends in a script written without blanks between words
    (Han, kana, Hangul): it matches inside longer runs of text, not as a whole word."""
    return bool(_UNSPACED.match(phrase[0]) or _UNSPACED.match(phrase[-1]))


def alternation(phrases: list[str] | set[str], exact: bool = False,
                then: str = r"(?!\w)", before: str = r"(?<!\w)") -> str:
    """One regex matching any of the phrases as whole words, longest match preferred.

    Built as a trie (shared prefixes factored out), so matching costs about the length of the
    text, not the number of phrases. `exact`: match the phrases as given (no folding). `then`:
    what must follow a phrase (by default: no letter or digit, the end of a word); `before`:
    what must precede it (by default: no letter or digit, the start of a word).
    Phrases in Chinese, Japanese or Korean script match inside longer runs of text too (those
    scripts put no blank between words).
    """
    uniq = {" ".join((p if exact else fold(p)).split()) for p in phrases if p.strip()}
    if not uniq:
        return r"(?!x)x"
    spaced = {p for p in uniq if not written_unspaced(p)}
    source = before + "(?:" + _trie_regex(_trie(spaced)) + ")" + then if spaced else ""
    if len(spaced) < len(uniq):
        # (the lookahead on their first characters is implied by the trie; without it, `re`
        # compares each offset of the text with every first character, hundreds of them)
        firsts = "".join(sorted({re.escape(p[0]) for p in uniq - spaced}))
        unspaced = f"(?=[{firsts}])(?:" + _trie_regex(_trie(uniq - spaced)) + ")"
        source = f"{source}|{unspaced}" if source else unspaced
    return source


def _trie(phrases: set[str]) -> dict[str, Any]:
    trie: dict[str, Any] = {}
    for phrase in phrases:
        node = trie
        for ch in phrase:
            node = node.setdefault(ch, {})
        node[""] = {}
    return trie


def _trie_regex(node: dict[str, Any]) -> str:
    ends = "" in node
    branches = []
    for ch in sorted(k for k in node if k):
        atom = r"[ \t]+" if ch == " " else re.escape(ch)
        branches.append(atom + _trie_regex(node[ch]))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        # prefer the longer phrase, but allow ending here when the longer one fails
        return "(?:" + body + ")?" if len(branches) > 1 else "(?:" + body + ")?"
    return body


@functools.cache
def load(language: str) -> dict[str, Any]:
    """The table of one language (a dict as in its JSON file). Raises KeyError if unknown.

    Regional and script variants read their base table ("pt-BR" -> "pt", "zh-Hant" -> "zh")."""
    language = TABLE_OF.get(language, language)
    if language not in LANGUAGES:
        raise KeyError(language)
    return _read(f"{language}.json")


@functools.cache
def common() -> dict[str, Any]:
    """Legal suffixes, currency symbols (common.json)."""
    return _read("common.json")


@functools.cache
def output_words() -> dict[str, dict[str, str]]:
    """Words used in names per output language (output.json)."""
    return _read("output.json")


def all_tables() -> dict[str, dict[str, Any]]:
    """Every language table, keyed by language code."""
    return {lang: load(lang) for lang in LANGUAGES}


def _read(name: str) -> dict[str, Any]:
    data = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(data)
    return result
