"""Rules from a JSON object (an LLM provider's reading of instructions), validated: every
value must be one the built-in grammar could have produced."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from renamerd.engine.instructions.model import (
    FIELD_NAMES,
    AmountTest,
    Condition,
    DateTest,
    Rules,
)
from renamerd.engine.instructions.routes import check_folder
from renamerd.engine.types import DOCUMENT_TYPES

SEPARATORS = ("-", "_", " ", ".", "+", "~", "", " - ", " _ ")
_DATE_FORMAT = re.compile(r"[YMD]{2,4}(?:[-._ ]?[YMD]{2,4}){0,2}")
_CURRENCY = re.compile(r"[A-Z]{3}")


def _amounts(item: Mapping[str, Any]) -> tuple[AmountTest, ...]:
    out = []
    currency = item.get("currency") or None
    if currency is not None and not (isinstance(currency, str) and _CURRENCY.fullmatch(currency)):
        raise ValueError("conditions: bad currency")
    for key, op in (("amount_over", ">"), ("amount_under", "<")):
        value = item.get(key)
        if value is None:
            continue
        try:
            number = Decimal(str(value))
        except InvalidOperation as err:
            raise ValueError(f"conditions: bad {key}") from err
        if not number.is_finite() or number < 0:
            raise ValueError(f"conditions: bad {key}")
        out.append(AmountTest(op, number, currency))
    return tuple(out)


def _dates(item: Mapping[str, Any]) -> tuple[DateTest, ...]:
    out = []
    for key, op in (("date_before", "<"), ("date_after", ">")):
        value = item.get(key)
        if value is None:
            continue
        try:
            out.append(DateTest(op, dt.date.fromisoformat(str(value))))
        except ValueError as err:
            raise ValueError(f"conditions: bad {key}") from err
    return tuple(out)


def _int_in(item: Mapping[str, Any], key: str, low: int, high: int) -> int | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"conditions: bad {key}")
    return value


def _condition(item: Mapping[str, Any]) -> Condition:
    if not isinstance(item, Mapping):
        raise ValueError("conditions: not an object")
    folder, error = check_folder(str(item.get("folder") or ""))
    if folder is None:
        raise ValueError(f"conditions: bad folder ({error})")
    dtype = item.get("document_type") or None
    if dtype is not None and dtype not in DOCUMENT_TYPES:
        raise ValueError("conditions: bad document_type")
    issuer = item.get("issuer") or None
    if issuer is not None and (not isinstance(issuer, str) or len(issuer) > 100):
        raise ValueError("conditions: bad issuer")
    keywords = item.get("keywords") or []
    if not isinstance(keywords, list) or not all(
            isinstance(k, str) and 0 < len(k) <= 60 for k in keywords):
        raise ValueError("conditions: bad keywords")
    return Condition(folder, dtype, issuer, _amounts(item), _dates(item),
                     _int_in(item, "year", 1900, 2100), _int_in(item, "month", 1, 12),
                     tuple(keywords), bool(item.get("otherwise")))


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rules from a JSON object; raises ValueError naming the first bad value."""
    fields_ = data.get("fields") or None
    if fields_ is not None and (not isinstance(fields_, list)
                                or not all(f in FIELD_NAMES for f in fields_)):
        raise ValueError("fields: unknown field name")
    sep = data.get("separator")
    if sep is not None and sep not in SEPARATORS:
        raise ValueError("separator: not allowed")
    case = data.get("case")
    if case not in (None, "lower", "upper"):
        raise ValueError("case: must be lower or upper")
    fmt = data.get("date_format")
    if fmt is not None and not _DATE_FORMAT.fullmatch(str(fmt)):
        raise ValueError("date_format: invalid")
    conditions = [_condition(item) for item in data.get("conditions") or []]
    return Rules(list(fields_) if fields_ else None, sep, case, fmt, conditions, [], "model")
