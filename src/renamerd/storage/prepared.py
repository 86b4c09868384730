"""Core statements compiled once and run straight on the driver's cursor: the batch hot path.

A worker's batch runs about a dozen statements for up to 64 documents. Through SQLAlchemy's
`Connection.execute` each costs 50-150 us of Python before and after the driver call (the
execution context, the cache lookup, every parameter of every row through its bind processor,
the result metadata), more than SQLite spends executing it. `Prepared(statement)` compiles a
Core statement once per dialect (its SQL text, the order and defaults of its parameters, the
processors of its datetime parameters and columns) and runs it on the DBAPI cursor of a
SQLAlchemy `Connection`: the same connection, inside the same transaction, so it mixes freely
with ordinary statements.

The statement stays the single, portable source of the SQL (SQLite's `?` and psycopg's
`%(name)s` come from SQLAlchemy's compiler). An INSERT or UPDATE names its columns in
`.values()` (`bound(names)`: each set from the parameter of its name)
(compiled without parameters, a bare `insert(table)` would set every column, the
primary key included). Supported: bound parameters, literal values,
expanding `IN` parameters (`bindparam(name, expanding=True)`, given a non-empty sequence), and
result columns. Values go through the column types' bind processors (a value repeated across
rows, like a batch's timestamp, is processed once); rows come back as plain tuples through the
result processors (on SQLite, timestamps are parsed by `datetime.fromisoformat`, the same
values SQLAlchemy's regex gives, several times faster).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter
from sqlmodel.sql.sqltypes import UTCDateTime


def bound(names: Iterable[str]) -> dict[str, BindParameter[Any]]:
    """`.values()` for an INSERT or UPDATE run by `Prepared`: each of `names` set from the
    parameter of the same name."""
    return {name: bindparam(name) for name in names}


_EXPANDING = re.compile(r"\(__\[POSTCOMPILE_(\w+)\]\)")
Processor = Callable[[Any], Any]


class _Compiled:
    """One statement compiled for one dialect."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        result_columns = compiled._result_columns or []  # noqa: SLF001
        self.sql: str = compiled.string
        self.positional = bool(compiled.positional)
        self.names: list[str] = list(compiled.positiontup or []) if self.positional else []
        #: literal values in the statement (`state = 'running'`), and None for the others
        self.defaults: dict[str, Any] = {
            name: None if bind.required else bind.effective_value
            for bind, name in compiled.bind_names.items()}
        self.expanding = set(_EXPANDING.findall(self.sql))
        # (a tuple of processors is for a tuple-valued IN, which the hot path does not use)
        self.bind: dict[str, Processor] = {
            name: proc for name, proc in compiled._bind_processors.items()  # noqa: SLF001
            if callable(proc)}
        self.keys: list[str] = [col[0] for col in result_columns]
        self.result: list[Processor | None] = [
            _sqlite_utc if dialect.name == "sqlite" and isinstance(col[3], UTCDateTime)
            else col[3]._cached_result_processor(dialect, None)  # noqa: SLF001
            for col in result_columns]
        #: (name, default, bind processor, expanding) of each parameter, in the driver's
        #: order (positional) or the statement's (named)
        self.plan: list[tuple[str, Any, Processor | None, bool]] = [
            (name, self.defaults.get(name), self.bind.get(name), name in self.expanding)
            for name in (self.names if self.positional else self.defaults)]
        self._texts: dict[tuple[int, ...], str] = {}

    def text_for(self, sizes: tuple[int, ...]) -> str:
        """The SQL with each expanding parameter spelt out for `sizes` values (in the order of
        `sorted(self.expanding)`)."""
        found = self._texts.get(sizes)
        if found is None:
            length = dict(zip(sorted(self.expanding), sizes, strict=True))

            def spell(m: re.Match[str]) -> str:
                name, n = m.group(1), length[m.group(1)]
                if self.positional:
                    return "(" + ", ".join(["?"] * n) + ")"
                return "(" + ", ".join(f"%({name}_{i})s" for i in range(1, n + 1)) + ")"

            found = self._texts[sizes] = _EXPANDING.sub(spell, self.sql)
        return found


class Prepared:
    """A Core statement run on the driver (see the module docstring). Thread-safe; build it
    once at import time, like the statement itself."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._by_dialect: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def _compiled(self, conn: Connection) -> _Compiled:
        dialect = conn.dialect
        found = self._by_dialect.get(dialect.name)
        if found is None:
            with self._lock:
                found = self._by_dialect.get(dialect.name)
                if found is None:
                    found = self._by_dialect[dialect.name] = _Compiled(self.statement, dialect)
        return found

    def run(self, conn: Connection, params: Mapping[str, Any] | None = None) -> int:
        """Execute once with `params`; returns the driver's rowcount (-1: unknown)."""
        c = self._compiled(conn)
        sql, args = _bind(c, params or {}, {})
        with _cursor(conn, sql) as cursor:
            cursor.execute(sql, args)
            return int(cursor.rowcount)

    def many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> int:
        """Execute once per row of `rows` (one driver `executemany`; no expanding parameters).
        Returns the total rowcount the driver reports (-1: unknown). Nothing for no rows."""
        if not rows:
            return 0
        c = self._compiled(conn)
        if c.expanding:
            raise ValueError("executemany cannot expand IN parameters")
        memo: dict[tuple[str, Any], Any] = {}
        sql = c.sql
        args = [_bind(c, row, memo)[1] for row in rows]
        with _cursor(conn, sql) as cursor:
            cursor.executemany(sql, args)
            return int(cursor.rowcount)

    def rows(self, conn: Connection, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Execute once and fetch every row, each a tuple in the order of `keys(conn)`, its
        values through the columns' result processors."""
        c = self._compiled(conn)
        sql, args = _bind(c, params or {}, {})
        with _cursor(conn, sql) as cursor:
            cursor.execute(sql, args)
            fetched = cursor.fetchall()
        procs = [(i, p) for i, p in enumerate(c.result) if p is not None]
        if not procs:
            return [tuple(row) for row in fetched]
        out = []
        for row in fetched:
            values = list(row)
            for i, proc in procs:
                values[i] = proc(values[i])
            out.append(tuple(values))
        return out

    def dicts(self, conn: Connection, params: Mapping[str, Any] | None = None
              ) -> list[dict[str, Any]]:
        """`rows`, each as a dict by column name."""
        keys = self.keys(conn)
        return [dict(zip(keys, row, strict=True)) for row in self.rows(conn, params)]

    def keys(self, conn: Connection) -> list[str]:
        """The names of the result columns."""
        return self._compiled(conn).keys


@contextlib.contextmanager
def _cursor(conn: Connection, sql: str) -> Iterator[Any]:
    """A DBAPI cursor on `conn`'s connection (in its transaction), closed after use. The
    driver's errors while it is used are raised as SQLAlchemy's (IntegrityError,
    OperationalError...), as `Connection.execute` raises them."""
    cursor = conn.connection.cursor()
    try:
        yield cursor
    except conn.dialect.loaded_dbapi.Error as err:
        raise DBAPIError.instance(sql, None, err, conn.dialect.loaded_dbapi.Error) from err
    finally:
        cursor.close()


def _sqlite_utc(value: Any) -> datetime | None:
    """A UTCDateTime column read from SQLite, as SQLAlchemy reads it (an aware UTC datetime
    from the naive UTC text it stores) in one C call instead of a regex and two conversions."""
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _bind(c: _Compiled, params: Mapping[str, Any], memo: dict[tuple[str, Any], Any]
          ) -> tuple[str, Any]:
    """(SQL, driver parameters) for one execution; `memo` keeps processed values by
    (name, value) across the rows of one executemany."""
    sql = c.sql
    if c.expanding:
        sizes = tuple(len(params[name]) for name in sorted(c.expanding))
        if not all(sizes):
            raise ValueError("an expanding IN parameter needs at least one value")
        sql = c.text_for(sizes)
    if c.positional:
        args: list[Any] = []
        for name, default, proc, expanding in c.plan:
            if expanding:
                args.extend(params[name])
                continue
            raw = params.get(name, default)
            args.append(raw if proc is None or raw is None else _processed(
                proc, name, raw, memo))
        return sql, args
    named: dict[str, Any] = {}
    for name, default, proc, expanding in c.plan:
        if expanding:
            for i, item in enumerate(params[name], 1):
                named[f"{name}_{i}"] = item
            continue
        raw = params.get(name, default)
        named[name] = raw if proc is None or raw is None else _processed(proc, name, raw, memo)
    for name, raw in params.items():
        if name not in named and name not in c.expanding:
            proc = c.bind.get(name)
            named[name] = raw if proc is None or raw is None else _processed(
                proc, name, raw, memo)
    return sql, named


def _processed(proc: Processor, name: str, raw: Any, memo: dict[tuple[str, Any], Any]) -> Any:
    """`proc(raw)`, once per (name, value) in `memo`."""
    key = (name, raw)
    try:
        return memo[key]
    except KeyError:
        done = memo[key] = proc(raw)
        return done
    except TypeError:  # unhashable: process every time
        return proc(raw)
