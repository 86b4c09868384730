"""customTemplate (natural language) -> explicit rules the user can read.

Understood in English, German, French, Spanish, Italian, Dutch and Portuguese (the phrasing
lives in the `instructions` section of the lexicon files). A template is cut into clauses
(sentences, lines, ";"); each clause may give:

- a naming order: field words in the order written ("date then company then invoice number"),
- a separator ("separated by dashes", "getrennt durch Unterstriche", "séparés par des tirets"),
- a case ("lowercase", "Kleinbuchstaben", "minuscules"...), a date format ("DD.MM.YYYY",
  "TT.MM.JJJJ", "JJ/MM/AAAA"),
- a folder rule, with an optional condition on the document type and issuer
  ("if it is an invoice from Telekom put it in Bills/Phone", "les contrats dans Juridique"),
  or a grouping ("Rechnungen nach Jahr ordnen" -> invoices go to {year}).

A clause that yields nothing is reported in `not_understood`, never dropped silently.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from renamerd.engine.lexicon import alternation, fold, load
from renamerd.engine.types import DOCUMENT_TYPES

INSTRUCTION_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt")
FIELD_NAMES = ("date", "issuer", "invoice_number", "document_type", "amount", "currency")
_FOLDER_WORDS = re.compile(
    r"(?<!\w)(?:the|a|an|folder|directory|ordner|den|das|dem|die|le|la|les|dossier|répertoire|el|"
    r"la|carpeta|il|cartella|de|het|map|o|a|pasta|called|named|namens|nommé|llamada|chiamata)(?!\w)",
    re.I,
)
_COPULA = {"is", "ist", "est", "es", "e", "sind", "are", "zijn", "son", "sono", "sao",
           "ha", "hat", "has", "then", "dann", "alors", "entonces", "allora", "dan", "entao"}
_DATE_FORMAT = re.compile(r"(?<![A-Za-z])([YJAGTDM]{2,4}(?:[-./_ ]?[YJAGTDM]{2,4}){1,2})(?![A-Za-z])")


@dataclass(frozen=True)
class Condition:
    """Documents matching `document_type` (None: any) and `issuer` (None: any; matched as a
    case/accent-insensitive substring) go to `folder` (a template: {year}, {month}, {issuer},
    {document_type} are filled in)."""

    folder: str
    document_type: str | None = None
    issuer: str | None = None

    def matches(self, values: Mapping[str, Any]) -> bool:
        if self.document_type and values.get("document_type") != self.document_type:
            return False
        if self.issuer:
            issuer = fold(str(values.get("issuer") or ""))
            if fold(self.issuer) not in issuer:
                return False
        return True

    def describe(self) -> str:
        cond = []
        if self.document_type:
            cond.append(f"document_type = {self.document_type}")
        if self.issuer:
            cond.append(f"issuer contains '{self.issuer}'")
        head = "if " + " and ".join(cond) if cond else "all documents"
        return f"{head} -> folder '{self.folder}'"


@dataclass
class Rules:
    fields: list[str] | None = None
    separator: str | None = None
    case: str | None = None  # "lower" | "upper"
    date_format: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    source: str = "built-in"

    def readable(self) -> list[str]:
        """The rules as sentences a user can check."""
        out: list[str] = []
        if self.fields:
            out.append("name: " + " + ".join(self.fields))
        if self.separator is not None:
            out.append(f"separator: '{self.separator}'")
        if self.case:
            out.append(f"case: {self.case}case")
        if self.date_format:
            out.append(f"date format: {self.date_format}")
        out.extend(c.describe() for c in self.conditions)
        return out

    def folder_for(self, values: Mapping[str, Any]) -> str | None:
        """The folder template of the first condition that matches, else None."""
        for cond in self.conditions:
            if cond.matches(values):
                return cond.folder
        return None

    @property
    def empty(self) -> bool:
        return not (self.fields or self.separator is not None or self.case or self.date_format
                    or self.conditions)


@dataclass(frozen=True)
class _Vocab:
    types: dict[str, str]
    types_re: re.Pattern[str]
    fields: dict[str, str]
    fields_re: re.Pattern[str]
    separators: dict[str, str]
    separators_re: re.Pattern[str]
    lower_re: re.Pattern[str]
    upper_re: re.Pattern[str]
    put_re: re.Pattern[str]
    from_re: re.Pattern[str]
    by_re: re.Pattern[str]
    dims: dict[str, str]
    separated_re: re.Pattern[str]
    name_re: re.Pattern[str]
    if_re: re.Pattern[str]


@functools.cache
def _vocab() -> _Vocab:
    types: dict[str, str] = {}
    fields_map: dict[str, str] = {}
    seps: dict[str, str] = {}
    lists: dict[str, set[str]] = {k: set() for k in
                                  ("lower", "upper", "put", "from", "by", "separated", "name",
                                   "if")}
    dims: dict[str, str] = {}
    for lang in INSTRUCTION_LANGUAGES:
        table = load(lang)
        ins = table["instructions"]
        for kind, phrases in ins["types_plural"].items():
            for p in phrases:
                types.setdefault(fold(p), kind)
        for kind, phrases in table["types"].items():
            for p in phrases[:2]:
                p = p.lstrip("^")
                if len(p) > 3:
                    types.setdefault(fold(p), kind)
        for fname, phrases in ins["fields"].items():
            for p in phrases:
                fields_map.setdefault(fold(p), fname)
        for sep, phrases in ins["separators"].items():
            for p in phrases:
                seps.setdefault(fold(p), sep)
        for key in lists:
            lists[key].update(ins[key])
        for dim, target in (("year", "{year}"), ("month", "{year}/{month}"),
                            ("issuer", "{issuer}"), ("type", "{document_type}")):
            for p in ins[dim]:
                dims.setdefault(fold(p), target)

    def rx(words: set[str] | dict[str, str]) -> re.Pattern[str]:
        return re.compile(alternation(set(words)))

    return _Vocab(types, rx(types), fields_map, rx(fields_map), seps, rx(seps),
                  rx(lists["lower"]), rx(lists["upper"]), rx(lists["put"]), rx(lists["from"]),
                  rx(lists["by"]), dims, rx(lists["separated"]), rx(lists["name"]),
                  rx(lists["if"]))


_ELISION = re.compile(r"(?<!\w)(?:d'|dell'|de l')(?=\w)")
_CLAUSE_BREAK = re.compile(
    r"[\n;]+|(?<=[\w)\]])\.\s+(?=[A-ZÀ-ÖØ-Þ¿¡\"'])"
    r"|,\s+(?=(?:and\s+|und\s+|et\s+|y\s+|e\s+|en\s+)?"
    r"(?:if|wenn|falls|si|se|als|indien|when|quando|cuando|all|alle|tous|toutes|todos|todas|"
    r"tutti|tutte)\b)"
    # a naming clause after a comma: "..., Name: Datum dann Firma", "..., nombra con fecha"
    r"|,\s+(?=(?:and\s+|und\s+|et\s+|y\s+|e\s+|en\s+)?"
    r"(?:name|nenne|benenne|dateiname|filename|file\s+name|nomme|nommer|nom\s+du\s+fichier|"
    r"nombra|nombre\s+del\s+archivo|chiama|nome\s+del\s+file|noem|bestandsnaam|nomeie|"
    r"nome\s+do\s+arquivo)\w*\b)"
    r"|\s+(?:and|und|et|y|e|en)\s+(?=(?:name|nenne|benenne|nomme|nombra|chiama|noem|nomeie)"
    r"\w*\b)", re.I)
_TEMPLATE_PART = re.compile(r"[{\[]?([^\W_]+)[}\]]?")


def _clauses(text: str) -> list[str]:
    parts = _CLAUSE_BREAK.split(text)
    return [p.strip(" .,") for p in parts if p and p.strip(" .,")]


def _literal_template(clause: str, rules: Rules) -> bool:
    """A written pattern: "YYYY-MM-DD_Company_InvoiceNumber", "{date}-{company}"."""
    v = _vocab()
    squeezed = {k.replace(" ", ""): f for k, f in v.fields.items()}
    for token in clause.split():
        token = token.strip(".,;:\"'")
        fmt = _DATE_FORMAT.match(token)
        date_format = None
        rest = token
        fields: list[str] = []
        if fmt and "M" in fmt.group(1).upper():
            date_format = _date_format(fmt.group(1))
            fields.append("date")
            rest = token[fmt.end():]
        if not rest or rest[0] not in "_-. " and fields:
            continue
        sep = rest[0] if fields else next((ch for ch in token if ch in "_-."), "")
        if not sep:
            continue
        for part in rest.split(sep):
            m = _TEMPLATE_PART.fullmatch(part)
            if not part:
                continue
            name = squeezed.get(fold(m.group(1))) if m else None
            if name is None:
                break
            fields.append(name)
        else:
            if len(fields) >= 2:
                rules.fields, rules.separator = fields, sep
                if date_format and date_format != "YYYY-MM-DD":
                    rules.date_format = date_format
                return True
    return False


def _folder_target(original: str, start: int) -> str | None:
    rest = original[start:].strip()
    quoted = re.match(r"""^["'“”‘’«»]([^"'“”‘’«»]+)["'“”‘’«»]""", rest)
    if quoted:
        return quoted.group(1).strip()
    rest = re.split(r"[,;]|\s+(?:and|und|et|y|e|en)\s+(?:name|nenne|nomme|if|wenn|si|se)\b",
                    rest)[0]
    words = [w for w in rest.split() if not _FOLDER_WORDS.fullmatch(w)]
    if not words:
        return None
    target = " ".join(words).strip(" .,:;")
    return target or None


def _date_format(token: str) -> str:
    t = token.upper()
    if "TT" in t:  # German: TT.MM.JJJJ
        t = t.replace("TT", "DD").replace("J", "Y")
    elif "AA" in t:  # French/Spanish/Portuguese/Italian: JJ/MM/AAAA, GG/MM/AAAA
        t = t.replace("AA", "YY").replace("JJ", "DD").replace("GG", "DD")
    else:
        t = t.replace("JJJJ", "YYYY").replace("JJ", "YY").replace("GG", "DD")
    return t


def _parse_clause(clause: str, rules: Rules) -> bool:
    v = _vocab()
    folded = fold(clause)
    understood = False

    if _literal_template(clause, rules):
        return True
    fmt = _DATE_FORMAT.search(clause)
    if fmt and re.search(r"[YJA]", fmt.group(1).upper()) and "M" in fmt.group(1).upper():
        rules.date_format = _date_format(fmt.group(1))
        understood = True
    if v.lower_re.search(folded):
        rules.case, understood = "lower", True
    elif v.upper_re.search(folded):
        rules.case, understood = "upper", True
    sep_cue = v.separated_re.search(folded)
    sep_found = False
    if sep_cue:
        after = folded[sep_cue.end():]
        sm = v.separators_re.search(after)
        literal = re.match(r"""\s*["'“«]?([-_. +~])["'”»]?""", clause[sep_cue.end():])
        if sm and sm.start() < 20:
            rules.separator, understood = v.separators[re.sub(r"\s+", " ", sm.group(0))], True
            sep_found = True
        elif literal and sep_cue.group(0).strip() not in ("with", "mit", "con", "com", "met"):
            rules.separator, understood = literal.group(1), True
            sep_found = True

    put = None
    for m in v.put_re.finditer(folded):
        target_start = m.end()
        if _folder_target(clause, target_start):
            put = m
            break
    type_hits = [(m.start(), v.types[re.sub(r"\s+", " ", m.group(0))])
                 for m in v.types_re.finditer(folded)]
    doc_type = type_hits[0][1] if type_hits else None
    issuer = None
    fm = v.from_re.search(folded) or _ELISION.search(folded)
    if fm and (put is None or fm.end() < put.start()):
        end = put.start() if put else len(clause)
        cand = clause[fm.end():end].split(",")[0].strip(" ,.:")
        words = cand.split()
        while words and fold(words[-1]) in _COPULA:
            words.pop()
        cand = " ".join(words)
        if cand and len(cand) <= 60 and not v.types_re.fullmatch(fold(cand)) \
                and fold(cand) not in v.dims:
            issuer = cand

    by = v.by_re.search(folded)
    dims: list[str] = []
    if by:
        for m in re.finditer(r"[\w']+", folded[by.end():]):
            token = m.group(0)
            if token in v.dims:
                dims.append(v.dims[token])
            elif dims and token not in ("and", "und", "et", "y", "e", "en", "then", "dann",
                                        "puis"):
                break
    if "{year}/{month}" in dims and "{year}" in dims:
        dims.remove("{year}")
    if dims and by is not None and (put is None or by.start() <= put.start()):
        rules.conditions.append(Condition("/".join(dims), doc_type, issuer))
        return True
    if put is not None and (doc_type or issuer or v.if_re.search(folded[:put.start()]) is None):
        target = _folder_target(clause, put.end())
        is_name = v.name_re.search(folded[:put.start()]) is not None
        if target and not is_name and (doc_type or issuer or "/" in target
                                       or target[:1].isupper()):
            rules.conditions.append(Condition(target.strip("/"), doc_type, issuer))
            return True

    name_cue = v.name_re.search(folded)
    field_hits: list[tuple[int, str]] = []
    for m in v.fields_re.finditer(folded):
        fname = v.fields[re.sub(r"\s+", " ", m.group(0))]
        if sep_found and sep_cue and m.start() > sep_cue.start():
            continue  # "separated by dashes": what follows the cue names the separator
        if fname not in [f for _, f in field_hits]:
            field_hits.append((m.start(), fname))
    if field_hits and (name_cue or len(field_hits) >= 2):
        rules.fields = [f for _, f in field_hits]
        understood = True
    return understood


@functools.lru_cache(maxsize=256)
def _compile_cached(text: str) -> Rules:
    rules = Rules()
    for clause in _clauses(text):
        if not _parse_clause(clause, rules):
            rules.not_understood.append(clause)
    return rules


def compile_template(text: str | None) -> Rules:
    """Compile a customTemplate into Rules (a fresh copy; cached by text). Never raises."""
    if not text or not text.strip():
        return Rules()
    cached = _compile_cached(text.strip()[:4000])
    return Rules(list(cached.fields) if cached.fields else None, cached.separator, cached.case,
                 cached.date_format, list(cached.conditions), list(cached.not_understood),
                 cached.source)


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rules from a JSON object (the LLM provider's answer), validated; raises ValueError."""
    fields_ = data.get("fields") or None
    if fields_ is not None and (not isinstance(fields_, list)
                                or not all(f in FIELD_NAMES for f in fields_)):
            raise ValueError("fields: unknown field name")
    sep = data.get("separator")
    if sep is not None and sep not in ("-", "_", " ", ".", "+", "~", ""):
        raise ValueError("separator: not allowed")
    case = data.get("case")
    if case not in (None, "lower", "upper"):
        raise ValueError("case: must be lower or upper")
    fmt = data.get("date_format")
    if fmt is not None and not re.fullmatch(r"[YMD]{2,4}(?:[-._ ]?[YMD]{2,4}){0,2}", str(fmt)):
        raise ValueError("date_format: invalid")
    conditions = []
    for item in data.get("conditions") or []:
        folder = str(item.get("folder") or "").strip()
        dtype = item.get("document_type") or None
        if not folder or ".." in folder or len(folder) > 200:
            raise ValueError("conditions: bad folder")
        if dtype is not None and dtype not in DOCUMENT_TYPES:
            raise ValueError("conditions: bad document_type")
        issuer = item.get("issuer") or None
        if issuer is not None and (not isinstance(issuer, str) or len(issuer) > 100):
            raise ValueError("conditions: bad issuer")
        conditions.append(Condition(folder.strip("/"), dtype, issuer))
    return Rules(list(fields_) if fields_ else None, sep, case, fmt, conditions, [], "model")
