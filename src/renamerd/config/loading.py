"""Finding the config file, reading it, and making its relative paths absolute.

`load_settings()` raises `ConfigFileError` with one line naming the key and the file (a
connection by its name); the CLI prints it and exits with status 2. Besides the values, it
checks that each connection's provider is registered and that each `RENAMERD_<SECTION>__<KEY>`
variable names a section.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from renamerd.config.settings import ENV_PREFIX, Settings


class ConfigFileError(Exception):
    """A config problem, as one line that names the key and the file."""


#: the config file of an installed service, read when neither --config, $RENAMERD_CONFIG nor
#: ./config.toml names one
SYSTEM_CONFIG = Path("/etc/renamerd/config.toml")

#: (section, key) of the settings that are file paths: relative ones in a config file are
#: relative to the file's folder (see `resolve_relative_paths`)
PATH_KEYS: tuple[tuple[str, str], ...] = (
    ("daemon", "state_dir"), ("secrets", "key_file"), ("oauth", "ca_bundle"),
)
#: connection options that name files (besides `*_file` keys and `{ file = ... }` references)
_PATH_OPTIONS = frozenset({"ca_bundle"})


def find_config_file(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file to read: `explicit`, else $RENAMERD_CONFIG, else ./config.toml, else
    /etc/renamerd/config.toml (the last two only when they exist); None: embedded defaults."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("RENAMERD_CONFIG")
    if env:
        return Path(env)
    for candidate in (Path("config.toml"), SYSTEM_CONFIG):
        if candidate.is_file():
            return candidate
    return None


def _absolute(value: Any, base: Path) -> Any:
    if isinstance(value, str) and value and not os.path.isabs(os.path.expanduser(value)):
        return os.path.normpath(base / value)
    return value


def _absolute_sqlite(url: Any, base: Path) -> Any:
    """A SQLite URL whose database path is relative, made relative to `base`."""
    if not isinstance(url, str) or not url.startswith("sqlite"):
        return url
    from sqlalchemy.engine.url import make_url

    try:
        parsed = make_url(url)
    except Exception:  # not a URL: the database opening says so
        return url
    database = parsed.database or ""
    if not database or database == ":memory:" or database.startswith("file:") \
            or os.path.isabs(database):
        return url
    return parsed.set(database=os.path.normpath(base / database)).render_as_string(
        hide_password=False)


def _absolute_option(key: str, value: Any, base: Path) -> Any:
    if isinstance(value, dict) and set(value) == {"file"}:
        return {"file": _absolute(value["file"], base)}
    if key.endswith("_file") or key in _PATH_OPTIONS:
        return _absolute(value, base)
    return value


def resolve_relative_paths(data: dict[str, Any], base: Path) -> dict[str, Any]:
    """The TOML `data` of a config file in folder `base`, with relative paths made relative to
    `base`: the SQLite database, `PATH_KEYS`, `{ file = ... }` secret references, connection
    options naming files, and local connections' `watch` and `target`. Returns a new dict."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    database = out.get("database")
    if isinstance(database, dict) and "url" in database:
        database["url"] = _absolute_sqlite(database["url"], base)
    for section, key in PATH_KEYS:
        table = out.get(section)
        if isinstance(table, dict) and key in table:
            table[key] = _absolute(table[key], base)
    for section in ("mail", "notify"):
        table = out.get(section)
        if isinstance(table, dict):
            out[section] = {k: _absolute_option(k, v, base) if isinstance(v, dict) else v
                            for k, v in table.items()}
    connections = out.get("connections")
    if isinstance(connections, list):
        out["connections"] = [_connection_paths(c, base) if isinstance(c, dict) else c
                              for c in connections]
    return out


def _connection_paths(conn: dict[str, Any], base: Path) -> dict[str, Any]:
    conn = dict(conn)
    if conn.get("provider") == "local":
        for key in ("watch", "target"):
            if key in conn:
                conn[key] = _absolute(conn[key], base)
    options = conn.get("options")
    if isinstance(options, dict):
        conn["options"] = {k: _absolute_option(k, v, base) for k, v in options.items()}
    return conn


def hide_password(url: str) -> str:
    """A database URL as it may be shown: the password replaced by ***."""
    from sqlalchemy.engine.url import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@", 1)[-1] if "@" in url else url


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    """Where an error is, as a reader finds it in the file: `limits.max_upload_mb`, or for a
    connection its name (`connection 'inbox': strategy`) rather than its index."""
    parts = [p for p in loc if p != "__root__"]
    if len(parts) >= 2 and parts[0] == "connections" and isinstance(parts[1], int):
        index = parts[1]
        given = data.get("connections")
        table = given[index] if isinstance(given, list) and index < len(given) else None
        name = table.get("name") if isinstance(table, dict) else None
        label = f"connection {name!r}" if isinstance(name, str) and name else \
            f"connection #{index + 1}"
        rest = ".".join(str(p) for p in parts[2:])
        return f"{label}: {rest}" if rest else label
    return ".".join(str(p) for p in parts) or "(top level)"


def _describe(err: ValidationError, source: str, data: dict[str, Any]) -> str:
    first = err.errors()[0]
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        msg = "unknown setting"
    return f"config error in {source}: {_where(first['loc'], data)}: {msg}"


def _check_environment() -> None:
    """Every `RENAMERD_<SECTION>__<KEY>` variable names a section (a misspelt key is already an
    error of its section; a misspelt section would be ignored). Variables without `__`
    (`RENAMERD_CONFIG`, `RENAMERD_TOKEN`, ...) are not settings and are not looked at."""
    sections = set(Settings.model_fields) - {"source_file"}
    for key in sorted(os.environ):
        if not key.upper().startswith(ENV_PREFIX) or "__" not in key:
            continue
        section = key[len(ENV_PREFIX):].split("__", 1)[0].lower()
        if section not in sections:
            raise ConfigFileError(
                f"config error in the environment: {key}: unknown section {section!r} "
                f"(sections: {', '.join(sorted(sections))})")


def _check_providers(settings: Settings, source: str) -> None:
    """Every connection names a registered provider: a typo stops the start, instead of a
    process that starts and logs a failed poll every few seconds."""
    if not settings.connections:
        return
    from renamerd.connectors.registry import available_providers

    known = available_providers()
    for conn in settings.connections:
        if conn.provider not in known:
            raise ConfigFileError(
                f"config error in {source}: connection {conn.name!r}: provider: unknown "
                f"provider {conn.provider!r} (registered: {', '.join(sorted(known)) or 'none'})")


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Read the settings; raise ConfigFileError (one line, naming key and file) when wrong."""
    file = find_config_file(path)
    data: dict[str, Any] = {}
    source = "embedded defaults"
    if file is not None:
        source = str(file)
        try:
            with open(file, "rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError as err:
            raise ConfigFileError(f"config error: file {file} does not exist") from err
        except tomllib.TOMLDecodeError as err:
            raise ConfigFileError(f"config error in {file}: not valid TOML: {err}") from err
        except OSError as err:
            raise ConfigFileError(f"config error: cannot read {file}: {err}") from err
    env_keys = [k for k in os.environ if k.upper().startswith(ENV_PREFIX) and "__" in k]
    if env_keys:
        source += " (with environment overrides)"
        _check_environment()
    if file is not None:
        data = resolve_relative_paths(data, file.resolve().parent)
    try:
        settings = Settings(**data)
    except ValidationError as err:
        raise ConfigFileError(_describe(err, source, data)) from err
    _check_providers(settings, source)
    settings.source_file = str(file) if file else None
    return settings

