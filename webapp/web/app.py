"""Compose the application: settings -> store, guard, LLM client, ChatService -> FastAPI with the UI mounted."""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Container, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from webapp.config import Settings
from webapp.guard.rails import Guard
from webapp.resources import resource_dir
from webapp.store import Store
from webapp.turn.service import ChatService
from webapp.upstream.client import LLMClient
from webapp.upstream.profiles import Profile, get_profile
from webapp.web import queuesessions
from webapp.web.audit_route import AUDIT_MOUNT, AuditRoute, share_login
from webapp.web.auth import ApiAccess, is_loopback
from webapp.web.bodydeadline import BodyDeadline
from webapp.web.gradiodoors import GradioDoors, upload_cap
from webapp.web.headers import SecurityHeaders
from webapp.web.hostguard import HostGuard
from webapp.web.liveevents import LiveEvents
from webapp.web.ownership import OwnerCookie, OwnerIds
from webapp.web.review_access import ReviewAccess
from webapp.web.tabbinding import TabBinding
from webapp.web.uploadquota import QuotaLimits, UploadQuota
from webapp.web.uploads import UploadLedger
from webapp.web.uploadsweep import Sweeper

ASSETS = resource_dir("assets")


@dataclass(frozen=True)
class Upstream:
    """Where the model server is: its OpenAI base URL (with /v1) and key."""

    base_url: str
    api_key: str = "EMPTY"


def build_service(
    settings: Settings, upstream: Upstream, *, served_model: str, profile: Profile | None = None
) -> ChatService:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(settings.db_url)
    store.mark_interrupted()  # answers cut by a crash or kill of the previous run
    if settings.retention_days is not None:
        store.purge_older_than(settings.retention_days)
    return ChatService(
        store=store,
        guard=Guard.from_dir(
            settings.rails, url_allowlist=settings.url_allowlist, cache_dir=settings.cache_dir
        ),
        llm=LLMClient(upstream.base_url, upstream.api_key, timeout_s=settings.request_timeout_s),
        profile=profile or get_profile(settings.profile_name),
        served_model=served_model,
        options=settings.turn_options(),
    )


def private_gradio_tempdir(settings: Settings) -> Path:
    # Every file Gradio caches is reachable by URL: keep uploads in a private folder, not the shared /tmp.
    folder = Path(os.environ.get("GRADIO_TEMP_DIR") or settings.data_dir / "gradio-tmp")
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.environ["GRADIO_TEMP_DIR"] = str(folder)
    tempfile.tempdir = None
    return folder


def browser_state_secret(data_dir: Path) -> str:
    """A random key made once per data folder (mode 0600), so browsers' signed ids survive restarts."""
    path = data_dir / "browser-state.key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def create_app(
    settings: Settings,
    service: ChatService,
    *,
    clock: Callable[[], float] = time.time,
    sweep_pause: Callable[[float], Awaitable[None]] = anyio.sleep,
) -> FastAPI:
    """``clock`` dates uploads for the quota and the sweep; ``sweep_pause`` waits between two sweeps."""
    import gradio as gr

    from webapp.web import demo
    from webapp.web.audit_ui import AuditTab
    from webapp.web.ui import ChatUI

    upload_dir = private_gradio_tempdir(settings)
    quota, sweeper = upload_limits(settings, upload_dir, clock)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:  # Gradio's mount wraps this lifespan in its own
            tasks.start_soon(partial(sweeper.run, pause=sweep_pause))
            yield
            tasks.cancel_scope.cancel()

    app = FastAPI(title="railchat", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.service = service

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        upstream_ok = await service.llm.health()
        body = {
            "app": "ok",
            "upstream": "ok" if upstream_ok else "unavailable",
            "model": service.served_model,
            "profile": service.profile.name,
        }
        return JSONResponse(body, status_code=200 if upstream_ok else 503)

    access, review_access = install_observability_and_api(app, settings, service)
    secret = browser_state_secret(settings.data_dir)
    uploads = UploadLedger(upload_dir, secret=secret)

    def chat_ui(tabs: list[AuditTab]) -> gr.Blocks:
        return ChatUI(
            service,
            concurrency=settings.concurrent_turns,
            queue_size=settings.queue_size,
            repaint_s=settings.ui_repaint_ms / 1000,
            uploads=uploads,
            extra_tabs=tabs,
        ).build()

    css = (ASSETS / "style.css").read_text() if (ASSETS / "style.css").exists() else None
    login = None if settings.demo_mode else ui_login(access)  # demo: anonymous visitors only
    gradio = dict(
        allowed_paths=[],
        show_error=False,
        ssr_mode=False,
        run_history=False,
        max_file_size=settings.max_image_bytes,
        footer_links=[],
        css=css,
        auth_message="railchat: sign in with the account from the auth file.",
    )
    # Demo visitors never get the Audit tab; elsewhere reviewers get a second app with it (audit_route.py).
    pages = {"/": chat_ui([])}
    if not settings.demo_mode:
        pages[AUDIT_MOUNT] = chat_ui([AuditTab(service.store, review_access)])
    for path in sorted(pages, reverse=True):  # "/audit" first: the mount at "/" would catch its paths
        gr.mount_gradio_app(app, pages[path], path=path, auth=login, **gradio)
    review_access.login.app = gradio_app_of(app)  # the Reviewer API also accepts the UI login
    for blocks in pages.values():  # 2,000 other tabs joining no longer end a running answer's stream
        queuesessions.install(blocks._queue)

    # Events with a function on the server: the page's browser-only ones (fn None) made Gradio raise.
    served = {path: {i for i, fn in page.fns.items() if fn.fn is not None} for path, page in pages.items()}

    def page(path: str) -> str:  # which mounted page a request path belongs to
        return AUDIT_MOUNT if path.startswith(AUDIT_MOUNT + "/") and AUDIT_MOUNT in pages else "/"

    def events(path: str) -> Container[int]:
        return served[page(path)]

    def signed_in_as(scope: MutableMapping[str, Any]) -> str | None:  # uploads belong to the user, if any
        return review_access.login.user(HTTPConnection(scope).cookies)

    # Gradio checks that event files were uploaded only for launch()ed apps, and fetches URLs for anyone.
    app.add_middleware(
        GradioDoors,
        ledger=uploads,
        tabs=TabBinding(secret),
        login=access.auth is not None,
        events=events,
        mounts=tuple(path for path in pages if path != "/"),
        user=signed_in_as,
        joined=LiveEvents(lambda path: pages[page(path)]),  # only an event's own tab may cancel it
        max_upload=upload_cap(settings.max_images_per_message, settings.max_image_bytes),
        quota=quota,
    )
    if AUDIT_MOUNT in pages:
        share_login(review_access.login.app, gradio_app_of(app, AUDIT_MOUNT))
        # Outside the doors, so they check the path a reviewer's request was moved to.
        app.add_middleware(AuditRoute, access=review_access)
    demo.install(app, settings, service)  # inside OwnerCookie: the gate reads the browser id it vouched for
    # Every browser (signed in or not) gets a signed id: anonymous owners, demo limits, and upload ownership.
    lifetime_s = settings.browser_id_days * 24 * 3600
    app.add_middleware(OwnerCookie, ids=OwnerIds(secret, lifetime_s=lifetime_s))
    if not settings.share:  # a share link arrives through Gradio's tunnel under its own public name
        # Outermost: a rebound DNS name or a cross-site page is refused before anything else runs.
        app.add_middleware(HostGuard, loopback_only=is_loopback(settings.host))
    # Around every route: a body trickled in cannot hold its connection (the header deadline ends at the body).
    app.add_middleware(
        BodyDeadline, timeout_s=settings.http_body_timeout_s, min_rate=settings.http_body_min_rate
    )
    app.add_middleware(SecurityHeaders)  # around everything, refusals included
    return app


def upload_limits(
    settings: Settings, upload_dir: Path, clock: Callable[[], float]
) -> tuple[UploadQuota, Sweeper]:
    """The doors' quota over time and the sweep that deletes old uploads (and measures the folder for it)."""
    limits = QuotaLimits(
        window_s=settings.upload_window_s,
        bytes_per_window=settings.upload_bytes_per_window,
        files_per_window=settings.upload_files_per_window,
        folder_bytes=settings.upload_folder_bytes,
    )
    quota = UploadQuota(limits, clock=clock)
    sweeper = Sweeper(
        upload_dir,
        ttl_s=settings.upload_ttl_s,
        interval_s=settings.upload_sweep_s,
        clock=clock,
        measured=quota.swept,
    )
    return quota, sweeper


def gradio_app_of(app: FastAPI, path: str = "") -> object:
    """The Gradio app mounted at ``path`` ("/" by default: it holds the login tokens)."""
    from starlette.routing import Mount

    return next(r.app for r in app.routes if isinstance(r, Mount) and r.path in (path, path + "/"))


def ui_login(access: ApiAccess) -> Callable[[str, str], bool] | None:
    """With an auth file the UI asks for a user name and password (same users as the API keys)."""
    auth_file = access.auth
    if auth_file is None:
        return None
    return lambda name, password: auth_file.check_password(name, password) is not None


def install_observability_and_api(
    app: FastAPI, settings: Settings, service: ChatService
) -> tuple[ApiAccess, ReviewAccess]:
    """`/v1/*`, `/api/*`, `/metrics`, request ids and counters. Before the UI mount: "/" would catch these."""
    from webapp.web import api, metrics, reviewer_api
    from webapp.web.logs import RequestIdMiddleware, allow_content_in_log

    access = ApiAccess.from_settings(settings)
    review_access = ReviewAccess(access, demo=settings.demo_mode)
    service.observer = app_metrics = metrics.Metrics()  # a registry per app
    metrics.install(app, app_metrics, access, demo=settings.demo_mode, token=settings.metrics_token)
    api.install(
        app,
        service,
        access,
        turns=settings.api_turns,
        turns_per_key=settings.api_turns_per_key,
        stall_s=settings.api_stall_s,
    )
    reviewer_api.install(app, service.store, review_access)
    for prefix in ("/v1", "/api"):  # an unknown API path is ours to answer, never the Gradio mount's at "/"
        app.add_api_route(
            prefix + "/{rest:path}", unknown_api_path, methods=API_METHODS, include_in_schema=False
        )
    app.add_middleware(RequestIdMiddleware)
    allow_content_in_log(settings.log_content)
    return access, review_access


API_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


async def unknown_api_path() -> JSONResponse:
    error = {"message": "No such endpoint.", "type": "invalid_request_error", "code": "not_found"}
    return JSONResponse({"error": error}, status_code=404)


def run_app(app: FastAPI, settings: Settings) -> None:
    """Serve until SIGINT/SIGTERM (uvicorn shuts down gracefully, then re-raises the signal)."""
    import uvicorn

    from webapp.web.requestline import http_protocol

    protocol = http_protocol(header_timeout_s=settings.http_header_timeout_s)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning", http=protocol)
