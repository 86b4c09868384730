"""customTemplate (natural language) -> explicit rules the user can read.

A small grammar, understood in English, German, French, Spanish, Italian, Dutch and
Portuguese (the phrasing lives in the `instructions` sections of the lexicon files). The text
is cut into clauses (clauses.py); each clause may give:

- a name pattern: "YYYY-MM-DD - Company - Amount", "{date}_{company}_{number}" with field
  tokens, date formats and literal text (patterns.py), or field words in order ("name it date
  then company"), a separator ("separated by dashes"), a case ("lowercase") (naming_rules.py);
- folder rules: a folder ("in Big/", "nach Jahr") for the documents a condition selects: a
  document type, an issuer ("from Telekom"), an amount ("over 400 GBP"), a date ("before
  2024", "in March"), keywords in the text ("containing 'Strom'"), or "everything else"
  (conditions.py, routes.py).

A clause is applied only when every word of it was understood (a clause not understood whole
is tried in the runs of its comma-separated parts: what is understood of "name it company then
date, dates as DD.MM.YYYY, blah" is applied, "blah" is not); any other clause is listed in
`Rules.not_understood` with the reason (`Misread.reason`), and that list is what an LLM
provider is asked about when one is configured. `Rules.describe()` gives the compiled rules
as lines a user can check (`renamerd rename --explain`).
"""

from __future__ import annotations

import functools
import re

from renamerd.engine.instructions.clauses import split
from renamerd.engine.instructions.fromdict import rules_from_dict
from renamerd.engine.instructions.model import (
    FIELD_NAMES,
    AmountTest,
    Condition,
    DateTest,
    Misread,
    Rules,
)
from renamerd.engine.instructions.parser import ClauseRules, parse_clause
from renamerd.engine.instructions.vocab import INSTRUCTION_LANGUAGES

__all__ = ["FIELD_NAMES", "INSTRUCTION_LANGUAGES", "AmountTest", "Condition", "DateTest",
           "Misread", "Rules", "compile_template", "merge_model_rules", "rules_from_dict"]

MAX_TEMPLATE_CHARS = 4000


#: the most comma-separated parts of one clause tried one by one when the whole is not understood
MAX_PARTS = 12
_COMMA = re.compile(r",\s*")


@functools.lru_cache(maxsize=256)
def _compile_cached(text: str) -> Rules:
    rules = Rules()
    for clause in split(text):
        for result in _parse_parts(clause):
            if isinstance(result, Misread):
                rules.not_understood.append(result)
            else:
                result.apply(rules)
    return rules


def _parse_parts(clause: str) -> list[ClauseRules | Misread]:
    """The clause parsed whole; when that is not understood and commas part it, the longest
    runs of its parts that are, each in turn, and a Misread for each part that is not ("name
    it company then date, dates as DD.MM.YYYY, blah blah" keeps its first two)."""
    whole = parse_clause(clause)
    parts = [p for p in _COMMA.split(clause) if p.strip(" .")]
    if not isinstance(whole, Misread) or len(parts) < 2 or len(parts) > MAX_PARTS:
        return [whole]
    out: list[ClauseRules | Misread] = []
    start = 0
    while start < len(parts):
        longest = len(parts) if start else len(parts) - 1  # (the whole was read above)
        for end in range(longest, start, -1):
            result = parse_clause(", ".join(parts[start:end]))
            if not isinstance(result, Misread) or end == start + 1:
                out.append(result)
                start = end
                break
    return out


def compile_template(text: str | None) -> Rules:
    """Compile a customTemplate into Rules (a fresh copy; cached by text). Never raises:
    what is not understood is in `not_understood`. Text past MAX_TEMPLATE_CHARS is not read
    (and reported)."""
    if not text or not text.strip():
        return Rules()
    text = text.strip()
    rules = _compile_cached(text[:MAX_TEMPLATE_CHARS]).copy()
    if len(text) > MAX_TEMPLATE_CHARS:
        rest = re.sub(r"\s+", " ", text[MAX_TEMPLATE_CHARS:])[:60]
        rules.not_understood.append(Misread(
            rest + "...", f"the instructions are longer than {MAX_TEMPLATE_CHARS} characters; "
            "the rest was not read"))
    return rules


def merge_model_rules(rules: Rules, model: Rules) -> Rules:
    """The built-in rules completed by an LLM's reading of the clauses not understood:
    name rules the built-in reading lacks are taken from the model, the model's folder rules
    are tried after the built-in ones (before "everything else"). The misreads are cleared
    (the model answered them); `source` says both were used."""
    merged = rules.copy()
    if not (merged.fields or merged.pattern) and model.fields:
        merged.fields = list(model.fields)
    for name in ("separator", "case", "date_format"):
        if getattr(merged, name) is None and getattr(model, name) is not None:
            setattr(merged, name, getattr(model, name))
    merged.conditions = merged.conditions + list(model.conditions)
    merged.not_understood = []
    merged.source = "model" if rules.empty else "built-in + model"
    return merged
