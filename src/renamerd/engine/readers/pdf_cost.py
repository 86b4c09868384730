"""How much work pypdf's text extraction of one PDF page is, known before it starts.

pypdf parses a page's content stream in pure Python (1 to 5 s per decoded MB), parses the
ToUnicode map of every font the page lists, and for each form XObject the page draws parses
the form's stream (and its fonts) again each time it is drawn; one byte of text may become up
to 256 characters through a font's ToUnicode map. `page_cost(page, limit)` adds all of that
up from decoded stream sizes (zlib decodes in milliseconds what pypdf parses in minutes), so
a hostile page is refused before pypdf spends minutes or gigabytes on it.

The sum is an upper bound: a name drawn inside a string literal counts as drawn, a font
listed but never used counts, and pypdf's own cap on forms drawn (5000) is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

#: forms drawing forms deeper than this are refused (real documents nest two or three)
MAX_FORM_DEPTH = 12
#: what a font costs besides its ToUnicode map (widths, encoding, descriptor)
FONT_BASE_COST = 1024

#: `/Name Do`, comments and blanks allowed between (a name may spell bytes as #xx)
_DO = re.compile(rb"/([^\s/\[\]()<>{}%]*)(?:\s|%[^\r\n]*)*Do(?![^\s\[\]()<>{}/%])")
_NAME_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
#: hex strings of a CMap: a destination of n hex digits is n / 4 UTF-16 code units
_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")


class OverLimit(Exception):
    """The page is refused; `str()` says why ("" when it is only too big)."""


@dataclass(frozen=True)
class PageCost:
    """content_bytes: decoded bytes pypdf parses (forms counted each time drawn, font maps
    each time listed); expansion: most characters one byte of text may become."""

    content_bytes: int
    expansion: int


class _Walk:
    """One page's sum. `pending` is cost found but not yet added by a caller: every step
    checks total + pending against the limit, so the walk stops as soon as it is passed."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.expansion = 1
        self.form_costs: dict[int, int] = {}
        self.font_costs: dict[int, int] = {}
        self.on_path: set[int] = set()

    def check(self, pending: int) -> None:
        if self.total + pending > self.limit:
            raise OverLimit("")

    def contents(self, contents: object) -> bytes:
        """The page's content bytes (an array of streams joined), counted as they decode."""
        contents = _resolve(contents)
        streams = list(contents) if isinstance(contents, ArrayObject) else [contents]
        parts: list[bytes] = []
        for item in streams:
            stream = _resolve(item)
            if isinstance(stream, StreamObject):
                data = stream.get_data()
                self.total += len(data) + 1
                self.check(0)
                parts.append(data)
        return b"\n".join(parts)

    def drawing(self, data: bytes, resources: object, depth: int, pending: int) -> int:
        """What parsing `data` once pulls in besides its own bytes: the fonts its resources
        list, and each form it draws, once per drawing."""
        resources = _resolve(resources)
        if not isinstance(resources, DictionaryObject):
            return 0
        cost = self.fonts(resources.get("/Font"), pending)
        xobjects = _resolve(resources.get("/XObject"))
        if not isinstance(xobjects, DictionaryObject) or b"Do" not in data:
            return cost
        drawn: dict[str, int] = {}
        for match in _DO.finditer(data):
            name = "/" + _NAME_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]),
                                          match.group(1)).decode("latin-1")
            drawn[name] = drawn.get(name, 0) + 1
        for name, times in drawn.items():
            form = _resolve(xobjects.get(name))
            if isinstance(form, StreamObject) and form.get("/Subtype") == "/Form":
                cost += times * self.form(form, depth + 1, pending + cost)
                self.check(pending + cost)
        return cost

    def form(self, form: StreamObject, depth: int, pending: int) -> int:
        """Cost of drawing `form` once."""
        key = id(form)
        if key in self.on_path:
            raise OverLimit("a form on it draws itself")
        if key not in self.form_costs:
            if depth > MAX_FORM_DEPTH:
                raise OverLimit(f"it nests forms more than {MAX_FORM_DEPTH} deep")
            self.on_path.add(key)
            data = form.get_data()
            self.check(pending + len(data))
            cost = len(data) + self.drawing(data, form.get("/Resources"), depth,
                                            pending + len(data))
            self.on_path.discard(key)
            self.form_costs[key] = cost
        return self.form_costs[key]

    def fonts(self, fonts: object, pending: int) -> int:
        fonts = _resolve(fonts)
        if not isinstance(fonts, DictionaryObject):
            return 0
        cost = 0
        for name in fonts:
            font = _resolve(fonts[name])
            if not isinstance(font, DictionaryObject):
                continue
            key = id(font)
            if key not in self.font_costs:
                self.font_costs[key] = self.font(font, pending + cost)
            cost += self.font_costs[key]
            self.check(pending + cost)
        return cost

    def font(self, font: DictionaryObject, pending: int) -> int:
        cost = FONT_BASE_COST
        to_unicode = _resolve(font.get("/ToUnicode"))
        if isinstance(to_unicode, StreamObject):
            data = to_unicode.get_data()
            cost += len(data)
            self.check(pending + cost)
            longest = max((len(m.group(1)) for m in _HEX.finditer(data)), default=0)
            self.expansion = max(self.expansion, longest // 4)
        encoding = _resolve(font.get("/Encoding"))
        if isinstance(encoding, DictionaryObject):
            differences = _resolve(encoding.get("/Differences"))
            if isinstance(differences, ArrayObject):
                for item in differences:
                    if isinstance(item, str):  # a glyph name ("uni00410042": two characters)
                        self.expansion = max(self.expansion, len(item) // 4)
        return cost


def _resolve(obj: object) -> object:
    get_object = getattr(obj, "get_object", None)
    return get_object() if get_object is not None else obj


def page_cost(page: DictionaryObject, limit: int) -> PageCost:
    """What extracting `page`'s text costs.

    Raises OverLimit as soon as the sum passes `limit` decoded bytes (at most one stream past
    the limit is decoded), or for forms that draw themselves or nest too deep; what pypdf
    raises on broken or bomb streams (the caller maps those).
    """
    walk = _Walk(limit)
    data = walk.contents(page.get("/Contents"))
    walk.total += walk.drawing(data, page.get("/Resources"), 0, 0)
    walk.check(0)
    return PageCost(walk.total, walk.expansion)
