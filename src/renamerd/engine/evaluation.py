"""Measure the engine on a labelled folder: `DIR/truth.json` = {file: {date, issuer,
document_type?, invoice_number?, amount?, currency?, language?}}. Used by `renamerd eval` and
the accuracy tests. With `language` in the truth, the report also gives every field per
language.

Comparison rules: date, document_type and currency exactly; amount as a number ("1234.5" and
"1234.50" are equal); invoice_number ignoring case, blanks and punctuation; issuer leniently:
both sides are folded (case, accents), stripped of punctuation and of legal-form words (GmbH,
Ltd, SDN BHD...), then equal, or alike by a difflib ratio of at least 0.9 (tolerates one or
two OCR slips in a long name). A document whose issuer is known by two names (a hotel's brand
at the top, its operating company in the footer) lists the other in `issuer_alternatives`:
either counts as right.
Calibration: documents grouped by the result's confidence; a document counts as right when
date, issuer and document_type (where labelled) are all right.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renamerd.engine.lexicon import common, fold
from renamerd.engine.types import EngineConfig, EngineError, RenameOptions

FIELDS = ("date", "issuer", "document_type", "invoice_number", "amount", "currency")
SHORT = {"date": "date", "issuer": "issuer", "document_type": "type",
         "invoice_number": "number", "amount": "amount", "currency": "currency"}
BUCKETS = ((0.0, 0.5), (0.5, 0.7), (0.7, 0.85), (0.85, 1.01))


@functools.cache
def _suffix_words() -> frozenset[str]:
    words: set[str] = set()
    for s in common()["legal_suffixes"]:
        words.add(re.sub(r"[^0-9a-z ]", "", fold(s)).replace(" ", ""))
        words.update(w for w in re.sub(r"[^0-9a-z ]", " ", fold(s)).split() if len(w) > 1)
    return frozenset(w for w in words if w)


def normalize_issuer(name: str) -> str:
    """Folded, no punctuation, no legal-form words, single spaces.

    A legal form written with dots or slashes ("S/B", "B.V.", "s.r.o.") falls apart into
    single letters once punctuation is gone: a whole run of single letters that spells a
    legal form ("s b" -> "sb") is dropped like the form written as one word (initials such as
    "t a s" or "d i y" are kept)."""
    words = re.sub(r"[^0-9a-z]+", " ", fold(name)).split()
    suffixes = _suffix_words()
    kept: list[str] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and len(words[j]) == 1:
            j += 1
        if j - i >= 2:  # a maximal run of single letters
            if "".join(words[i:j]) not in suffixes:
                kept.extend(w for w in words[i:j] if w not in suffixes)
            i = j
            continue
        if words[i] not in suffixes:
            kept.append(words[i])
        i += 1
    return " ".join(kept or words)


def issuer_matches(predicted: str | None, truth: str) -> bool:
    """The lenient issuer comparison described in the module docstring."""
    if not predicted:
        return False
    a, b = normalize_issuer(predicted), normalize_issuer(truth)
    if a == b or a.replace(" ", "") == b.replace(" ", ""):
        return True
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.9


def field_matches(name: str, predicted: Any, truth: Any) -> bool:
    if name == "issuer":
        return issuer_matches(predicted, str(truth))
    if name == "invoice_number":
        def key(v: Any) -> str:
            return re.sub(r"[^0-9a-z]", "", fold(str(v or "")))
        return bool(predicted) and key(predicted) == key(truth)
    if name == "amount":
        try:
            return predicted is not None and float(predicted) == float(truth)
        except (TypeError, ValueError):
            return False
    return bool(predicted == truth)


def truth_matches(name: str, predicted: Any, expected: dict[str, Any]) -> bool:
    """`predicted` is right for field `name` of one truth.json entry: `field_matches`, or for
    the issuer one of the entry's `issuer_alternatives`."""
    if field_matches(name, predicted, expected[name]):
        return True
    return name == "issuer" and any(issuer_matches(predicted, str(other))
                                    for other in expected.get("issuer_alternatives") or ())


@dataclass
class DocResult:
    file: str
    predicted: dict[str, Any]
    truth: dict[str, Any]
    confidence: float
    seconds: float
    error: str | None = None
    correct: dict[str, bool] = field(default_factory=dict)

    @property
    def all_right(self) -> bool:
        return self.error is None and all(
            self.correct.get(f, True) for f in ("date", "issuer", "document_type"))


@dataclass
class Report:
    docs: list[DocResult]

    def accuracy(self, name: str, language: str | None = None) -> tuple[int, int]:
        """(right, labelled) for one field, of one language's documents when given."""
        labelled = [d for d in self.docs if self.truth_has(d, name)
                    and (language is None or d.truth.get("language") == language)]
        return sum(1 for d in labelled if d.correct.get(name)), len(labelled)

    def languages(self) -> list[str]:
        """The languages the truth names, in order of first appearance."""
        return list(dict.fromkeys(str(d.truth["language"]) for d in self.docs
                                  if d.truth.get("language")))

    @staticmethod
    def truth_has(doc: DocResult, name: str) -> bool:
        return doc.truth.get(name) not in (None, "")

    def calibration(self) -> list[tuple[str, int, float | None]]:
        """(bucket label, documents, share all right) per confidence bucket."""
        rows = []
        for lo, hi in BUCKETS:
            inside = [d for d in self.docs if lo <= d.confidence < hi and d.error is None]
            share = sum(d.all_right for d in inside) / len(inside) if inside else None
            rows.append((f"{lo:.2f}-{min(hi, 1.0):.2f}", len(inside), share))
        return rows

    def median_seconds(self) -> float:
        return statistics.median(d.seconds for d in self.docs) if self.docs else 0.0

    def as_dict(self) -> dict[str, Any]:
        fields_out = {}
        for name in FIELDS:
            right, total = self.accuracy(name)
            if total:
                fields_out[name] = {"right": right, "total": total,
                                    "accuracy": round(right / total, 4)}
        languages: dict[str, Any] = {}
        for lang in self.languages():
            per: dict[str, Any] = {"documents": sum(1 for d in self.docs
                                                    if d.truth.get("language") == lang)}
            for name in FIELDS:
                right, total = self.accuracy(name, lang)
                if total:
                    per[name] = {"right": right, "total": total,
                                 "accuracy": round(right / total, 4)}
            languages[lang] = per
        return {
            "documents": len(self.docs),
            "errors": sum(1 for d in self.docs if d.error),
            "fields": fields_out,
            "languages": languages,
            "calibration": [{"confidence": b, "documents": n,
                             "all_right": None if s is None else round(s, 4)}
                            for b, n, s in self.calibration()],
            "median_seconds": round(self.median_seconds(), 4),
        }

    def lines(self) -> list[str]:
        """The report as text lines for the terminal."""
        out = [f"documents: {len(self.docs)}  errors: {sum(1 for d in self.docs if d.error)}"]
        for name in FIELDS:
            right, total = self.accuracy(name)
            if total:
                out.append(f"{name:<15} {right:>4}/{total:<4} {100 * right / total:6.1f}%")
        out.append("confidence      docs  all right")
        for label, n, share in self.calibration():
            out.append(f"{label:<15} {n:>4}  " + ("-" if share is None else f"{100 * share:5.1f}%"))
        out.append(f"median time per document: {1000 * self.median_seconds():.1f} ms")
        out.extend(self.language_lines())
        return out

    def language_lines(self) -> list[str]:
        """Accuracy per field and language (empty when the truth names no language)."""
        langs = self.languages()
        if not langs:
            return []
        fields = [f for f in FIELDS if self.accuracy(f)[1]]
        out = ["per language    docs  " + "  ".join(f"{SHORT[f]:>8}" for f in fields)]
        for lang in langs:
            cells = []
            for f in fields:
                right, total = self.accuracy(f, lang)
                cells.append(f"{100 * right / total:7.1f}%" if total else f"{'-':>8}")
            docs = sum(1 for d in self.docs if d.truth.get("language") == lang)
            out.append(f"{lang:<15} {docs:>4}  " + "  ".join(cells))
        return out


def load_truth(directory: Path) -> dict[str, dict[str, Any]]:
    """DIR/truth.json; raises FileNotFoundError or ValueError (bad JSON/shape)."""
    data = json.loads((directory / "truth.json").read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError("truth.json must map file names to objects")
    return data


def evaluate(directory: Path, options: RenameOptions | None = None,
             config: EngineConfig | None = None,
             progress: Callable[[str], None] | None = None) -> Report:
    """Rename every labelled file of `directory` and compare with the truth. Read-only."""
    from renamerd.engine import rename

    truth = load_truth(directory)
    docs: list[DocResult] = []
    for name in sorted(truth):
        expected = truth[name]
        path = directory / name
        start = time.perf_counter()
        try:
            result = rename(path.read_bytes(), name, options, config)
            predicted, conf, error = result.extracted_info, result.confidence, None
        except (OSError, EngineError) as err:
            predicted, conf, error = {}, 0.0, f"{type(err).__name__}: {err}"
        seconds = time.perf_counter() - start
        doc = DocResult(name, predicted, expected, conf, seconds, error)
        for f in FIELDS:
            if expected.get(f) not in (None, ""):
                doc.correct[f] = truth_matches(f, predicted.get(f), expected)
        docs.append(doc)
        if progress:
            progress(name)
    return Report(docs)
