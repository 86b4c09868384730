"""The sections of the settings ([server], [database], ... [notify]): their keys, defaults and
checks. Each is a pydantic model that refuses unknown keys; `settings.Settings` holds one of each."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from renamerd.engine.types import (
    DEFAULT_BELOW_CONFIDENCE,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_REVIEW_FOLDER,
)

BelowConfidence = Literal["keep", "review", "rename"]



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

