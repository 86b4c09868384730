"""What a customTemplate compiles to: name rules, folder routes with conditions, and the
clauses that were not understood (each with its reason).

Routes are tried in order, the first whose condition matches a document decides its folder;
"everything else" routes come last, whatever their place in the text. Every piece describes
itself in one line (`describe()`), which is what `renamerd rename --explain`, the API
(`instructions.rules`) and the web app show.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from renamerd.engine.lexicon import fold
from renamerd.engine.naming import Part

FIELD_NAMES = ("date", "issuer", "invoice_number", "document_type", "amount", "currency")
#: what each comparison word means, as written in describe()
AMOUNT_OPS = (">", ">=", "<", "<=")


class Misread(str):
    """A clause (or part of one) that was not understood: the text as written, with `reason`
    saying why. Compares and prints as the text itself."""

    reason: str

    def __new__(cls, text: str, reason: str = "") -> Misread:
        obj = super().__new__(cls, text)
        obj.reason = reason
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Misread, (str(self), self.reason))


@dataclass(frozen=True)
class AmountTest:
    """The document's total compared with `value`; with `currency`, only documents in that
    currency match (no conversion)."""

    op: str
    value: Decimal
    currency: str | None = None

    def matches(self, values: Mapping[str, Any]) -> bool:
        raw = values.get("amount")
        if raw in (None, ""):
            return False
        if self.currency and values.get("currency") != self.currency:
            return False
        try:
            amount = Decimal(str(raw))
        except InvalidOperation:
            return False
        return {">": amount > self.value, ">=": amount >= self.value,
                "<": amount < self.value, "<=": amount <= self.value}[self.op]

    def describe(self) -> str:
        value = format(self.value.normalize(), "f")
        return f"amount {self.op} {value}" + (f" {self.currency}" if self.currency else "")


@dataclass(frozen=True)
class DateTest:
    """The document's date before (`op` "<") or after (`op` ">") a day."""

    op: str
    value: dt.date

    def matches(self, values: Mapping[str, Any]) -> bool:
        raw = values.get("date")
        if not raw:
            return False
        try:
            date = dt.date.fromisoformat(str(raw))
        except ValueError:
            return False
        return date < self.value if self.op == "<" else date > self.value

    def describe(self) -> str:
        return f"date {self.op} {self.value.isoformat()}"


@dataclass(frozen=True)
class Condition:
    """Documents matching every test given go to `folder`, a template where {year},
    {month}, {quarter}, {issuer}, {document_type} and {date} are filled in per segment.

    `document_type`: equal; `issuer`: a case/accent-insensitive part of the issuer;
    `amounts`, `dates`: see AmountTest, DateTest (all must hold: "over 100 and under 400");
    `year`, `month`: of the document's date;
    `keywords`: any of them in the document's text (case/accent-insensitive);
    `otherwise`: the route for everything no other route took.
    """

    folder: str
    document_type: str | None = None
    issuer: str | None = None
    amounts: tuple[AmountTest, ...] = ()
    dates: tuple[DateTest, ...] = ()
    year: int | None = None
    month: int | None = None
    keywords: tuple[str, ...] = ()
    otherwise: bool = False

    def matches(self, values: Mapping[str, Any], folded_text: str = "") -> bool:
        """Whether a document with these extracted `values` (and `folded_text`, its text
        folded by `lexicon.fold`, for keywords) takes this route. Pure."""
        if self.document_type and values.get("document_type") != self.document_type:
            return False
        if self.issuer and fold(self.issuer) not in fold(str(values.get("issuer") or "")):
            return False
        if any(not test.matches(values) for test in self.amounts) \
                or any(not test.matches(values) for test in self.dates):
            return False
        if self.year or self.month:
            date = str(values.get("date") or "")
            if not date or (self.year and int(date[:4]) != self.year) \
                    or (self.month and int(date[5:7]) != self.month):
                return False
        return not self.keywords or any(fold(k) in folded_text for k in self.keywords)

    def tests(self) -> list[str]:
        """The tests as short phrases ("document_type = invoice", "amount > 400 GBP")."""
        out = []
        if self.document_type:
            out.append(f"document_type = {self.document_type}")
        if self.issuer:
            out.append(f"issuer contains '{self.issuer}'")
        out.extend(test.describe() for test in self.amounts)
        out.extend(test.describe() for test in self.dates)
        if self.year:
            out.append(f"year = {self.year}")
        if self.month:
            out.append(f"month = {self.month}")
        if self.keywords:
            out.append("text contains " + " or ".join(f"'{k}'" for k in self.keywords))
        return out

    def describe(self) -> str:
        """One line: "if document_type = invoice and amount > 400 GBP -> folder 'Big'"."""
        if self.otherwise:
            head = "everything else"
        else:
            tests = self.tests()
            head = "if " + " and ".join(tests) if tests else "all documents"
        return f"{head} -> folder '{self.folder}'"


@dataclass
class Rules:
    """A compiled customTemplate. The name is `pattern` when set (fields and literal text),
    else `fields` joined by `separator` ("_" when not given); `case` and `date_format` apply
    to either."""

    fields: list[str] | None = None
    separator: str | None = None
    case: str | None = None  # "lower" | "upper"
    date_format: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    not_understood: list[Misread] = field(default_factory=list)
    source: str = "built-in"
    pattern: list[Part] | None = None

    def describe(self) -> list[str]:
        """The rules as lines a user can check, name rules first, then routes in the order
        they are tried."""
        out: list[str] = []
        if self.pattern:
            out.append("name: " + " + ".join(
                p.value if p.kind == "field" and not p.fmt else
                f"{p.value} ({p.fmt})" if p.kind == "field" else f"'{p.value}'"
                for p in self.pattern))
        elif self.fields:
            out.append("name: " + " + ".join(self.fields))
        if self.separator is not None and not self.pattern:
            out.append(f"separator: '{self.separator}'")
        if self.case:
            out.append(f"case: {self.case}case")
        if self.date_format:
            out.append(f"date format: {self.date_format}")
        out.extend(c.describe() for c in self.ordered_conditions())
        return out

    readable = describe

    def ordered_conditions(self) -> list[Condition]:
        """The routes in the order they are tried ("everything else" last)."""
        return ([c for c in self.conditions if not c.otherwise]
                + [c for c in self.conditions if c.otherwise])

    def folder_for(self, values: Mapping[str, Any], folded_text: str = "") -> str | None:
        """The folder template of the first route that matches, else None."""
        for cond in self.ordered_conditions():
            if cond.matches(values, folded_text):
                return cond.folder
        return None

    def name_parts(self) -> list[Part] | None:
        """The name as a pattern of parts (None when the rules say nothing of the name)."""
        if self.pattern:
            return [Part(p.kind, p.value, p.fmt or self.date_format)
                    if p.kind == "field" and p.value == "date" else p for p in self.pattern]
        if not self.fields:
            return None
        parts: list[Part] = []
        separator = "_" if self.separator is None else self.separator
        for i, name in enumerate(self.fields):
            if i and separator:
                parts.append(Part("text", separator))
            parts.append(Part("field", name, self.date_format if name == "date" else None))
        return parts

    def needs_text(self) -> bool:
        """True when a route tests keywords (the caller must pass the document's text)."""
        return any(c.keywords for c in self.conditions)

    @property
    def empty(self) -> bool:
        return not (self.fields or self.pattern or self.separator is not None or self.case
                    or self.date_format or self.conditions)

    def copy(self) -> Rules:
        return Rules(list(self.fields) if self.fields else None, self.separator, self.case,
                     self.date_format, list(self.conditions), list(self.not_understood),
                     self.source, list(self.pattern) if self.pattern else None)
