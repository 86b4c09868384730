"""A clause being read: its text, folded, and which characters have been understood.

Every construct the parser recognises takes ("consumes") the characters it used; whatever
words remain at the end were not understood and are reported, so nothing is dropped in
silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from renamerd.engine.lexicon import fold

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


@dataclass
class Clause:
    """One clause of a customTemplate. `text` as written; `folded` (same offsets) for
    matching; `taken[i]` is True once character i is understood."""

    text: str
    folded: str = ""
    taken: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folded = fold(self.text)
        self.taken = [False] * len(self.text)

    def free(self, start: int, end: int) -> bool:
        """True when no character of [start, end) is taken yet."""
        return not any(self.taken[start:end])

    def take(self, start: int, end: int) -> None:
        for i in range(max(start, 0), min(end, len(self.taken))):
            self.taken[i] = True

    def matches(self, pattern: re.Pattern[str], start: int = 0,
                end: int | None = None) -> Iterator[re.Match[str]]:
        """Matches of `pattern` on the folded text whose characters are all still free."""
        for m in pattern.finditer(self.folded, start, len(self.folded) if end is None else end):
            if m.end() > m.start() and self.free(m.start(), m.end()):
                yield m

    def next_taken(self, start: int) -> int:
        """The first taken offset at or after `start` (len(text) when none)."""
        for i in range(start, len(self.taken)):
            if self.taken[i]:
                return i
        return len(self.taken)

    def words(self) -> Iterator[re.Match[str]]:
        """Words (letters/digits runs) of the folded text that are still free."""
        for m in _WORD.finditer(self.folded):
            if self.free(m.start(), m.end()):
                yield m

    def take_words(self, words: frozenset[str]) -> None:
        """Take every free word found in `words` (folded)."""
        for m in list(self.words()):
            if m.group(0) in words:
                self.take(m.start(), m.end())

    def leftover(self) -> list[str]:
        """The words not understood, as written."""
        return [self.text[m.start():m.end()] for m in self.words()]

    def skip_blanks(self, pos: int) -> int:
        while pos < len(self.text) and self.text[pos] in " \t":
            pos += 1
        return pos
