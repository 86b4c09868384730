"""Name rules written in words: "name it date then company then invoice number", "separated
by dashes", "getrennt durch Unterstriche", "lowercase", "en majuscules"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from renamerd.engine.instructions.scan import Clause
from renamerd.engine.instructions.vocab import Vocab, key

#: "with" words: a separator cue only when a separator word follows ("with dashes")
_WITH = frozenset({"with", "mit", "con", "com", "met", "avec des", "avec"})
_LITERAL_SEPARATOR = re.compile(r"""\s*["'“«]?([-_. +~])["'”»]?(?!\w)""")


@dataclass
class NameWords:
    """What a clause said of the name in words."""

    fields: list[str] | None = None
    separator: str | None = None
    case: str | None = None


def read_case(clause: Clause, words: Vocab) -> str | None:
    for kind in ("lower", "upper"):
        for m in list(clause.matches(words.rx(kind))):
            clause.take(m.start(), m.end())
            return kind
    return None


def read_separator(clause: Clause, words: Vocab) -> str | None:
    """A separator after a "separated by" cue: a word ("dashes") or a character ("_")."""
    for cue in list(clause.matches(words.rx("separated"))):
        after = cue.end()
        named = next(iter(clause.matches(words.rx("separators"), after,
                                         min(after + 20, len(clause.text)))), None)
        if named and not clause.text[after:named.start()].strip(" :"):
            clause.take(cue.start(), named.end())
            return words.separators[key(named.group(0))]
        literal = _LITERAL_SEPARATOR.match(clause.text, after)
        if literal and key(cue.group(0)) not in _WITH and clause.free(cue.start(), literal.end()):
            clause.take(cue.start(), literal.end())
            return literal.group(1)
    return None


def read_fields(clause: Clause, words: Vocab) -> list[str] | None:
    """Field words in the order written, when the clause names the file ("name it", "Name:",
    "nomme-le") or lists two fields or more; the name cue and "then" words are taken."""
    cues = list(clause.matches(words.rx("name")))
    hits = [m for m in clause.matches(words.rx("fields"))]
    if not hits or (not cues and len(hits) < 2):
        return None
    fields: list[str] = []
    for m in hits:
        name = words.fields[key(m.group(0))]
        clause.take(m.start(), m.end())
        if name not in fields:
            fields.append(name)
    for m in cues:
        clause.take(m.start(), m.end())
    for m in list(clause.matches(words.rx("then"))):
        clause.take(m.start(), m.end())
    return fields
