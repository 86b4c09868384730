"""Google API plumbing of the Drive emulator: error bodies, `fields=` partial responses, and a
subset of Drive's `q` search language compiled to a predicate over items."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from starlette.responses import JSONResponse


class QueryItem(Protocol):
    """What a `q` predicate reads of an item."""

    name: str
    mime: str
    parent: str | None
    trashed: bool
    created: str
    modified: str

class ApiError(Exception):
    def __init__(self, status: int, reason: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.reason, self.message, self.extra = status, reason, message, extra

    def response(self) -> JSONResponse:
        err = {"domain": "global", "reason": self.reason, "message": self.message, **self.extra}
        body = {"error": {"code": self.status, "message": self.message, "errors": [err]}}
        headers = {}
        if self.status == 401:
            headers["www-authenticate"] = 'Bearer realm="https://accounts.google.com/"'
        return JSONResponse(body, status_code=self.status, headers=headers)


def not_found(file_id: str) -> ApiError:
    return ApiError(404, "notFound", f"File not found: {file_id}.", location="fileId",
                    locationType="parameter")


def invalid(message: str, location: str) -> ApiError:
    return ApiError(400, "invalid", message, location=location, locationType="parameter")


# ------------------------------------------------------------------ partial responses (fields=)


_FIELD = re.compile(r"\s*([A-Za-z_*][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*)\s*")


def parse_fields(spec: str) -> dict[str, Any]:
    """"a,b(c,d/e)" -> {"a": None, "b": {"c": None, "d": {"e": None}}}. None: the whole value."""
    pos = 0

    def merge(out: dict[str, Any], key: str, sub: Any) -> None:
        if key not in out:
            out[key] = sub
        elif isinstance(out[key], dict) and isinstance(sub, dict):
            for k, v in sub.items():
                merge(out[key], k, v)
        else:
            out[key] = None  # a bare name selects the whole value

    def parse_list() -> dict[str, Any]:
        nonlocal pos
        out: dict[str, Any] = {}
        while True:
            m = _FIELD.match(spec, pos)
            if not m:
                raise invalid(f"Invalid field selection {spec}", "fields")
            pos = m.end()
            parts = m.group(1).split("/")
            sub: Any = None
            if pos < len(spec) and spec[pos] == "(":
                pos += 1
                sub = parse_list()
                if pos >= len(spec) or spec[pos] != ")":
                    raise invalid(f"Invalid field selection {spec}", "fields")
                pos += 1
            for part in reversed(parts[1:]):
                sub = {part: sub}
            merge(out, parts[0], sub)
            while pos < len(spec) and spec[pos] == " ":
                pos += 1
            if pos < len(spec) and spec[pos] == ",":
                pos += 1
                continue
            return out

    tree = parse_list()
    if spec[pos:].strip():
        raise invalid(f"Invalid field selection {spec}", "fields")
    return tree


def apply_fields(value: Any, tree: dict[str, Any] | None) -> Any:
    if tree is None or "*" in tree:
        return value
    if isinstance(value, list):
        return [apply_fields(v, tree) for v in value]
    if not isinstance(value, dict):
        return value
    return {k: apply_fields(value[k], sub) for k, sub in tree.items() if k in value}


# ------------------------------------------------------------------ the q language subset

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^'\\]|\\.)*')|(?P<op>!=|<=|>=|=|<|>)|(?P<lp>\()|(?P<rp>\))"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*))"
)
Pred = Callable[[QueryItem], bool]


def _both(a: Pred, b: Pred) -> Pred:
    return lambda it: a(it) and b(it)


def _either(a: Pred, b: Pred) -> Pred:
    return lambda it: a(it) or b(it)


_GETTERS: dict[str, Callable[[QueryItem], str]] = {
    "name": lambda it: it.name, "mimeType": lambda it: it.mime,
    "modifiedTime": lambda it: it.modified, "createdTime": lambda it: it.created,
}
_OPS: dict[str, Callable[[str, str], bool]] = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}


def _tokenize(q: str) -> list[tuple[str, str]]:
    """(kind, text) tokens of `q`: str (unquoted), op, lp, rp, word. Raises ApiError."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(q.rstrip()):
        m = _TOKEN.match(q, pos)
        if not m or m.end() == pos:
            raise invalid("Invalid Value", "q")
        kind = m.lastgroup or ""
        text = m.group(kind)
        if kind == "str":
            text = re.sub(r"\\(.)", r"\1", text[1:-1])
        tokens.append((kind, text))
        pos = m.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens: expr = term {or term}; term = factor {and factor};
    factor = not factor | ( expr ) | clause. Collects the parent id of a top-level
    "'X' in parents" clause in `hint` (cleared by an `or`)."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.i = 0
        self.hint: list[str] = []

    def peek(self, kind: str, text: str | None = None) -> bool:
        tokens, i = self.tokens, self.i
        return i < len(tokens) and tokens[i][0] == kind and (text is None or tokens[i][1] == text)

    def take(self) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise invalid("Invalid Value", "q")
        self.i += 1
        return self.tokens[self.i - 1]

    def expr(self, top: bool) -> Pred:
        left = self.term(top)
        while self.peek("word", "or"):
            self.take()
            a, b = left, self.term(False)
            left = _either(a, b)
            self.hint.clear()
        return left

    def term(self, top: bool) -> Pred:
        left = self.factor(top)
        while self.peek("word", "and"):
            self.take()
            a, b = left, self.factor(top)
            left = _both(a, b)
        return left

    def factor(self, top: bool) -> Pred:
        if self.peek("word", "not"):
            self.take()
            inner = self.factor(False)
            return lambda it: not inner(it)
        if self.peek("lp"):
            self.take()
            inner = self.expr(False)
            if self.take()[0] != "rp":
                raise invalid("Invalid Value", "q")
            return inner
        return self.clause(top)

    def clause(self, top: bool) -> Pred:
        kind, text = self.take()
        if kind == "str":
            if self.take() != ("word", "in") or self.take() != ("word", "parents"):
                raise invalid("Invalid Value", "q")
            if top:
                self.hint.append(text)
            return lambda it: it.parent == text
        if kind != "word":
            raise invalid("Invalid Value", "q")
        return self.comparison(text)

    def comparison(self, fld: str) -> Pred:
        """`fld` OP value: contains, trashed = true/false, or a string comparison."""
        op_kind, op = self.take()
        if op_kind == "word" and op == "contains" and fld in ("name", "mimeType"):
            _, val = self.take()
            return lambda it: val in (it.name if fld == "name" else it.mime)
        vkind, val = self.take()
        if fld == "trashed" and op in ("=", "!=") and vkind == "word" and val in ("true", "false"):
            want = val == "true"
            return lambda it: (it.trashed == want) == (op == "=")
        if vkind != "str":
            raise invalid("Invalid Value", "q")
        if fld not in _GETTERS or (fld in ("name", "mimeType") and op not in ("=", "!=")):
            raise invalid("Invalid Value", "q")
        get, cmp = _GETTERS[fld], _OPS[op]
        return lambda it: cmp(get(it), val)


def parse_query(q: str) -> tuple[Pred, str | None]:
    """Compile `q` to a predicate, plus the parent id when the query is "'X' in parents and ..."."""
    parser = _Parser(_tokenize(q))
    pred = parser.expr(True)
    if parser.i != len(parser.tokens):
        raise invalid("Invalid Value", "q")
    return pred, (parser.hint[0] if len(parser.hint) == 1 else None)
