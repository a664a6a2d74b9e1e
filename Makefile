# Spades Arena. `make demo` runs a round robin of the sample bots on SQLite; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
NODE_BOT := sample_bots/node_random

.PHONY: sandbox-tools setup demo test test-fast bench lint proto proto-check clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

$(NODE_BOT)/node_modules/.package-lock.json: $(NODE_BOT)/package.json $(NODE_BOT)/package-lock.json
	cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error

proto/node_modules/.package-lock.json: proto/package.json proto/package-lock.json
	cd proto && npm ci --no-audit --no-fund --loglevel=error

# The bot sandbox needs bubblewrap: installed here on Debian/Ubuntu when missing and root.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; } \
	  || echo "note: bubblewrap (bwrap) is missing: bots will run without the sandbox (arena doctor)"

setup: $(VENV)/.installed $(NODE_BOT)/node_modules/.package-lock.json proto/node_modules/.package-lock.json sandbox-tools

demo: setup
	$(VENV)/bin/arena demo

test: setup
	$(PY) -m pytest

test-fast: setup
	$(PY) -m pytest -m "not slow"

bench: setup
	$(VENV)/bin/arena bench engine
	$(VENV)/bin/arena bench transport
	$(VENV)/bin/arena bench referee
	$(VENV)/bin/arena bench tournament

lint: setup
	$(VENV)/bin/ruff check arena tests sample_bots proto
	$(PY) proto/generate.py --check
	proto/node_modules/.bin/buf lint proto

proto: $(VENV)/.installed
	$(PY) proto/generate.py

clean:
	rm -rf $(VENV) $(NODE_BOT)/node_modules proto/node_modules .pytest_cache
