"""One clause -> name rules and folder routes, or a Misread saying why not.

The constructs are read in an order that lets the specific ones claim their words first:
written patterns and date formats, case and separator words, conditions (amounts, dates,
keywords, months, years), groupings, "everything else", folders, field words, document types,
issuers; then filler words ("please", "the", "folder"...). A clause is applied only when every
word of it was understood; otherwise nothing of it is applied and it is reported with the
words that were not understood (half a condition applied would file documents wrongly).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from renamerd.engine.instructions import conditions as cond
from renamerd.engine.instructions.model import Condition, Misread, Rules
from renamerd.engine.instructions.naming_rules import (
    NameWords,
    read_case,
    read_fields,
    read_separator,
)
from renamerd.engine.instructions.patterns import PatternFound, read_pattern, simple_fields
from renamerd.engine.instructions.routes import (
    Pieces,
    build_routes,
    find_dimensions,
    find_else,
    find_issuers,
    find_targets,
    find_types,
)
from renamerd.engine.instructions.scan import Clause
from renamerd.engine.instructions.vocab import Vocab, key, vocab

#: leftover cue words and what their being left over means
_DANGLING = (("over", "an amount condition without an amount"),
             ("under", "an amount condition without an amount"),
             ("at_least", "an amount condition without an amount"),
             ("at_most", "an amount condition without an amount"),
             ("before", "a date condition without a date"),
             ("after", "a date condition without a date"),
             ("containing", "a keyword condition without a keyword (quote it)"),
             ("put", "no folder named (write it after 'in', or quote it)"))


@dataclass
class ClauseRules:
    """What one understood clause adds to the rules."""

    pattern: PatternFound | None = None
    words: NameWords = field(default_factory=NameWords)
    routes: list[Condition] = field(default_factory=list)

    def apply(self, rules: Rules) -> None:
        if self.pattern and self.pattern.parts:
            simple = simple_fields(self.pattern.parts)
            if simple:
                rules.fields, rules.separator, fmt = simple
                rules.pattern = None
                rules.date_format = fmt or rules.date_format
            else:
                rules.pattern, rules.fields = self.pattern.parts, None
        if self.pattern and self.pattern.date_format:
            rules.date_format = self.pattern.date_format
        if self.words.fields:
            rules.fields, rules.pattern = self.words.fields, None
        if self.words.separator is not None:
            rules.separator = self.words.separator
        if self.words.case:
            rules.case = self.words.case
        rules.conditions.extend(self.routes)

    def says_something(self) -> bool:
        return bool(self.pattern or self.words.fields or self.words.separator is not None
                    or self.words.case or self.routes)


def _read_pattern(clause: Clause, words: Vocab) -> PatternFound | None:
    found = read_pattern(clause, words)
    if found is None:
        return None
    cues = [words.rx("format")] + ([words.rx("name")] if found.parts else [])
    for cue in cues:
        for m in list(clause.matches(cue)):
            clause.take(m.start(), m.end())
    naming = any(clause.matches(words.rx("name")))
    if found.date_format and not naming:  # "dates as DD.MM.YYYY": the word "date" is its own
        before = [m for m in clause.matches(words.rx("fields"))
                  if words.fields[key(m.group(0))] == "date" and m.end() <= found.at]
        if before and re.fullmatch(r"\s*(?:\w+\s+){0,3}", clause.text[before[-1].end():found.at]):
            clause.take(before[-1].start(), before[-1].end())
    return found


def _pieces(clause: Clause, words: Vocab) -> Pieces:
    found = (cond.find_amounts(clause, words) + cond.find_dates(clause, words)
             + cond.find_keywords(clause, words) + cond.find_periods(clause, words))
    dims = find_dimensions(clause, words)
    elses = find_else(clause, words)
    naming_only = (any(clause.matches(words.rx("name"))) and not found and not elses
                   and not any(clause.matches(words.rx("types"))))
    targets = find_targets(clause, words, naming_only)
    return Pieces(targets, dims, elses, [], [], found)


def _problem(clause: Clause, words: Vocab, pieces: Pieces, result: ClauseRules,
             unknown: list[str]) -> str | None:
    """Why the clause cannot be applied, or None."""
    for target in pieces.targets:
        if target.error:
            return target.error
    if unknown:
        return f"unknown placeholder {unknown[0]}"
    for _pos, _name, problem in pieces.issuers:
        if problem:
            return problem
    leftover = clause.leftover()
    if leftover:
        folded = {key(w) for w in leftover}
        for kind, reason in _DANGLING:  # a cue left whole, then one whose first word is left
            if any(clause.matches(words.rx(kind))):
                return f"{reason}: '{' '.join(leftover)}' not understood"
        for kind, reason in _DANGLING:
            if folded & {phrase.split()[0] for phrase in words.cues[kind] if " " in phrase}:
                return f"{reason}: '{' '.join(leftover)}' not understood"
        after_number = re.search(r"\d\s*(" + re.escape(leftover[0]) + r")(?!\w)", clause.text)
        if after_number and clause.free(after_number.start(1), after_number.end(1)):
            return f"unknown currency '{leftover[0]}' (write an ISO code such as EUR, GBP, USD)"
        return f"not understood: '{' '.join(leftover)}'"
    if pieces.says_which() and not result.routes:
        return "says which documents but not where they go (no folder named)"
    if not result.says_something():
        return "no instruction found in it"
    return None


def parse_clause(text: str) -> ClauseRules | Misread:
    """Read one clause. Returns what it adds to the rules, or a Misread with the reason."""
    words = vocab()
    clause = Clause(text)
    result = ClauseRules(pattern=_read_pattern(clause, words))
    result.words = NameWords(case=read_case(clause, words),
                             separator=read_separator(clause, words))
    pieces = _pieces(clause, words)
    result.words.fields = read_fields(clause, words)
    if result.words.case or result.words.separator is not None:  # "Dateiname in Großbuchstaben"
        for m in list(clause.matches(words.rx("name"))):
            clause.take(m.start(), m.end())
    pieces.types = find_types(clause, words)
    pieces.issuers = find_issuers(clause, words)
    for kind in ("fillers", "if", "sort", "then", "by"):
        clause.take_words(words.cues[kind])
    result.routes = build_routes(pieces, len(clause.text))
    unknown = list(result.pattern.unknown or []) if result.pattern else []
    problem = _problem(clause, words, pieces, result, unknown)
    if problem:
        return Misread(text, problem)
    return result
