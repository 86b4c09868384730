"""Cut a customTemplate into clauses: lines, sentences, ";", and before a comma or "and" that
opens a new instruction ("..., if ...", "... and everything else in Small/", "..., name them
date then company"). Written patterns are never cut ("YYYY-MM-DD - Company - Amount.").
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.instructions.vocab import vocab

_AND = r"(?:and|und|et|y|e|en|and\s+then|und\s+dann)"
_NAME_WORDS = (r"name|nenne|benenne|dateiname|filename|file\s+name|nomme|nommer|nom\s+du\s+fichier|"
               r"nombra|nombre\s+del\s+archivo|chiama|nome\s+del\s+file|noem|bestandsnaam|nomeie|"
               r"nome\s+do\s+arquivo")
_OPENERS = (r"if|wenn|falls|si|se|als|indien|when|quando|cuando|all|alle|tous|toutes|todos|"
            r"todas|tutti|tutte")


@functools.cache
def _breaks() -> re.Pattern[str]:
    words = vocab()
    others = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in words.cues["else"]),
                             key=len, reverse=True))
    return re.compile(
        r"[\n;]+"
        # a sentence end: ". " before a capital letter (not inside "D.M." or a number)
        r"|(?<=[\w)\]}/])\.\s+(?=[A-ZÀ-ÖØ-Þ¿¡\"'“«{\[])"
        rf"|,\s+(?=(?:{_AND}\s+)?(?:{_OPENERS})\b)"
        rf"|,\s+(?=(?:{_AND}\s+)?(?:{_NAME_WORDS})\w*\b)"
        rf"|\s+{_AND}\s+(?=(?:nenne|benenne|nomme|nombra|chiama|noem|nomeie|name)\w*\b)"
        rf"|(?:,\s*(?:{_AND}\s+)?|\s+{_AND}\s+)(?=(?:{others})(?!\w))",
        re.I)


def split(text: str) -> list[str]:
    """The clauses of `text`, stripped of blanks and end punctuation, in order."""
    parts = _breaks().split(text)
    return [p.strip(" .,") for p in parts if p and p.strip(" .,")]
