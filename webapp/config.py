"""Settings: the one place a default is written. Flags > environment (RAILCHAT_*) > TOML file (--config).

The layering is pydantic-settings' own (init arguments, environment, its TOML source), not hand-written.
Services never read the environment or hold defaults of their own: the composition root builds them small
frozen option objects from here (`turn_options()`), keyword-only, so a test wires the same values.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from webapp.resources import PROJECT_ROOT, default_cache_dir, resource_dir, user_dir

if TYPE_CHECKING:
    from webapp.turn.options import TurnOptions


def default_data_dir() -> Path:
    """A source checkout keeps its data beside the code (``data/``); an installed app in the XDG data home."""
    if (PROJECT_ROOT / "pyproject.toml").exists():
        return PROJECT_ROOT / "data"
    return user_dir("XDG_DATA_HOME", ".local/share")


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
    cache_dir: Path = Field(default_factory=default_cache_dir)  # prepared models
    db: str | None = None
    rails: Path = Field(default_factory=lambda: resource_dir("rails"))
    url_allowlist: Annotated[list[str] | None, NoDecode] = None
    auth_file: Path | None = None
    share: bool = False
    demo: bool = False
    concurrent_turns: int = 16  # chat turns the UI streams at once; more wait in its queue
    queue_size: int = 64  # turns that may wait; beyond that a visitor is told the app is busy
    # After an answer's first words are shown, the UI repaints it at most this often (each repaint is
    # Gradio's work over the whole chat); 0: at every released word
    ui_repaint_ms: float = 100.0
    # API turns running at once (streamed or not, until the client has read the end or left): a client that
    # opens streams and never reads them holds each one's upstream request and buffers. Per API key; the
    # open loopback API has one owner (this machine's processes), capped by the total alone.
    api_turns: int = 128
    api_turns_per_key: int = 16
    # A streamed answer whose client has taken none of it for this long (its buffers full, one write blocked)
    # ends as if the client had left: a reader that stalls cannot hold its turn for ever.
    api_stall_s: float = 60.0
    # A connection's request headers must be complete this long after it was opened or its last answer ended,
    # or it is closed: idle and slowloris sockets cannot pile up and exhaust the process's file descriptors.
    http_header_timeout_s: float = 10.0
    # A request's body must have arrived this long after the app began to read it, plus one second for every
    # http_body_min_rate bytes that arrived, or it is answered 408 and its connection closed: a body trickled a
    # byte at a time cannot hold a connection (a real upload buys time as it arrives).
    http_body_timeout_s: float = 60.0
    http_body_min_rate: int = Field(default=8192, gt=0)  # bytes a second
    invite_only: bool = False  # demo: visitors need an invite link (python -m webapp.invites new)
    demo_messages_per_minute: int = 5  # demo: per visitor, counted in the database (holds across replicas)
    # A browser's signed id (its anonymous chats, its uploads) lasts this long from its issue, then the
    # browser gets a fresh one: a copied cookie stops opening the chats.
    browser_id_days: float = 365.0

    system_prompt: str = "You are a helpful assistant."  # empty: no system prompt
    # An API client's own system/developer messages: "append" (after the operator's system prompt, through
    # the input rails) or "ignore" (only the operator's applies).
    client_system_prompts: Literal["append", "ignore"] = "append"
    max_tokens: int = 1024
    max_tokens_cap: int = 4096
    context_margin: int = 64
    # Tokenize a new message only when an upper bound of its tokens (UTF-8 bytes and the template's markup)
    # does not prove that the context fits; off: every new message is counted exactly (a /tokenize per turn).
    tokenize_near_limit_only: bool = True
    fallback_max_model_len: int = 4096  # when the server does not say its context length
    max_message_chars: int = 100_000
    max_image_bytes: int = 20 * 2**20
    max_images_per_message: int = 4
    # Uploads (Gradio's upload route keeps every file): per owner (user or browser id) at most this many bytes
    # (as the requests declare them) and files a window, answered 429 beyond; all owners together at most
    # upload_folder_bytes on disk (a browser id costs nothing, so this is what bounds the disk). Every file in
    # the upload folder (and its owner mark) is deleted upload_ttl_s after it was written: a sent image is
    # kept in the database, a reopened chat shows it from there.
    upload_window_s: float = 3600.0
    upload_bytes_per_window: int = 200 * 2**20
    upload_files_per_window: int = 100
    upload_folder_bytes: int = 2 * 2**30
    upload_ttl_s: float = 6 * 3600.0
    upload_sweep_s: float = 60.0  # a background task sweeps the folder this often (and once at start)
    request_timeout_s: float = 600.0
    checkpoint_interval_s: float = 0.5
    image_clahe: bool = False  # OpenCV contrast normalisation of uploads (CLAHE), off by default
    # images decoded and prepared at once across every turn: one of the largest allowed (64 MP; a 0.5 MB 16-bit
    # PNG can be one) needs ~0.5 GB while it is decoded, so this bounds what image uploads can take of memory
    image_workers: int = Field(default=2, ge=1)
    describe_images: bool = True  # text-only models get a short description of each image (else: refused)
    retention_days: int | None = None  # sessions idle longer than this are deleted at start; None keeps all
    # glibc's allocator (webapp/runtime/memory.py): at most this many heaps, free pages handed back this
    # often; 0 leaves glibc's default.
    malloc_arenas: int = 2
    malloc_trim_s: float = 60.0
    # A worker thread (the store's, the embedding model's) waiting for the GIL gets it after at most this long
    # (webapp/runtime/gil.py); 0 keeps Python's 5 ms.
    gil_switch_ms: float = 1.0

    # A Bearer key for scrapers of /metrics; in demo mode /metrics answers only to it (see SECURITY.md).
    metrics_token: str | None = None

    log_json: bool = False  # JSON lines instead of human-readable lines
    log_content: bool = False  # message text in the log (else only its length): for local debugging only
    log_level: str = "INFO"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Flags (init arguments) > RAILCHAT_* > the TOML file named by --config (model_config's toml_file).
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls)

    @field_validator("vllm_args", mode="before")
    @classmethod
    def _split_shell(cls, value: Any) -> Any:
        return shlex.split(value) if isinstance(value, str) else value

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
    def models_dir(self) -> Path:
        """Where prepared models (the embedded default, test models) are kept."""
        return self.cache_dir / "models"

    @property
    def demo_mode(self) -> bool:
        """Anonymous visitors with limits: --demo, --invite-only, or a public --share link."""
        return self.demo or self.share or self.invite_only

    @property
    def attach(self) -> bool:
        return self.llm_url is not None

    @property
    def profile_name(self) -> str:
        if self.profile:
            return self.profile
        return "generic" if self.attach else "smollm2-cpu"

    def turn_options(self) -> TurnOptions:
        """The pipeline's limits and switches."""
        from webapp.turn.options import TurnOptions

        return TurnOptions(
            system_prompt=self.system_prompt or None,
            default_max_tokens=self.max_tokens,
            max_tokens_cap=self.max_tokens_cap,
            context_margin=self.context_margin,
            tokenize_near_limit_only=self.tokenize_near_limit_only,
            fallback_max_model_len=self.fallback_max_model_len,
            max_message_chars=self.max_message_chars,
            max_images=self.max_images_per_message,
            max_image_bytes=self.max_image_bytes,
            checkpoint_interval_s=self.checkpoint_interval_s,
            image_clahe=self.image_clahe,
            image_workers=self.image_workers,
            describe_images=self.describe_images,
            client_system_prompts=self.client_system_prompts,
        )


def load_settings(config_file: Path | None = None, **flags: Any) -> Settings:
    """Settings from flags (None means "not given"), the environment and a TOML file, in falling priority."""
    given = {name: value for name, value in flags.items() if value is not None}
    if config_file is None:
        return Settings(**given)

    class FromFile(Settings):
        model_config = SettingsConfigDict(toml_file=config_file)

    return FromFile(**given)
