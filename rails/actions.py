"""Custom NeMo Guardrails actions for railchat's rails (flows in rails.co).

Each action returns a ``RailOutcome``. The rail logic lives in ``webapp.guard.checks.RailChecks``, handed in by
``Guard.from_dir`` as the action parameter ``railchat_checks``; without it (config loaded by other tools)
the actions refuse rather than pass text unchecked.
"""

from __future__ import annotations

from typing import Any

from nemoguardrails.actions import action

from webapp.guard.verdicts import RailOutcome


def _texts(*texts: Any) -> list[str]:
    return [t for t in texts if isinstance(t, str) and t]


def _unwired(stage: str, rail: str) -> RailOutcome:
    return RailOutcome(
        "output" if stage == "output" else "input", rail, "block", "the safety check is not set up", 0.0
    )


@action(name="railchat_url_allowlist")
async def railchat_url_allowlist(
    stage: str = "input",
    text: str | None = None,
    reasoning: str | None = None,
    image_urls: list[str] | None = None,
    railchat_checks: Any = None,  # webapp.guard.checks.RailChecks
) -> RailOutcome:
    if railchat_checks is None:
        return _unwired(stage, "url_allowlist")
    urls = [u for u in (image_urls or []) if isinstance(u, str)]
    return railchat_checks.url_allowlist(stage, _texts(text, reasoning), urls)


@action(name="railchat_moderation")
async def railchat_moderation(
    stage: str = "input",
    text: str | None = None,
    reasoning: str | None = None,
    railchat_checks: Any = None,  # webapp.guard.checks.RailChecks
) -> RailOutcome:
    if railchat_checks is None:
        return _unwired(stage, "moderation")
    return railchat_checks.moderation(stage, _texts(text, reasoning))


@action(name="railchat_model_moderation")
async def railchat_model_moderation(
    stage: str = "input",
    text: str | None = None,
    reasoning: str | None = None,
    user_text: str | None = None,
    railchat_checks: Any = None,  # webapp.guard.checks.RailChecks
) -> RailOutcome:
    if railchat_checks is None:
        return _unwired(stage, "model_moderation")
    return await railchat_checks.model_moderation(
        stage,
        _texts(text, reasoning),
        user_text or "",
    )
