"""A normal (non-editable) install works: the wheel carries rails/ and assets/, and the app started from it
answers with its rails loaded.

The wheel is built from a copy of the source, installed with ``--no-deps`` into a fresh venv that borrows the
test venv's packages (so this takes seconds, not a full install), and started as the ``railchat`` command in
attach mode against the scripted upstream, from a folder outside the checkout.
"""

from __future__ import annotations

import os
import shutil
import signal
import site
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.support.paths import ROOT
from tests.support.scripted_upstream import ScriptedUpstream
from tests.support.threaded_server import free_port

SOURCES = ("pyproject.toml", "setup.py", "README.md", "webapp", "rails", "assets")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip"]
    run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(work), str(source)]
    )
    (built,) = work.glob("railchat-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    venv_site = Path(
        run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip()
    )
    # The test venv's packages come after the venv's own, so the wheel's webapp wins over any other copy.
    (venv_site / "borrowed.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            str(wheel),
        ]
    )
    return venv


def run(command: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=clean_env(), cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("RAILCHAT_")}
    return {**env, **extra}


def test_the_wheel_carries_the_rails_and_assets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"webapp/rails/{p.name}" for p in (ROOT / "rails").iterdir() if p.is_file()}
    assert shipped and shipped <= names  # every file of rails/, .railsignore included
    assert {"webapp/assets/style.css", "webapp/assets/grafana-dashboard.json"} <= names
    assert "webapp/store/migrations/versions/0001_initial.py" in names


def test_the_installed_app_finds_its_rails_in_the_package(installed: Path, tmp_path: Path) -> None:
    found = run(
        [
            str(installed / "bin" / "python"),
            "-c",
            "import webapp, webapp.config as c; print(webapp.__file__); print(c.load_settings().rails)",
        ],
        cwd=tmp_path,  # outside the checkout
    ).splitlines()
    package = Path(found[0]).parent
    assert package.is_relative_to(installed) and Path(found[1]) == package / "rails"


def test_the_installed_app_serves_a_guarded_answer(
    installed: Path, upstream: ScriptedUpstream, tmp_path: Path
):
    port = free_port()
    proc = subprocess.Popen(
        [str(installed / "bin" / "railchat"), "--llm-url", upstream.base_url, "--port", str(port)],
        cwd=tmp_path,  # outside the checkout: nothing can come from the source tree
        env=clean_env(RAILCHAT_DATA_DIR=str(tmp_path / "data")),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_health(f"http://127.0.0.1:{port}/healthz", proc)
        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "Summarise https://evil.test/p"}]},
            timeout=60,
        )
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert response.status_code == 200, output
    body = response.json()
    assert body["choices"][0]["finish_reason"] == "content_filter"
    assert body["guardrails"]["stage"] == "input" and body["guardrails"]["rail"] == "url_allowlist"
    assert proc.returncode == 0, output


def wait_for_health(url: str, proc: subprocess.Popen[str], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"railchat exited: {proc.stdout.read() if proc.stdout else ''}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError("the installed app did not come up")
