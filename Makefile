# Pepper Arena. `make` lists the targets; `make arena` and `make test` are the two you need.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BUF := tools/node_modules/.bin/buf

# Python caches compiled modules in __pycache__ (ignored by git). A test run starts hundreds of Python processes
# (the CLI, referees, bots): with the cache each imports in about half the CPU time, so an environment that turns
# the cache off (PYTHONDONTWRITEBYTECODE, set on some CI images) does not reach what make runs.
unexport PYTHONDONTWRITEBYTECODE

.DEFAULT_GOAL := help
.PHONY: help install test test-fast lint bench arena clean proto checkgenerate bench-referee node-bot web images \
	bench-engine bench-arena bench-memory bench-ranking bench-sandbox bench-scale bench-bots bench-spiel

help: ## list the targets
	@echo "Pepper Arena"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

RUNTIME := $(VENV)/.runtime
PY_PACKAGES := referee arena conformance pepper_cli sample_bots supervisor pepper_spiel web ladder
NODE_BOT := sample_bots/node
NODE_STAMP := $(NODE_BOT)/node_modules/.package-lock.json

# A bot author's environment: the SDK alone (pepper-bot, grpcio, protobuf), for tests/e2e/test_sdk_only.py.
SDK_VENV := .venv-sdk
SDK_STAMP := $(SDK_VENV)/.installed
$(SDK_STAMP): sdk/python/pyproject.toml $(shell find sdk/python/pepper_bot sdk/python/pepper_proto -name '*.py')
	rm -rf $(SDK_VENV)
	$(PYTHON) -m venv $(SDK_VENV)
	$(SDK_VENV)/bin/python -m pip install --quiet ./sdk/python
	rm -rf sdk/python/build sdk/python/*.egg-info
	@touch $(SDK_STAMP)

# The runtime alone (what `make arena` needs); the test extras come on top for `make test`.
$(RUNTIME): pyproject.toml sdk/python/pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ./sdk/python -e '.[build]'
	@touch $(RUNTIME)

# The compiled rules engine (setup.py's COMPILED_MODULES, by Cython from the same .py files), built in place and
# rebuilt whenever one of its sources changes. A build that fails (no C compiler, say) prints one line with the
# reason and the fix, leaves no stamp, so that the next `make` tries again, and does not stop the target: the
# engine then runs as pure Python, and `pepper arena run` and `pepper --version` say so and why.
ENGINE_SOURCES := $(shell find referee/rules referee/wire referee/service -name '*.py' -o -name '*.pxd') setup.py tools/build_engine.py
COMPILED := $(VENV)/.compiled
$(COMPILED): $(RUNTIME) $(ENGINE_SOURCES)
	@rm -f $(COMPILED)
	@if $(BIN)/python tools/build_engine.py; then touch $(COMPILED); fi

.PHONY: compiled check-compiled
compiled: $(COMPILED) ## build the compiled rules engine in place (make install does; PEPPER_PURE=1 runs the .py files)

check-compiled: $(COMPILED) ## fail unless the compiled engine is the one that imports (CI runs it on a fresh clone)
	$(BIN)/python -c 'import referee.rules as r, referee.wire as w, referee.service as s; \
		assert r.COMPILED and w.COMPILED and s.COMPILED, "pure Python engine: " + str(r.why_pure()); print("engine: compiled")'

$(STAMP): $(RUNTIME) $(SDK_STAMP)
	$(BIN)/python -m pip install --quiet -e ./sdk/python -e '.[test,dev,research,ray]'
	@touch $(STAMP)

# The Node.js sample bot's packages, where node is installed (the arena skips it otherwise).
node-bot:
	@if command -v node >/dev/null && command -v npm >/dev/null && [ -f $(NODE_BOT)/package-lock.json ]; then \
		if [ ! -f $(NODE_STAMP) ] || [ $(NODE_BOT)/package-lock.json -nt $(NODE_STAMP) ]; then \
			cd $(NODE_BOT) && npm ci --no-audit --no-fund --loglevel=error; \
		fi; \
	fi

# The Go and C++ starter kits (sample_bots/go, sample_bots/cpp; docs/bots-in-any-language.md), each skipped with a
# one-line note where its toolchain is missing (.ci/run installs both). They build into build/kits/<kit>, outside
# sample_bots/, whose files are the Python sample bots' version digest (arena/registry.py).
KITS := go cpp
.PHONY: kits
kits: ## build the Go and C++ starter kits (a kit whose toolchain is missing is skipped, with a note)
	@for k in $(KITS); do \
		why=$$($(MAKE) -s --no-print-directory -C sample_bots/$$k missing); \
		if [ -n "$$why" ]; then echo "note: sample_bots/$$k not built: $$why"; \
		else $(MAKE) -s --no-print-directory -j2 -C sample_bots/$$k BUILD=$(CURDIR)/build/kits/$$k || exit 1; \
			echo "built build/kits/$$k/pepper-$$k-bot"; fi; \
	done

install: $(STAMP) $(COMPILED) node-bot ## create .venv and install the project with its test extras (and the Node bot's packages where node is installed)

test: install kits checkgenerate $(BUF) ## run the whole test suite (on the compiled engine), then a pure-Python smoke run
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --durations=15
	PEPPER_PURE=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/rules tests/service/test_games.py tests/service/test_enforcement.py \
		-k 'golden or pure_flag or slots or shuffle or short_game or enforcement'

# The pure layers, no server or bot process: the rules (one random game per configuration for the property
# tests), the wire, enforcement, the SDK's conversions, the store and its migrations, results, the checker's units.
FAST_TESTS := tests/rules tests/wire tests/service/test_enforcement.py tests/sdk/test_sdk_unit.py tests/arena \
	tests/conformance/test_conformance_unit.py

test-fast: install ## the pure layers only, in under a minute
	PEPPER_TEST_FAST=1 $(BIN)/python -m pytest -q -n 2 $(FAST_TESTS)

# The published pepper.v1 protocol (1.0) that every later proto/ must stay wire-compatible with. It is taken
# with git archive, not buf's own git input: that clones only the last 50 commits, and 1.0 is older.
PROTO_BASELINE ?= 7ca4fe1

lint: install $(BUF) ## static checks (ruff, the layers and what each package may import (.importlinter), the dependencies, buf lint, buf breaking against the published protocol)
	$(BIN)/ruff check $(PY_PACKAGES) sdk/python tests bench tools
	$(BIN)/lint-imports --no-logo --no-cache
	$(BIN)/deptry .
	cd sdk/python && ../../$(BIN)/deptry .
	cd proto && ../$(BUF) lint
	@if git cat-file -e $(PROTO_BASELINE)^{commit} 2>/dev/null; then \
		echo "buf breaking against $(PROTO_BASELINE)"; \
		base=$$(mktemp -d) && git archive $(PROTO_BASELINE) proto | tar -x -C $$base && \
		(cd proto && ../$(BUF) breaking --against $$base/proto); rc=$$?; rm -rf $$base; exit $$rc; \
	else echo "note: commit $(PROTO_BASELINE) is not in this clone (shallow?); buf breaking skipped"; fi

# The benchmarks (docs/performance.md). Each one rewrites its results table, docs/results/<bench>.md (bench/results.py,
# docs/results/README.md), one after another (in the recipe, not as prerequisites that `make -j` would overlap): the
# machine's cores are shared, and a benchmark measures alone.
bench: install ## the standard benchmarks (engine, referee, arena; ~10 minutes), each rewriting docs/results/<bench>.md
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/referee.py
	$(BIN)/python bench/arena.py

bench-engine: install ## engine benchmark (deals per second, vs OpenSpiel euchre): docs/results/engine.md
	$(BIN)/python bench/engine.py

bench-referee: install ## gRPC referee benchmark (decisions/s vs a raw batched gRPC echo): docs/results/referee.md
	$(BIN)/python bench/referee.py

bench-arena: install ## arena benchmark (games per second end to end, games in flight): docs/results/arena.md
	$(BIN)/python bench/arena.py

bench-memory: install ## referee memory per game in flight and kept (tracemalloc): docs/results/memory.md
	$(BIN)/python bench/memory.py

# The long ones. RANKING_ARGS: the games to the right order per scheduling mode, at the documented settings.
RANKING_ARGS ?= --seeds 20 --max-games 800
bench-ranking: install ## games to the right order per scheduling mode, the rating scale, the ladder (long): docs/results/ranking-*.md
	$(BIN)/python bench/ranking.py scale
	$(BIN)/python bench/ranking.py ranking $(RANKING_ARGS)
	$(BIN)/python bench/ranking.py verify
	$(BIN)/python bench/ranking.py variance
	$(BIN)/python bench/control_variate.py

bench-sandbox: install ## the arena with every bot in Docker vs local processes (needs Docker and `make images`): docs/results/sandbox.md
	$(BIN)/python bench/sandbox.py

bench-scale: install ## the arena on a Ray cluster on this machine vs one machine (long): docs/results/scale.md
	$(BIN)/python bench/scale.py

bench-bots: install ## the sample bots' strength, duplicate deals, every ruleset (long): docs/results/bots.md
	$(BIN)/python bench/bots.py

bench-spiel: install ## the OpenSpiel entrant's decision time and its deal sampler: docs/results/spiel_*.md
	$(BIN)/python bench/spiel_entrant.py
	$(BIN)/python bench/spiel_sampler.py

ARENA_ARGS ?= --ruleset iowa --games 1000 --seed 1

arena: $(RUNTIME) $(COMPILED) node-bot ## run the default tournament (iowa, 1,000 games) and print the ranked table
	$(BIN)/pepper arena run $(ARENA_ARGS)

WEB_ARGS ?= --db arena.db --address 127.0.0.1:8000

web: $(RUNTIME) ## serve the results database (default: make arena's) in a browser: the leaderboard, games, replays
	$(BIN)/pepper web $(WEB_ARGS)

$(BUF): tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	@touch $(BUF)

proto: install ## regenerate sdk/python/pepper_proto/ from proto/ (never edit it by hand)
	$(BIN)/python tools/genproto.py

checkgenerate: install ## fail if sdk/python/pepper_proto/ differs from what proto/ generates
	$(BIN)/python tools/genproto.py --check

# The sandbox's images (`pepper arena run --sandbox docker`), built locally: Debian by debootstrap, then the SDK.
images: $(SDK_STAMP) ## build the sandbox's Docker images (pepper-python, pepper-node; docs/sandbox.md)
	images/build.sh $(SDK_VENV)/bin/python

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) $(SDK_VENV) .pytest_cache .hypothesis build *.egg-info tools/node_modules
