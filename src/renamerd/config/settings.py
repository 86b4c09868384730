"""`Settings`: every section, the connections and the providers' OAuth apps, read from the
TOML data given and `RENAMERD_<SECTION>__<KEY>` environment variables (which win)."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

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
    SecretsSettings,
    ServerSettings,
    TokensSettings,
    WebSettings,
)
from renamerd.engine.types import (
    DEFAULT_LANGUAGE,
    DEFAULT_TEMPLATE_MODE,
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_MODES,
)

ENV_PREFIX = "RENAMERD_"


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


