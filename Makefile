# Two commands set up a fresh machine (see README): `make app` and `make test`.
# Both first run scripts/bootstrap.sh, which installs only what is missing (a second run is instant).
VENV    := $(CURDIR)/.venv
PY      := $(VENV)/bin/python
export EGX_HOME      ?= $(CURDIR)/.egx
export EGX_CACHE_DIR ?= $(CURDIR)/.cache
PORT    ?= 8501
# The suite runs on TEST_WORKERS pytest-xdist workers: whole files per worker (module fixtures are built
# once), the longest files first (tests/conftest.py orders them), each worker with its share of the cores.
# TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
PYTEST_ARGS ?= --durations=40

.PHONY: app test setup lint bench clean-workspaces record-llm check-recordings stamp-recordings gpu-check

# `egx app` first builds the bundled samples for the app's embedder (a terminal progress bar with an
# ETA; instant once built), so nobody waits for a build in the browser.
app: setup  ## install what is missing, build the samples, then start the app on them
	$(PY) -m core.cli app --port $(PORT)

# The tests never reach for the hub; the app may, for an explicit hub id (the bundled models never do).
test: export HF_HUB_OFFLINE := 1
test: export TRANSFORMERS_OFFLINE := 1
test: setup  ## install what is missing, then run the whole test suite
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

setup:
	@bash scripts/bootstrap.sh

lint: setup
	$(VENV)/bin/ruff check core components pages tests benchmarks app.py
	$(VENV)/bin/mypy

bench: setup  ## index build throughput vs raw SentenceTransformer.encode (MuSiQue)
	$(PY) benchmarks/index_throughput.py

RECORD_WS ?= demo
RECORD_LLM ?= local
RECORD_METHODS ?= bubblerag,sgrag,reg
RECORD_IDS ?=
record-llm: setup  ## record real-LLM runs for the 'recorded' LLM (resumable; one question x method per piece)
	PY=$(PY) bash scripts/record_llm.sh $(RECORD_WS) $(RECORD_LLM) $(RECORD_METHODS) $(RECORD_IDS)

check-recordings: setup  ## replay the shipped LLM recordings; list any run that no longer replays
	$(PY) scripts/check_recordings.py

stamp-recordings: setup  ## list every shipped LLM recording's content hash in its MANIFEST.txt (after a merge)
	$(PY) scripts/check_recordings.py --stamp --no-replay

gpu-check: setup  ## embedder, cross-encoder, GAT + ReG training, llama.cpp on the device each picks (CUDA if visible)
	$(PY) benchmarks/gpu_check.py --out benchmarks/results/gpu_check_$$(date +%F).json

clean-workspaces:
	rm -rf $(EGX_HOME)/workspaces
