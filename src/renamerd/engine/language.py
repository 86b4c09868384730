"""Detect a document's language: by script first (Japanese, Chinese, Korean, Arabic, Hindi
are told apart by their letters), then from lexicon hits (common words, labels, type keywords)
for the languages written in Latin letters; then the regional variant (pt-BR, zh-Hans/Hant)."""

from __future__ import annotations

import functools
import re

from renamerd.engine.lexicon import LANGUAGES, alternation, fold, load

KEYWORD_WEIGHT = 3.0  # labels and type words are specific; common words count 1
#: share of the letters a non-Latin script needs to decide the language on its own
SCRIPT_SHARE = 0.2

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_ARABIC = re.compile(r"[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]")
_DEVANAGARI = re.compile(r"[\u0900-\u097f]")
_LETTER = re.compile(r"[^\W\d_]")

#: characters written only in simplified or only in traditional Chinese (frequent in documents)
_SIMPLIFIED = frozenset("发号额计总单货价税务开据银户账对电话码编项"
                        "应购买卖销门东国区证书报费险们这为时间会业经联关实际")
_TRADITIONAL = frozenset("發號額計總單貨價稅務開據銀戶帳對電話碼編項"
                         "應購買賣銷門東國區證書報費險們這為時間會業經聯關實際")
_SIMPLIFIED_ONLY = _SIMPLIFIED - _TRADITIONAL
_TRADITIONAL_ONLY = _TRADITIONAL - _SIMPLIFIED
#: words that tell Brazilian from European Portuguese documents
_BRAZIL = re.compile(r"(?<!\w)(?:cnpj|cpf|r\$|nota fiscal|nf-e|nfs-e|danfe|boleto|inscricao estadual|"
                     r"ltda|brasil|sao paulo|rio de janeiro|cep)(?!\w)")
_PORTUGAL = re.compile(r"(?<!\w)(?:nif|nipc|contribuinte|iva|lda|portugal|lisboa|porto|"
                       r"codigo postal)(?!\w)|€")


@functools.cache
def _table() -> tuple[re.Pattern[str], dict[str, tuple[tuple[str, float], ...]]]:
    """One regex over every language's words, and who each word belongs to (with weight)."""
    owners: dict[str, dict[str, float]] = {}

    def add(word: str, lang: str, weight: float) -> None:
        key = " ".join(fold(word).split())
        if key:
            slot = owners.setdefault(key, {})
            slot[lang] = max(slot.get(lang, 0.0), weight)

    for lang in LANGUAGES:
        table = load(lang)
        for w in table["common"]:
            add(w, lang, 1.0)
        for phrases in table["labels"].values():
            for p in phrases:
                if len(p) > 3:
                    add(p, lang, KEYWORD_WEIGHT)
        for phrases in table["types"].values():
            for p in phrases:
                add(p.lstrip("^"), lang, KEYWORD_WEIGHT)
        for month in table["months"]:
            for m in month:
                if len(m) > 4:
                    add(m, lang, KEYWORD_WEIGHT)
    frozen = {k: tuple(v.items()) for k, v in owners.items()}
    return re.compile(alternation(set(owners))), frozen


def script_language(text: str) -> str | None:
    """The language a non-Latin script decides on its own ("ja", "zh", "ko", "ar", "hi"), or
    None when Latin letters dominate. Kana among Chinese characters means Japanese. Pure."""
    if text.isascii():
        return None
    letters = len(_LETTER.findall(text))
    if not letters:
        return None
    han, kana = len(_HAN.findall(text)), len(_KANA.findall(text))
    counts = {"ko": len(_HANGUL.findall(text)), "ar": len(_ARABIC.findall(text)),
              "hi": len(_DEVANAGARI.findall(text)), "cjk": han + kana}
    best = max(counts, key=lambda k: counts[k])
    if counts[best] < max(3, SCRIPT_SHARE * letters):
        return None
    if best == "cjk":
        return "ja" if kana else _japanese_or_chinese(fold(text))
    return best


def _japanese_or_chinese(folded: str) -> str:
    """Text in Chinese characters only: Japanese when its words say so (請求書, 円...)."""
    pattern, owners = _table()
    scores = {"ja": 0.0, "zh": 0.0}
    for m in pattern.finditer(folded):
        for lang, weight in owners.get(m.group(0), ()):
            if lang in scores:
                scores[lang] += weight
    return "ja" if scores["ja"] > scores["zh"] else "zh"


def detect(folded: str, max_chars: int = 6000) -> tuple[str | None, dict[str, float]]:
    """Return (best language or None when nothing matched, scores per language).

    `folded` must come from `lexicon.fold`. A script other than Latin decides at once; else
    one regex pass over the first `max_chars` characters, where a word shared by several
    languages counts for each. Pure; safe to repeat.
    """
    head = folded[:max_chars]
    by_script = script_language(head)
    if by_script is not None:
        return by_script, {by_script: 1.0}
    pattern, owners = _table()
    scores: dict[str, float] = {}
    for m in pattern.finditer(head):
        for lang, weight in owners.get(_SPACES.sub(" ", m.group(0)), ()):
            scores[lang] = scores.get(lang, 0.0) + weight
    if not scores:
        return None, scores
    best = max(scores, key=lambda k: (scores[k], -LANGUAGES.index(k)))
    return best, scores


def regional(language: str, text: str) -> str:
    """The output-language code of a detected lexicon language: "zh" becomes "zh-Hans" or
    "zh-Hant" by its characters, "pt" becomes "pt-BR" on Brazilian marks (CNPJ, R$, nota
    fiscal...) in `text`; other codes are returned unchanged (`text` is folded only for those
    two). Pure."""
    if language not in ("zh", "pt"):
        return language
    folded = fold(text)
    if language == "zh":
        simplified = sum(1 for ch in folded if ch in _SIMPLIFIED_ONLY)
        traditional = sum(1 for ch in folded if ch in _TRADITIONAL_ONLY)
        return "zh-Hant" if traditional > simplified else "zh-Hans"
    brazil = len(_BRAZIL.findall(folded))
    return "pt-BR" if brazil > len(_PORTUGAL.findall(folded)) else "pt"


_SPACES = re.compile(r"[ \t]+")
