"""Settings: a TOML file plus `RENAMERD_<SECTION>__<KEY>` environment overrides.

Where the file comes from: `--config FILE`, else `$RENAMERD_CONFIG`, else `./config.toml` if it
exists, else `/etc/renamerd/config.toml` if it exists, else the embedded defaults. Environment
variables win over the file; lists and tables are given as JSON
(`RENAMERD_FETCH__ALLOW_NETWORKS='["10.0.0.0/8"]'`).

Relative paths written in a config file (a SQLite database, `daemon.state_dir`,
`secrets.key_file`, a local connection's folders, ...: `loading.PATH_KEYS`) are relative to
that file's folder, so every command reading the file finds the same database wherever it runs.
The embedded defaults and environment overrides stay relative to the current folder.

`load_settings()` reads them and raises `ConfigFileError` with one line naming the key and the
file. The parts: `sections` (each [section]'s keys and checks), `settings` (`Settings`, the
connections), `loading` (finding, reading and checking the file).
"""

from renamerd.config.loading import (
    PATH_KEYS,
    SYSTEM_CONFIG,
    ConfigFileError,
    find_config_file,
    hide_password,
    load_settings,
    resolve_relative_paths,
)
from renamerd.config.sections import (
    BelowConfidence,
    CreditsSettings,
    DaemonSettings,
    DatabaseSettings,
    EngineSettings,
    FetchSettings,
    LimitsSettings,
    LoggingSettings,
    MailSettings,
    NotifySettings,
    OAuthSettings,
    SecretRef,
    SecretsSettings,
    ServerSettings,
    TokensSettings,
    WebSettings,
)
from renamerd.config.settings import ENV_PREFIX, ConnectionSettings, Settings

__all__ = [
    "ENV_PREFIX", "PATH_KEYS", "SYSTEM_CONFIG", "BelowConfidence", "ConfigFileError",
    "ConnectionSettings", "CreditsSettings", "DaemonSettings", "DatabaseSettings",
    "EngineSettings", "FetchSettings", "LimitsSettings", "LoggingSettings", "MailSettings",
    "NotifySettings", "OAuthSettings", "SecretRef", "SecretsSettings", "ServerSettings",
    "Settings", "TokensSettings", "WebSettings", "find_config_file", "hide_password",
    "load_settings", "resolve_relative_paths",
]
