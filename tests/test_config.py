from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import RAILS_DIR
from webapp.config import load_settings


def test_flags_beat_environment_beat_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "railchat.toml"
    config.write_text('port = 7000\nhost = "0.0.0.0"\nmax_tokens = 99\n')
    monkeypatch.setenv("RAILCHAT_PORT", "7100")
    monkeypatch.setenv("RAILCHAT_HOST", "127.0.0.2")
    settings = load_settings(config, host="127.0.0.3")
    assert settings.host == "127.0.0.3"  # flag
    assert settings.port == 7100  # environment
    assert settings.max_tokens == 99  # file


def test_url_allowlist_from_environment_is_comma_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAILCHAT_URL_ALLOWLIST", "example.com, *.docs.example.org")
    assert load_settings().url_allowlist == ["example.com", "*.docs.example.org"]


def test_default_profile_depends_on_attach_mode() -> None:
    assert load_settings().profile_name == "smollm2-cpu"
    assert load_settings(llm_url="http://127.0.0.1:9/v1").profile_name == "generic"
    assert load_settings(llm_url="http://127.0.0.1:9/v1", profile="qwen3").profile_name == "qwen3"


def test_default_database_is_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    assert load_settings(data_dir=tmp_path).db_url == f"sqlite:///{tmp_path / 'railchat.db'}"


def test_retention_deletes_idle_sessions_at_start(tmp_path: Path) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from webapp.store import Store
    from webapp.store.models import SESSIONS
    from webapp.web.app import Upstream, build_service

    settings = load_settings(data_dir=tmp_path, retention_days=30, rails=RAILS_DIR)
    store = Store(settings.db_url)
    old = store.create_session(owner="o", client="ui", model="m")
    fresh = store.create_session(owner="o", client="ui", model="m")
    with store.engine.begin() as conn:
        conn.execute(
            update(SESSIONS)
            .where(SESSIONS.c.id == old)
            .values(updated_at=store.get_session(old).updated_at - timedelta(days=31))
        )
    build_service(settings, Upstream("http://127.0.0.1:9/v1"), served_model="m")
    assert store.get_session(old) is None and store.get_session(fresh) is not None


def test_browser_state_key_is_made_once_and_private(tmp_path: Path) -> None:
    import stat

    from webapp.web.app import browser_state_secret

    first = browser_state_secret(tmp_path)
    assert first == browser_state_secret(tmp_path) and len(first) >= 40
    assert stat.S_IMODE((tmp_path / "browser-state.key").stat().st_mode) == 0o600


def test_turn_options_have_no_defaults_of_their_own() -> None:
    from dataclasses import MISSING, fields

    from webapp.turn.options import TurnOptions

    assert all(f.default is MISSING and f.default_factory is MISSING for f in fields(TurnOptions))
    options = load_settings(max_image_bytes=123, system_prompt="").turn_options()
    assert options.max_image_bytes == 123 and options.system_prompt is None


def test_log_and_cache_settings_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAILCHAT_LOG_JSON", "1")
    monkeypatch.setenv("RAILCHAT_CACHE_DIR", str(tmp_path))
    settings = load_settings()
    assert settings.log_json is True and settings.log_content is False
    assert settings.models_dir == tmp_path / "models"
