"""Finding connectors: the entry-point group ``renamerd.connectors``, and resolving the secret
references in a connection's options before a connector is constructed."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from renamerd.connectors.protocol import ConfigError, Connector


def resolve_secret(value: Any, *, key: str) -> Any:
    """Resolve `{ env = "VAR" }` or `{ file = "/path" }` option values; others pass through."""
    import os
    from pathlib import Path

    if isinstance(value, Mapping):
        if "env" in value:
            env = str(value["env"])
            if env not in os.environ:
                raise ConfigError(f"option {key}: environment variable {env} is not set")
            return os.environ[env]
        if "file" in value:
            try:
                return Path(str(value["file"])).read_text().strip()
            except OSError as err:
                raise ConfigError(f"option {key}: cannot read {value['file']}: {err}") from err
    return value


def resolve_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Resolve every secret reference; `*_file` keys are read into the key without `_file`.

    `service_account_file` and `ca_bundle` stay paths (they name files by design).
    """
    from pathlib import Path

    keep_paths = {"service_account_file", "ca_bundle"}
    out: dict[str, Any] = {}
    for key, value in options.items():
        value = resolve_secret(value, key=key)
        if key.endswith("_file") and key not in keep_paths and isinstance(value, str):
            base = key[: -len("_file")]
            try:
                out[base] = Path(value).read_text().strip()
            except OSError as err:
                raise ConfigError(f"option {key}: cannot read {value}: {err}") from err
        else:
            out[key] = value
    return out


def available_providers() -> dict[str, Any]:
    """Entry points registered under ``renamerd.connectors``, by provider name."""
    return {ep.name: ep for ep in entry_points(group="renamerd.connectors")}


def load_connector(provider: str) -> type[Connector]:
    """The connector class registered as `provider`. Raises ConfigError for unknown names or
    a provider whose SDK extra is not installed (naming the extra to install). A class found
    is kept for the life of the process (reading the installed packages' entry points takes
    10-20 ms; every worker thread opens its own connector)."""
    found = _loaded.get(provider)
    if found is not None:
        return found
    eps = available_providers()
    if provider not in eps:
        known = ", ".join(sorted(eps)) or "none"
        raise ConfigError(f"unknown provider {provider!r} (registered: {known})")
    try:
        cls: type[Connector] = eps[provider].load()
    except ImportError as err:
        module = eps[provider].value.split(":")[0]
        if getattr(err, "name", None) and module.startswith(str(err.name)):
            raise ConfigError(f"provider {provider!r}: module {module} is missing") from err
        raise ConfigError(
            f"provider {provider!r} needs its extra: pip install 'renamerd[{provider}]' ({err})"
        ) from err
    except AttributeError as err:
        raise ConfigError(f"provider {provider!r}: {eps[provider].value} does not exist") from err
    _loaded[provider] = cls
    return cls


_loaded: dict[str, type[Connector]] = {}


def open_connector(
    provider: str, options: Mapping[str, Any], *, name: str, state_dir: str
) -> Connector:
    """Construct the connector for one configured connection, secrets resolved."""
    cls = load_connector(provider)
    return cls(resolve_options(options), name=name, state_dir=state_dir)  # type: ignore[call-arg]
