"""Folder rules in a clause: where documents go ("in Big/", "into the Expenses folder",
"nach Jahr"), which documents ("invoices", "from Telekom", "everything else"), and how the
pieces group into routes when one clause names several folders ("invoices in A and receipts
in B"): each folder closes a segment; what is written in a segment (or after the last
folder) belongs to that folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from renamerd.engine.instructions.conditions import Found
from renamerd.engine.instructions.model import AmountTest, Condition
from renamerd.engine.instructions.scan import Clause
from renamerd.engine.instructions.vocab import PLACEHOLDERS, Vocab, key
from renamerd.engine.naming import MAX_DEPTH, MAX_PATH_CHARS

_QUOTED = re.compile(r"""\s*["'“”‘’«»]([^"'“”‘’«»]{1,400})["'“”‘’«»]""")
_ELISION = re.compile(r"(?<!\w)(?:d'|dell'|de l')(?=\w)")
_CONJUNCTIONS = frozenset({"and", "und", "et", "y", "e", "en", "or", "oder", "ou", "o", "of"})
_COPULAS = frozenset({"is", "ist", "est", "es", "e", "sind", "are", "zijn", "son", "sono", "sao",
                      "ha", "hat", "has", "then", "dann", "alors", "entonces", "allora", "dan",
                      "entao", "be", "sein", "etre", "ser", "essere"})
_PLACEHOLDER = re.compile(r"\{\s*([^{}]{1,30}?)\s*\}")
_TARGET_TOKEN = re.compile(r"[^\s,;]+")
_ISSUER_TOKEN = re.compile(r"[^\s,;:]+")


@dataclass(frozen=True)
class Target:
    """A folder named at `start`..`end`: `folder` (a template) or `error` (why not)."""

    start: int
    end: int
    folder: str | None
    error: str | None = None


def check_folder(raw: str) -> tuple[str | None, str | None]:
    """(folder template, None) or (None, reason). Placeholders are put in canonical form;
    "..", more than MAX_DEPTH levels or MAX_PATH_CHARS characters are refused."""
    text = raw.strip().strip("/\\").replace("\\", "/")
    segments = [s.strip() for s in text.split("/") if s.strip()]
    if not segments:
        return None, "no folder name"
    if any(s in ("..", ".") for s in segments):
        return None, f"folder '{raw}' is not allowed: '..' would leave the target folder"
    if len(segments) > MAX_DEPTH:
        return None, f"folder '{raw}' has {len(segments)} levels; at most {MAX_DEPTH}"
    if len(text) > MAX_PATH_CHARS:
        return None, f"folder '{raw[:40]}...' is longer than {MAX_PATH_CHARS} characters"
    out = []
    for segment in segments:
        for m in _PLACEHOLDER.finditer(segment):
            if PLACEHOLDERS.get(key(m.group(1)).replace(" ", "_")) is None:
                return None, (f"unknown placeholder {m.group(0)} (use {{year}}, {{month}}, "
                              "{quarter}, {issuer}, {document_type}, {date})")
        out.append(_PLACEHOLDER.sub(
            lambda m: "{" + str(PLACEHOLDERS[key(m.group(1)).replace(" ", "_")]) + "}", segment))
    return "/".join(out), None


#: cue kinds that end a folder or issuer name written without quotes
_STOP_KINDS = ("if", "over", "under", "at_least", "at_most", "before", "after", "containing",
               "else", "name", "put")


def _stops_at(clause: Clause, words: Vocab, kinds: tuple[str, ...], pos: int) -> bool:
    """True when a cue of `kinds` or a conjunction starts at `pos`."""
    word = re.match(r"[\w']+", clause.folded[pos:])
    if word and word.group(0) in _CONJUNCTIONS:
        return True
    return any(words.rx(kind).match(clause.folded, pos) for kind in kinds)


def _strip_edges(words: Vocab, tokens: list[re.Match[str]]) -> list[re.Match[str]]:
    """Drop filler words ("the", "folder", "called"...) at both ends of a folder name."""
    fillers = words.cues["fillers"]
    while len(tokens) > 1 and key(tokens[0].group(0)) in fillers:
        tokens = tokens[1:]
    while len(tokens) > 1 and key(tokens[-1].group(0)) in fillers:
        tokens = tokens[:-1]
    return tokens


def find_targets(clause: Clause, words: Vocab, naming_only: bool) -> list[Target]:
    """Folders after put words ("in", "into", "nach", "dans", "en"...), taken with their cue.
    A plain-word target ends at a comma, a taken part or a word that opens another part
    ("and", "if", "over"...); quote folder names that hold such words. `naming_only`: the
    clause is about the name ("name it ... in lowercase"), so only a quoted or slashed
    target counts."""
    out: list[Target] = []
    for cue in list(clause.matches(words.rx("put"))):
        start = clause.skip_blanks(cue.end())
        if start >= len(clause.text) or not clause.free(cue.start(), start + 1):
            continue
        quoted = _QUOTED.match(clause.text, cue.end())
        if quoted:
            raw, end = quoted.group(1), quoted.end()
        else:
            limit = min(clause.next_taken(start), len(clause.text))
            tokens: list[re.Match[str]] = []
            for m in _TARGET_TOKEN.finditer(clause.text, start, limit):
                if tokens and (_stops_at(clause, words, (*_STOP_KINDS, "from"), m.start())
                               or "," in clause.text[start:m.start()]):
                    break
                tokens.append(m)
            tokens = _strip_edges(words, tokens)
            if not tokens:
                continue
            raw, end = clause.text[tokens[0].start():tokens[-1].end()], tokens[-1].end()
            if naming_only and "/" not in raw and "{" not in raw:
                continue
        if not clause.free(cue.start(), end):
            continue
        folder, error = check_folder(raw)
        clause.take(cue.start(), end)
        out.append(Target(cue.start(), end, folder, error))
    return out


def find_dimensions(clause: Clause, words: Vocab) -> list[tuple[int, str]]:
    """Groupings: "by year and month", "nach Jahr", "par mois", "per anno e azienda"."""
    out: list[tuple[int, str]] = []
    joiners = _CONJUNCTIONS | {"then", "dann", "puis", "luego", "poi", "daarna", "depois"}
    for cue in list(clause.matches(words.rx("by"))):
        dims: list[str] = []
        end = cue.end()
        for m in re.finditer(r"[\w']+", clause.folded[cue.end():]):
            token = m.group(0)
            pos = cue.end() + m.start()
            if not clause.free(pos, pos + len(token)):
                break
            if token in words.dims:
                dims.append(words.dims[token])
                end = pos + len(token)
            elif not (dims and token in joiners):
                break
        if dims:
            if "{year}/{month}" in dims or "{year}/{quarter}" in dims:
                dims = [d for d in dims if d != "{year}"]
            clause.take(cue.start(), end)
            out.append((cue.start(), "/".join(dims)))
    return out


def find_types(clause: Clause, words: Vocab) -> list[tuple[int, str]]:
    out = []
    for m in list(clause.matches(words.rx("types"))):
        clause.take(m.start(), m.end())
        out.append((m.start(), words.types[key(m.group(0))]))
    return out


def find_else(clause: Clause, words: Vocab) -> list[int]:
    out = []
    for m in list(clause.matches(words.rx("else"))):
        clause.take(m.start(), m.end())
        out.append(m.start())
    return out


def find_issuers(clause: Clause, words: Vocab) -> list[tuple[int, str, str | None]]:
    """(offset, issuer, problem) after "from"/"von"/"de"/"d'"...: the words up to the next
    taken part, a comma or a word that opens another part; copulas at the end are dropped.
    `problem` names a relative date ("from last year") the built-in reader cannot do."""
    out: list[tuple[int, str, str | None]] = []
    cues = list(clause.matches(words.rx("from"))) + list(clause.matches(_ELISION))
    for cue in sorted(cues, key=lambda m: m.start()):
        if not clause.free(cue.start(), cue.end()):
            continue
        start = clause.skip_blanks(cue.end())
        limit = clause.next_taken(start)
        tokens = []
        for m in _ISSUER_TOKEN.finditer(clause.text, start, limit):
            if _stops_at(clause, words, _STOP_KINDS, m.start()) \
                    or "," in clause.text[start:m.start()]:
                break
            tokens.append(m)
        while tokens and key(tokens[-1].group(0)) in _COPULAS | words.cues["fillers"]:
            tokens.pop()
        if not tokens:
            continue
        name = clause.text[tokens[0].start():tokens[-1].end()].strip(" .:\"'")
        if not name or len(name) > 60:
            continue
        folded = {re.sub(r"^(?:l|d|dell|de l)'", "", key(t.group(0))) for t in tokens}
        problem = None
        if folded & words.cues["relative"] and folded & set(words.dims):
            problem = f"relative dates ('{name}') are not understood: write the year or month"
        clause.take(cue.start(), tokens[-1].end())
        out.append((cue.start(), name, problem))
    return out


@dataclass
class Pieces:
    """Everything a clause said about folders, with offsets."""

    targets: list[Target]
    dims: list[tuple[int, str]]
    elses: list[int]
    types: list[tuple[int, str]]
    issuers: list[tuple[int, str, str | None]]
    conditions: list[Found]

    def says_which(self) -> bool:
        """True when the clause selects documents (type, issuer, amount, date...)."""
        return bool(self.types or self.issuers or self.conditions or self.elses)


def build_routes(pieces: Pieces, length: int) -> list[Condition]:
    """The clause's routes: one per folder (or per grouping when no folder is named), and
    one per document type named for it."""
    folders = sorted((t.end, t.folder or "") for t in pieces.targets if t.folder)
    if not folders:
        folders = [(length, "")]
    routes: list[Condition] = []
    lower = -1
    for index, (end, folder) in enumerate(folders):
        upper = length if index == len(folders) - 1 else end

        def inside(pos: int, lo: int = lower, hi: int = upper) -> bool:
            return lo < pos <= hi

        dims = [d for pos, d in pieces.dims if inside(pos)]
        path = "/".join(p for p in (folder, *dims) if p)
        if not path:
            lower = end
            continue
        found = [f for f in pieces.conditions if inside(f.start)]
        amounts = [f.value for f in found if f.kind == "amount"]
        currencies = {a.currency for a in amounts if a.currency}
        if len(currencies) == 1:  # "under 100 and over 50 EUR": both in euros
            amounts = [AmountTest(a.op, a.value, a.currency or next(iter(currencies)))
                       for a in amounts]
        types: list[str | None] = list(dict.fromkeys(t for pos, t in pieces.types
                                                     if inside(pos)))
        route = Condition(
            path, None, next((name for pos, name, _p in pieces.issuers if inside(pos)), None),
            tuple(amounts), tuple(f.value for f in found if f.kind == "dates"),
            next((f.value for f in found if f.kind == "year"), None),
            next((f.value for f in found if f.kind == "month"), None),
            tuple(k for f in found if f.kind == "keywords" for k in f.value))
        if not types and not route.tests() and any(inside(pos) for pos in pieces.elses):
            route = replace(route, otherwise=True)
        routes.extend(replace(route, document_type=t) for t in types or [None])
        lower = end
    return routes
