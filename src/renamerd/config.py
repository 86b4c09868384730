"""Settings: a TOML file plus `RENAMERD_<SECTION>__<KEY>` environment overrides.

Where the file comes from: `--config FILE`, else `$RENAMERD_CONFIG`, else `./config.toml` if it
exists, else `/etc/renamerd/config.toml` if it exists, else the embedded defaults. Environment
variables win over the file; lists and tables are given as JSON
(`RENAMERD_FETCH__ALLOW_NETWORKS='["10.0.0.0/8"]'`).

Relative paths written in a config file (a SQLite database, `daemon.state_dir`,
`secrets.key_file`, a local connection's folders, ...: `config_paths.PATH_KEYS`) are relative to
that file's folder, so every command reading the file finds the same database wherever it runs.
The embedded defaults and environment overrides stay relative to the current folder.

`load_settings()` raises `ConfigFileError` with one line naming the key and the file (a
connection by its name); the CLI prints it and exits with status 2. Besides the values, it
checks that each connection's provider is registered and that each `RENAMERD_<SECTION>__<KEY>`
variable names a section.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from renamerd.engine.types import (
    DEFAULT_BELOW_CONFIDENCE,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_LANGUAGE,
    DEFAULT_REVIEW_FOLDER,
    DEFAULT_TEMPLATE_MODE,
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_MODES,
)

BelowConfidence = Literal["keep", "review", "rename"]

ENV_PREFIX = "RENAMERD_"


class ConfigFileError(Exception):
    """A config problem, as one line that names the key and the file."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: a secret given in the config: `{ env = "VAR" }`, `{ file = "/path" }` (preferred), or the
#: value itself
SecretRef = str | dict[str, str]


def _check_secret_ref(value: SecretRef) -> SecretRef:
    if isinstance(value, dict) and (len(value) != 1 or not ({"env", "file"} & set(value))):
        raise ValueError('a secret is given as { env = "VAR" } or { file = "/path" }')
    return value


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=1, le=65535)
    #: seconds running jobs and requests get to finish after SIGTERM
    shutdown_grace_s: float = Field(30.0, ge=0)
    #: proxies (addresses or CIDRs) whose X-Forwarded-For / -Proto are trusted; [] = none:
    #: the client address is always the connection's peer
    trusted_proxies: list[str] = Field(default_factory=list)
    #: the older, comma-separated form of trusted_proxies (both are honoured)
    forwarded_allow_ips: str = ""
    #: GET /metrics: "token" (Authorization: Bearer metrics_token, or an admin's API token),
    #: "open" (no authentication: only where the port is reachable by the scraper alone), "off"
    metrics: Literal["token", "open", "off"] = "token"
    metrics_token: SecretRef = ""
    #: a request's headers must arrive within this many seconds of its first byte, and its
    #: body must not stall longer than body_idle_timeout_s between two reads: else 408
    header_timeout_s: float = Field(10.0, gt=0)
    body_idle_timeout_s: float = Field(20.0, gt=0)
    #: request line and headers together, in KiB: past it 431 and the connection is closed
    max_header_kb: int = Field(64, ge=8, le=1024)
    #: open connections served at once; past it, new requests get 503 at once
    max_connections: int = Field(1000, ge=1)
    #: open connections from one client address; past it, the new one gets 429 and is closed
    #: (trusted proxies are not counted: they carry everyone's); 0 = no cap
    max_connections_per_client: int = Field(64, ge=0)
    #: the address people and providers reach this server at (links in invitations, OAuth
    #: callbacks; https makes the session cookie Secure); "" = http://<host>:<port>
    public_url: str = ""

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http(s) address")
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: list[str]) -> list[str]:
        return _check_cidrs(value)

    @field_validator("metrics_token")
    @classmethod
    def _metrics_secret(cls, value: SecretRef) -> SecretRef:
        return _check_secret_ref(value)

    @property
    def proxies(self) -> list[str]:
        """Every trusted proxy: trusted_proxies, then forwarded_allow_ips' entries."""
        older = [p.strip() for p in self.forwarded_allow_ips.split(",") if p.strip()]
        return list(self.trusted_proxies) + older

    @property
    def base_url(self) -> str:
        """`public_url`, or http://<host>:<port> when it is not set (no trailing slash)."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"  # noqa: S104
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"


class DatabaseSettings(_Section):
    #: SQLAlchemy URL; sqlite:///./var/renamerd.db or postgresql+psycopg://user:pw@host/db
    url: str = "sqlite:///./var/renamerd.db"
    #: SQLite busy timeout in milliseconds
    sqlite_busy_timeout_ms: int = Field(30000, ge=0)
    pool_size: int = Field(10, ge=1)


class LimitsSettings(_Section):
    max_upload_mb: float = Field(25, gt=0)
    burst_per_minute: int = Field(200, ge=1)
    concurrent_per_account: int = Field(20, ge=1)
    daily_per_account: int = Field(10000, ge=1)
    #: rolling window of the daily limit, in hours
    daily_window_hours: int = Field(24, ge=1)
    #: limits storage: "" = in-process memory; redis://host:6379/0 to share between processes
    storage_url: str = ""
    #: seconds after which a concurrency slot held by a dead process is released
    concurrency_slot_ttl_s: int = Field(600, ge=10)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)


class CreditsSettings(_Section):
    enabled: bool = True
    signup_grant: int = Field(50, ge=0)
    validity_days: int = Field(365, ge=1)
    #: pending jobs at most this old are resumed automatically by a grant
    resume_max_age_days: int = Field(30, ge=0)
    #: an API request's credit still `reserved` this many seconds past engine.deadline_seconds
    #: belongs to a killed process and is refunded (at start, then every minute)
    reservation_grace_s: float = Field(120.0, ge=0)


class FetchSettings(_Section):
    #: CIDRs exempt from the private-address block (intranet document servers)
    allow_networks: list[str] = Field(default_factory=list)
    connect_timeout_s: float = Field(10.0, gt=0)
    read_timeout_s: float = Field(30.0, gt=0)
    max_redirects: int = Field(5, ge=0, le=10)
    #: the whole fetch (every redirect hop, connect and body) must finish within this
    total_timeout_s: float = Field(40.0, gt=0)

    @field_validator("allow_networks")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        return _check_cidrs(value)


def _check_cidrs(value: list[str]) -> list[str]:
    for cidr in value:
        try:
            ipaddress.ip_network(cidr, strict=False)
        except ValueError as err:
            raise ValueError(f"{cidr!r} is not a CIDR network") from err
    return value


class OAuthSettings(_Section):
    """OpenID Connect access tokens (JWTs) accepted besides API tokens. Off while issuer is empty."""

    issuer: str = ""
    audience: str = ""
    #: JWKS URL; empty: discovered from {issuer}/.well-known/openid-configuration
    jwks_url: str = ""
    #: claim holding the user's e-mail
    email_claim: str = "email"
    algorithms: list[str] = Field(default_factory=lambda: ["RS256", "ES256"])
    #: seconds JWKS keys are cached before a refresh
    jwks_cache_s: int = Field(3600, ge=0)
    leeway_s: int = Field(30, ge=0)
    #: create a local user on first sight of a verified e-mail
    auto_create_users: bool = False
    #: CA bundle for the JWKS fetch (private PKI); empty: system store
    ca_bundle: str = ""
    #: the web app's "Sign in with <issuer>" (authorization code + PKCE): the client
    #: registered at the provider for the redirect {server.public_url}/signin/oidc/callback.
    #: The button shows while issuer and client_id are set.
    client_id: str = ""
    #: the client's secret (confidential clients; empty: a public client, PKCE only). Prefer
    #: the environment variable RENAMERD_OAUTH__CLIENT_SECRET over writing it here.
    client_secret: str = ""
    scopes: list[str] = Field(default_factory=lambda: ["openid", "email", "profile"])
    #: the button's name ("Sign in with <display_name>"); empty: the issuer's host name
    display_name: str = ""


class WebSettings(_Section):
    """The web app's sessions and sign-in."""

    #: a session unused this long ends (minutes)
    session_idle_minutes: int = Field(480, ge=1)
    #: a session ends this long after sign-in, used or not (hours)
    session_max_hours: int = Field(168, ge=1)
    #: wrong passwords allowed per account and per address within the window, then 429
    sign_in_attempts: int = Field(10, ge=1)
    sign_in_window_minutes: int = Field(15, ge=1)
    #: days an invitation link (`renamerd users invite`) stays valid
    invite_days: int = Field(7, ge=1)
    #: seconds between two updates of the Jobs page (polling)
    live_update_s: float = Field(3.0, ge=0.5)


class EngineSettings(_Section):
    provider: Literal["builtin", "openai"] = "builtin"
    base_url: str = ""
    model: str = ""
    #: name of the environment variable holding the API key (never the key itself)
    api_key_env: str = "RENAMERD_LLM_API_KEY"
    timeout_s: float = Field(30.0, gt=0)
    #: on LLM failure fall back to the built-in engine (true) or fail with 502 (false)
    fallback: bool = True
    #: OCR of scans and photos: "auto" (PP-OCR through RapidOCR, tesseract where a page needs
    #: it: see docs/engine-ocr.md), "rapidocr" (PP-OCR only) or "tesseract" (tesseract only)
    ocr: Literal["auto", "rapidocr", "tesseract"] = "auto"
    #: tesseract languages; empty: every installed one the lexicon knows
    ocr_languages: list[str] = Field(default_factory=list)
    ocr_max_pages: int = Field(3, ge=1)
    ocr_timeout_s: float = Field(60.0, gt=0)
    max_pages: int = Field(500, ge=1)
    max_pixels: int = Field(80_000_000, ge=1)
    #: characters of text kept per page / per document; the rest is not read
    max_page_chars: int = Field(100_000, ge=1000)
    max_document_chars: int = Field(300_000, ge=1000)
    #: decoded bytes of one PDF page's content the text extraction may parse (refused above)
    max_page_content_bytes: int = Field(2 * 1024 * 1024, ge=64 * 1024)
    #: engine worker processes of this process (API and daemon share them); 0 = one per core
    workers: int = Field(0, ge=0)
    #: wall-clock seconds one rename may take in its worker process before it is killed; 0 = none
    deadline_seconds: float = Field(30.0, ge=0)
    #: memory ceiling of each engine worker process in MB (RLIMIT_DATA); 0 = none
    memory_limit_mb: int = Field(1024, ge=0)
    #: documents whose confidence is under confidence_threshold: "keep" their name where they
    #: are, "review" (keep the name, move to review_folder under the target), or "rename"
    #: anyway. Kept documents cost no credit. Connections and API requests may override.
    below_confidence: BelowConfidence = DEFAULT_BELOW_CONFIDENCE  # type: ignore[assignment]
    confidence_threshold: float = Field(DEFAULT_CONFIDENCE_THRESHOLD, ge=0, le=1)
    #: the folder (under a connection's target) that "review" moves doubtful documents to
    review_folder: str = Field(DEFAULT_REVIEW_FOLDER, min_length=1, max_length=100)

    @field_validator("review_folder")
    @classmethod
    def _one_folder(cls, v: str) -> str:
        if "/" in v or "\\" in v or v.strip(" .") == "":
            raise ValueError("must be one folder name (no '/', not '.' or '..')")
        return v


class DaemonSettings(_Section):
    #: worker threads in this process (renamerd run / renamerd worker)
    workers: int = Field(2, ge=0)
    #: seconds a job lease lasts without a heartbeat
    lease_s: int = Field(60, ge=5)
    max_attempts: int = Field(5, ge=1)
    #: first retry delay in seconds; doubles per attempt
    retry_backoff_s: float = Field(10.0, ge=0)
    #: where connectors keep local state and downloads are staged
    state_dir: str = "./var/state"
    #: seconds between sd_notify watchdog pings (when systemd asks for them)
    watchdog_s: float = Field(10.0, gt=0)
    #: how often the connections users made in the web app are polled (providers with a long
    #: poll, Dropbox, see new files at once)
    user_poll_seconds: float = Field(60.0, gt=0)


class LoggingSettings(_Section):
    level: str = "INFO"
    format: Literal["text", "json"] = "text"


class SecretsSettings(_Section):
    #: key encrypting stored refresh tokens (Fernet, urlsafe base64 32 bytes). Prefer the env
    #: var RENAMERD_SECRETS__KEY or key_file over writing it here.
    key: str = ""
    key_file: str = ""


class TokensSettings(_Section):
    #: longest lifetime of an API token in days; `tokens create` without --expires-in gets it;
    #: 0 = unlimited
    max_lifetime_days: int = Field(0, ge=0)


class MailSettings(_Section):
    """The SMTP server notifications are sent through. Off while host is empty."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    host: str = ""
    port: int = Field(587, ge=1, le=65535)
    #: upgrade the connection with STARTTLS (refused when the server does not offer it)
    starttls: bool = True
    #: implicit TLS from the first byte (port 465); starttls is then not used
    ssl: bool = False
    user: str = ""
    password: SecretRef = ""
    #: the From address; "" = renamerd@<this host's name>
    from_: str = Field("", alias="from")
    timeout_s: float = Field(30.0, gt=0)

    @field_validator("password")
    @classmethod
    def _secret(cls, value: SecretRef) -> SecretRef:
        return _check_secret_ref(value)


class NotifySettings(_Section):
    """What users are told without looking, by e-mail ([mail]) and by webhook."""

    #: POST every notification here as signed JSON; "" = no webhook
    webhook_url: str = ""
    #: HMAC-SHA256 key of the webhook's X-Renamerd-Signature (required with webhook_url)
    webhook_secret: SecretRef = ""
    #: CIDRs the webhook may reach although private (the private-address block of [fetch])
    webhook_allow_networks: list[str] = Field(default_factory=list)
    timeout_s: float = Field(10.0, gt=0)
    #: a delivery that fails transiently is tried again this often, the wait doubling
    retries: int = Field(3, ge=0, le=10)
    retry_backoff_s: float = Field(2.0, ge=0)
    #: the kinds: jobs wait for credits; a connection needs new consent; a connection's polls
    #: keep failing (`poll_failures` in a row); the weekly digest of what was renamed
    pending_credits: bool = True
    connection_stopped: bool = True
    connection_failing: bool = True
    poll_failures: int = Field(5, ge=1)
    digest: bool = False
    digest_weekday: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"] = "mon"
    #: hour (UTC) the digest goes out on its weekday
    digest_hour: int = Field(8, ge=0, le=23)

    @field_validator("webhook_secret")
    @classmethod
    def _secret(cls, value: SecretRef) -> SecretRef:
        return _check_secret_ref(value)

    @field_validator("webhook_url")
    @classmethod
    def _http(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http(s) address")
        return value

    @field_validator("webhook_allow_networks")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        return _check_cidrs(value)

    @model_validator(mode="after")
    def _signed(self) -> NotifySettings:
        if self.webhook_url and not self.webhook_secret:
            raise ValueError("webhook_url needs a webhook_secret to sign its deliveries")
        return self


class ConnectionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    provider: str
    owner: str
    watch: str
    target: str = ""
    strategy: str = "by_date_type"
    template_mode: str = DEFAULT_TEMPLATE_MODE
    custom_template: str | None = None
    template_id: str | None = None
    language: str = DEFAULT_LANGUAGE
    #: this connection's confidence policy; unset: [engine] below_confidence / threshold
    below_confidence: BelowConfidence | None = None
    confidence_threshold: float | None = Field(None, ge=0, le=1)
    poll_seconds: float = Field(60, gt=0)
    recursive: bool = False
    enabled: bool = True
    #: suggest only: each document's suggested name and folder are recorded, nothing is moved
    dry_run: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    #: "config" (this file) or "user" (made by its owner in the web app or the API)
    source: Literal["config", "user"] = Field("config", exclude=True)

    @field_validator("strategy")
    @classmethod
    def _strategy(cls, v: str) -> str:
        if v not in STRATEGIES:
            raise ValueError(f"{v!r} is not one of {', '.join(STRATEGIES)}")
        return v

    @field_validator("template_mode")
    @classmethod
    def _mode(cls, v: str) -> str:
        if v not in TEMPLATE_MODES:
            raise ValueError(f"{v!r} is not one of {', '.join(TEMPLATE_MODES)}")
        return v

    @field_validator("language")
    @classmethod
    def _language(cls, v: str) -> str:
        if v not in LANGUAGES:
            raise ValueError(f"{v!r} is not one of {', '.join(LANGUAGES)}")
        return v

    @property
    def target_root(self) -> str:
        return self.target or self.watch


class Settings(BaseSettings):
    """Every setting renamerd reads. See config.example.toml for the documented file."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid", case_sensitive=False
    )

    server: ServerSettings = Field(default_factory=ServerSettings)
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    credits: CreditsSettings = Field(default_factory=CreditsSettings)
    fetch: FetchSettings = Field(default_factory=FetchSettings)
    oauth: OAuthSettings = Field(default_factory=OAuthSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    daemon: DaemonSettings = Field(default_factory=DaemonSettings)
    logging: LoggingSettings = Field(default_factory=LoggingSettings)
    secrets: SecretsSettings = Field(default_factory=SecretsSettings)
    tokens: TokensSettings = Field(default_factory=TokensSettings)
    mail: MailSettings = Field(default_factory=MailSettings)
    notify: NotifySettings = Field(default_factory=NotifySettings)
    connections: list[ConnectionSettings] = Field(default_factory=list)
    #: the OAuth apps users connect their own drives with (web app, /api/v1/connections): per
    #: provider (gdrive, dropbox, onedrive) the keys of its [connections.options]
    providers: dict[str, dict[str, Any]] = Field(default_factory=dict)

    #: the file these settings were read from (None: embedded defaults)
    source_file: str | None = Field(default=None, exclude=True)

    @field_validator("connections")
    @classmethod
    def _unique_names(cls, value: list[ConnectionSettings]) -> list[ConnectionSettings]:
        seen: set[str] = set()
        for conn in value:
            if conn.name in seen:
                raise ValueError(f"connection name {conn.name!r} is used twice")
            seen.add(conn.name)
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # environment first (wins), then the TOML data passed as init kwargs
        return (env_settings, init_settings)

    def engine_config(self) -> Any:
        """The `EngineConfig` the engine obeys, with the LLM key resolved from the environment."""
        from renamerd.engine.types import EngineConfig

        e = self.engine
        return EngineConfig(
            max_bytes=self.limits.max_upload_bytes,
            max_pages=e.max_pages,
            max_pixels=e.max_pixels,
            max_page_chars=e.max_page_chars,
            max_document_chars=e.max_document_chars,
            max_page_content_bytes=e.max_page_content_bytes,
            ocr=e.ocr,
            ocr_languages=tuple(e.ocr_languages),
            ocr_max_pages=e.ocr_max_pages,
            ocr_timeout_s=e.ocr_timeout_s,
            provider=e.provider,
            llm_base_url=e.base_url,
            llm_model=e.model,
            llm_api_key=os.environ.get(e.api_key_env, ""),
            llm_timeout_s=e.timeout_s,
            llm_fallback=e.fallback,
            below_confidence=e.below_confidence,
            confidence_threshold=e.confidence_threshold,
            review_folder=e.review_folder,
        )


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
