# Spades Arena. `make demo` runs a round robin of the sample bots on SQLite; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
NODE_BOT := sample_bots/node_random
CPP_BOT := sample_bots/cpp_lowest

.PHONY: sandbox-tools runtime setup demo web test test-fast bench lint proto proto-check clean cpp-bot cpp-bot-if-possible

# Each step says what it does on one line, then does it quietly.
# Two stamps: .runtime is the arena alone (what `make demo` and `make web` need), .installed adds
# the dev tools and Ray (what the tests, the linters and the proto generator need).
$(VENV)/.runtime: pyproject.toml setup.py arena/referee/_wire.c arena/analysis/_dd.c arena/envs/_obs.c
	@echo "setup: creating the virtualenv $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@echo "setup: installing the arena's runtime into $(VENV) (pip install -e .; it builds the C extensions - the referee's request encoder, the double-dummy search, the environments' observation encoder - where a C compiler is found)"
	@$(PY) -m pip install --quiet --disable-pip-version-check -e .
	@touch $@

$(VENV)/.installed: $(VENV)/.runtime
	@echo "setup: upgrading pip"
	@$(PY) -m pip install --quiet --upgrade pip
	@echo "setup: installing the dev tools, Ray and the research environments into $(VENV) (pip install -e '.[dev,ray,research]')"
	@$(PY) -m pip install --quiet -e '.[dev,ray,research]'
	@touch $@

$(NODE_BOT)/node_modules/.package-lock.json: $(NODE_BOT)/package.json $(NODE_BOT)/package-lock.json
	@echo "setup: installing the Node sample bot's npm packages ($(NODE_BOT))"
	@cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error

proto/node_modules/.package-lock.json: proto/package.json proto/package-lock.json
	@echo "setup: installing buf, the protobuf linter (proto/)"
	@cd proto && npm ci --no-audit --no-fund --loglevel=error

# The bot sandbox needs bubblewrap: installed here on Debian/Ubuntu when missing and root.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap; } \
	  || echo "note: bubblewrap (bwrap) is missing: bots will run without the sandbox (arena doctor)"

# What `make demo` and `make web` need: the arena and the Node sample bot's packages; no dev
# tools, no Ray, no buf, no C++ build (the C++ bot plays when `make cpp-bot` has built it).
runtime: $(VENV)/.runtime $(NODE_BOT)/node_modules/.package-lock.json

# Everything the tests, the linters and CI need.
setup: $(VENV)/.installed $(NODE_BOT)/node_modules/.package-lock.json proto/node_modules/.package-lock.json sandbox-tools cpp-bot-if-possible

# The C++ sample bot, built by its own Makefile (the arena never builds a bot). Needs g++, make,
# pkg-config, libgrpc++-dev and protobuf-compiler-grpc; setup skips it, saying so, without them.
cpp-bot:
	@$(MAKE) -s -C $(CPP_BOT)

cpp-bot-if-possible:
	@if command -v g++ >/dev/null && command -v grpc_cpp_plugin >/dev/null \
	    && pkg-config --exists grpc++ protobuf 2>/dev/null; then \
	  $(MAKE) cpp-bot --no-print-directory; \
	else \
	  echo "setup: C++ sample bot not built (needs g++ pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc)"; \
	fi

WEB_LISTEN ?= 127.0.0.1:8080

demo: runtime
	$(VENV)/bin/arena demo
	@echo "Watch it in a browser: make web, then open http://$(WEB_LISTEN)/"

web: runtime
	$(VENV)/bin/arena web --listen $(WEB_LISTEN)

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
	$(VENV)/bin/ruff format --check arena tests sample_bots proto
	$(VENV)/bin/mypy
	$(PY) proto/generate.py --check
	proto/node_modules/.bin/buf lint proto

proto: $(VENV)/.installed
	$(PY) proto/generate.py

clean:
	rm -rf $(VENV) $(NODE_BOT)/node_modules proto/node_modules .pytest_cache $(CPP_BOT)/build build
	rm -f arena/referee/_wire.*.so arena/analysis/_dd.*.so
