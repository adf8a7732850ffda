"""Settings: flags > environment (RAILCHAT_*) > TOML file (--config) > defaults."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def default_data_dir() -> Path:
    return Path(os.environ.get("RAILCHAT_DATA_DIR", PROJECT_ROOT / "data"))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RAILCHAT_", extra="ignore")

    profile: str | None = None  # None: smollm2-cpu when co-launching on CPU, generic when attaching
    model: str | None = None
    tensor_parallel_size: int | None = None
    vllm_args: Annotated[list[str], NoDecode] = Field(default_factory=list)

    llm_url: str | None = None  # attach mode: OpenAI base URL including /v1
    llm_api_key: str = "EMPTY"
    served_model: str | None = None
    vllm_port: int = 8000

    host: str = "127.0.0.1"
    port: int = 7860
    data_dir: Path = Field(default_factory=default_data_dir)
    db: str | None = None
    rails: Path = PROJECT_ROOT / "rails"
    url_allowlist: Annotated[list[str] | None, NoDecode] = None
    auth_file: Path | None = None
    share: bool = False
    demo: bool = False
    concurrent_turns: int = 16  # chat turns the UI streams at once; more wait in its queue
    queue_size: int = 64  # turns that may wait; beyond that a visitor is told the app is busy

    system_prompt: str = "You are a helpful assistant."
    max_tokens: int = 1024
    max_tokens_cap: int = 4096
    context_margin: int = 64
    max_message_chars: int = 100_000
    max_image_bytes: int = 20 * 2**20
    max_images_per_message: int = 4
    request_timeout_s: float = 600.0
    checkpoint_interval_s: float = 0.5
    image_clahe: bool = False  # OpenCV contrast normalisation of uploads (CLAHE), off by default
    describe_images: bool = True  # text-only models get a short description of each image (else: refused)
    retention_days: int | None = None  # sessions idle longer than this are deleted at start; None keeps all

    @field_validator("vllm_args", mode="before")
    @classmethod
    def _split_shell(cls, value: Any) -> Any:
        if isinstance(value, str):
            import shlex

            return shlex.split(value)
        return value

    @field_validator("url_allowlist", mode="before")
    @classmethod
    def _split_csv(cls, value: Any) -> Any:
        # RAILCHAT_URL_ALLOWLIST is comma separated; pydantic-settings would otherwise expect JSON.
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @property
    def db_url(self) -> str:
        return self.db or f"sqlite:///{self.data_dir / 'railchat.db'}"

    @property
    def attach(self) -> bool:
        return self.llm_url is not None

    @property
    def profile_name(self) -> str:
        if self.profile:
            return self.profile
        return "generic" if self.attach else "smollm2-cpu"


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build settings from a TOML file, the environment and explicit overrides (flags), in rising priority."""
    file_values: dict[str, Any] = {}
    if config_file is not None:
        import tomllib

        file_values = tomllib.loads(config_file.read_text())
    env = Settings()  # environment over defaults
    env_set = {k: getattr(env, k) for k in env.model_fields_set}
    merged = {**file_values, **env_set, **{k: v for k, v in overrides.items() if v is not None}}
    return Settings.model_validate(merged)
