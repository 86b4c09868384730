"""Written name patterns: "YYYY-MM-DD - Company - Amount", "{date}_{company}_{number}",
"Rechnung_JJJJ-MM-TT_Firma", and date formats ("DD.MM.YYYY", "TT.MM.JJJJ", "JJ/MM/AAAA").

A pattern is a run of fields (field words, {placeholders}, CamelCase such as InvoiceNumber,
date-format tokens) and literal text (separators, quoted text, words joined to a field without
a blank, e.g. "Rechnung_"). A list of field words joined only by commas or blanks is natural
language ("Datum, Firma, Nummer"), not a pattern: the naming rules read those.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from renamerd.engine.instructions.scan import Clause
from renamerd.engine.instructions.vocab import PLACEHOLDERS, Vocab, key
from renamerd.engine.naming import Part

#: a date format as written: letters for year/month/day in several languages (upper case)
DATE_TOKEN = re.compile(r"(?<![A-Za-z])[YJAGTDM]{2,4}(?:[-./_ ]?[YJAGTDM]{2,4}){0,2}(?![A-Za-z])")
_UNITS = {"YYYY", "YY", "MMMM", "MMM", "MM", "DD"}
_RUN = re.compile(r"([A-Z])\1*")
_QUOTED = re.compile(r"""["“”«»]([^"“”«»]{1,60})["“”«»]|'([^']{1,60})'""")
_PLACEHOLDER = re.compile(r"[{\[]\s*([^{}\[\]]{1,30}?)\s*[}\]]")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORDRUN = re.compile(r"[^\W_]+")
_NATURAL_SEPARATOR = re.compile(r"^\s*,?\s*$")


def date_format(token: str) -> str | None:
    """A written date format in canonical letters (YYYY, YY, MMMM, MMM, MM, DD), or None
    when it is not one: "TT.MM.JJJJ" -> "DD.MM.YYYY", "JJ/MM/AAAA" -> "DD/MM/YYYY"."""
    t = token.upper()
    if "TT" in t:  # German: TT.MM.JJJJ
        t = t.replace("TT", "DD").replace("J", "Y")
    elif "AA" in t:  # French, Spanish, Portuguese, Italian: JJ/MM/AAAA, GG/MM/AAAA
        t = t.replace("A", "Y").replace("J", "D").replace("G", "D")
    else:  # Dutch DD-MM-JJJJ
        t = t.replace("J", "Y")
    units = [m.group(0) for m in _RUN.finditer(t)]
    if not units or any(u not in _UNITS for u in units):
        return None
    if not any(u[0] in "YM" for u in units) or len(set(u[0] for u in units)) < len(units):
        return None  # a format names the month or the year, each unit once
    return t


@dataclass(frozen=True)
class _Item:
    kind: str  # "field" | "date" | "literal" | "word" | "cue" | "sep" | "bad"
    value: str
    start: int
    end: int
    fmt: str | None = None
    written: bool = False  # a field written as {placeholder}, date token or CamelCase


def _field_at(clause: Clause, pos: int, words: Vocab) -> tuple[str, int] | None:
    """(field name, end) of the longest field phrase starting at `pos` (folded text)."""
    m = words.rx("fields").match(clause.folded, pos)
    if m and m.end() > pos:
        return words.fields[key(m.group(0))], m.end()
    return None


def _camel_field(word: str, words: Vocab) -> str | None:
    """"InvoiceNumber" -> invoice_number; "companyname" -> issuer (squeezed field words)."""
    spaced = key(_CAMEL.sub(" ", word))
    if spaced in words.fields:
        return words.fields[spaced]
    return _squeezed(words).get(key(word).replace(" ", ""))


@functools.cache
def _squeezed(words: Vocab) -> dict[str, str]:
    """Field words written without blanks ("invoicenumber") -> field name."""
    return {k.replace(" ", ""): v for k, v in words.fields.items()}


def _items(clause: Clause, words: Vocab) -> list[_Item]:
    text, items, pos = clause.text, [], 0
    while pos < len(text):
        if not clause.free(pos, pos + 1):
            pos += 1
            continue
        token = DATE_TOKEN.match(text, pos)
        fmt = date_format(token.group(0)) if token else None
        quoted = _QUOTED.match(text, pos)
        holder = _PLACEHOLDER.match(text, pos)
        if token and fmt:
            items.append(_Item("date", "date", pos, token.end(), fmt, True))
            pos = token.end()
        elif holder:
            name = PLACEHOLDERS.get(key(holder.group(1)).replace(" ", "_")) or \
                words.fields.get(key(holder.group(1)))
            items.append(_Item("field" if name else "bad", name or holder.group(0), pos,
                               holder.end(), None, True))
            pos = holder.end()
        elif quoted:
            items.append(_Item("literal", quoted.group(1) or quoted.group(2), pos, quoted.end()))
            pos = quoted.end()
        elif (found := _field_at(clause, pos, words)) is not None:
            items.append(_Item("field", found[0], pos, found[1]))
            pos = found[1]
        elif (run := _WORDRUN.match(text, pos)) is not None and \
                key(run.group(0)) in words.cues["name"] | words.cues["format"]:
            items.append(_Item("cue", run.group(0), pos, run.end()))
            pos = run.end()
        elif run is not None:
            camel = _camel_field(run.group(0), words)
            items.append(_Item("field" if camel else "word", camel or run.group(0), pos,
                               run.end(), None, bool(camel)))
            pos = run.end()
        else:
            end = pos + 1
            while end < len(text) and not (text[end].isalnum() or text[end] in "{[\"'“«"):
                end += 1
            items.append(_Item("sep", text[pos:end], pos, end))
            pos = end
    return items


def _glued(items: list[_Item], i: int) -> bool:
    """A plain word belongs to a pattern when a separator without blanks joins it to a field
    or literal ("Rechnung_{date}", "{date}-final"), not to another plain word or a cue."""
    for sep_at, other_at in ((i - 1, i - 2), (i + 1, i + 2)):
        if 0 <= other_at < len(items) and items[sep_at].kind == "sep" \
                and not any(c.isspace() for c in items[sep_at].value) \
                and items[other_at].kind in ("field", "date", "literal"):
            return True
    return False


def _runs(items: list[_Item]) -> list[list[_Item]]:
    """Maximal runs of items that can form one pattern."""
    runs: list[list[_Item]] = []
    current: list[_Item] = []
    for i, item in enumerate(items):
        if item.kind == "cue" or (item.kind == "sep" and "/" in item.value):
            # a cue word ends a pattern; "a/{year}" is a folder path, not a name
            if current:
                runs.append(current)
            current = []
            continue
        if item.kind == "word" and not _glued(items, i):
                if current:
                    runs.append(current)
                current = []
                continue
        current.append(item)
    if current:
        runs.append(current)
    for run in runs:
        while run and run[-1].kind == "sep":
            run.pop()
        while run and run[0].kind == "sep":
            run.pop(0)
    return [r for r in runs if r]


def _is_pattern(run: list[_Item]) -> bool:
    fields = [i for i in run if i.kind in ("field", "date", "bad")]
    literals = [i for i in run if i.kind in ("literal", "word")]
    if len(fields) < 2 and not (fields and literals):
        return False
    seps = [i.value for i in run if i.kind == "sep"]
    written = any(i.written for i in fields) or literals
    # "Datum, Firma, Nummer": field words listed with commas or blanks are natural language
    return bool(written) or not all(_NATURAL_SEPARATOR.match(s) for s in seps)


@dataclass
class PatternFound:
    """What a clause's written pattern gave: a name pattern and/or a date format, and the
    placeholders that were not understood."""

    parts: list[Part] | None = None
    date_format: str | None = None
    unknown: list[str] | None = None
    at: int = 0  # where a lone date format starts in the clause


def read_pattern(clause: Clause, words: Vocab) -> PatternFound | None:
    """Find and take the clause's written name pattern (the longest run) or, failing that,
    a lone date format. Returns None when there is neither."""
    runs = _runs(_items(clause, words))
    patterns = [r for r in runs if _is_pattern(r)]
    if patterns:
        run = max(patterns, key=lambda r: sum(i.kind in ("field", "date") for i in r))
        clause.take(run[0].start, run[-1].end)
        parts = [Part("field", "year") if i.kind == "date" and i.fmt == "YYYY" else
                 Part("field", "date", None if i.fmt == "YYYY-MM-DD" else i.fmt)
                 if i.kind == "date" else Part("field", i.value) if i.kind == "field" else
                 Part("text", i.value) for i in run if i.kind != "bad"]
        unknown = [i.value for i in run if i.kind == "bad"]
        return PatternFound(parts=parts, unknown=unknown or None)
    dates = [i for r in runs for i in r if i.kind == "date"]
    if len(dates) == 1:
        clause.take(dates[0].start, dates[0].end)
        return PatternFound(date_format=dates[0].fmt, at=dates[0].start)
    return None


def simple_fields(parts: list[Part]) -> tuple[list[str], str, str | None] | None:
    """(fields, separator, date format) when a pattern is fields joined by one separator
    (no literal words, at most one date format); None otherwise."""
    fields = [p for p in parts if p.kind == "field"]
    seps = {p.value for p in parts if p.kind == "text"}
    if any(p.kind == "text" and not p.is_separator for p in parts) or len(seps) > 1:
        return None
    if any(a.kind == b.kind for a, b in zip(parts, parts[1:], strict=False)):
        return None  # two fields or two separators side by side
    formats = {p.fmt for p in fields if p.fmt}
    if len(formats) > 1 or any(p.fmt and p.value != "date" for p in fields):
        return None
    return [p.value for p in fields], (seps.pop() if seps else ""), formats.pop() if formats \
        else None
