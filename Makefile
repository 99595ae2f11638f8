# A fresh machine has only python3, make and git: every target creates .venv and installs what it needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Reinstall (editable, strict mode: a link tree mypy can read) whenever a source file is added or changed,
# so the installed memesh.generated / memesh.transports mapping always matches the checkout.
SOURCES := pyproject.toml $(shell find memesh generated transports schemas -name '*.py' -o -name '*.json' -o -name '*.html' 2>/dev/null)
LINKTREE = $(firstword $(wildcard build/__editable__.memesh-*))

.PHONY: plugin marketplace install run test check lint typecheck typecheck-ts codegen check-codegen bench bench-postgres clean mcp browser postgres inspector mcp-memory-server claude-code gemini-cli copilot-cli
# Bare `make` installs (it used to stop after creating the venv, the first target in the file).
.DEFAULT_GOAL := install

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python $(SOURCES)
	@echo "installing memesh and its dev tools into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install -e '.[dev]' --config-settings editable_mode=strict > $(VENV)/install.log 2>&1 \
		|| (cat $(VENV)/install.log; exit 1)
	@# Bytecode for the link tree, as a wheel install has it: commands then start without compiling memesh.
	@$(BIN)/python -m compileall -q build/__editable__.memesh-*/memesh > /dev/null
	@touch $(STAMP)

# What running needs, without the dev tools (`make run`, `make mcp`, the plugin payload): the same editable install.
RUN_STAMP := $(VENV)/.installed-run
# A current dev install (newer than every source) already is this install: nothing to do but say so.
$(RUN_STAMP): $(BIN)/python $(SOURCES)
	@if [ -f $(STAMP) ] && [ -z "$$(find $(SOURCES) -newer $(STAMP) 2>/dev/null | head -1)" ]; then :; else \
		echo "installing memesh into $(VENV) (log: $(VENV)/install.log)"; \
		$(BIN)/python -m pip install -e . --config-settings editable_mode=strict > $(VENV)/install.log 2>&1 \
			|| (cat $(VENV)/install.log; exit 1); \
		$(BIN)/python -m compileall -q build/__editable__.memesh-*/memesh > /dev/null; \
	fi
	@touch $(RUN_STAMP)

install: $(STAMP) plugin
	@echo "memesh and memesh-mcp are in $(abspath $(BIN))/ (run $(BIN)/memesh, or put that folder on PATH)"
	@echo "MCP server for your client's config: $(abspath $(BIN))/memesh-mcp"

# The plugin payload the marketplace entry points at (plugin/, out of git): manifests, launchers and a wheel of
# this checkout, under 1 MB; rebuilt only when what it is made of changed (tools/plugin_payload.py).
plugin: $(RUN_STAMP)
	@$(BIN)/python tools/plugin_payload.py

# A marketplace outside the checkout, for `claude plugin marketplace add` (and Codex's): Claude Code runs a local
# marketplace's plugin from the folder it was added from, so one added from here survives moving or changing the
# checkout, and changes only when this runs again (then `claude plugin update memesh@memesh`).
MARKETPLACE ?= $(HOME)/.memesh/marketplace
marketplace: $(RUN_STAMP)
	@$(BIN)/python tools/plugin_payload.py --marketplace "$(MARKETPLACE)"

run: $(RUN_STAMP)
	$(BIN)/memesh serve

mcp: $(RUN_STAMP)
	$(BIN)/memesh-mcp

codegen: $(STAMP)
	$(BIN)/python tools/codegen.py

check-codegen: $(STAMP)
	$(BIN)/python tools/codegen.py --check

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	cd $(LINKTREE) && $(abspath $(BIN))/mypy --config-file $(CURDIR)/pyproject.toml -p memesh
	$(BIN)/mypy tests tools benchmarks

# The OpenClaw plugin is TypeScript, source only: its one check is tsc, with the compiler pinned in its lockfile
# and installed from the npm registry (node_modules stays out of git).
OPENCLAW := extensions/openclaw-memesh
$(OPENCLAW)/node_modules/.installed: $(OPENCLAW)/package.json $(OPENCLAW)/package-lock.json
	cd $(OPENCLAW) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

typecheck-ts: $(OPENCLAW)/node_modules/.installed
	cd $(OPENCLAW) && npx --no-install tsc --noEmit -p tsconfig.json

# The dashboard's browser tests drive Debian's Chromium through Playwright's Python package; Playwright never
# downloads a browser of its own here (no `playwright install`).
CHROMIUM := /usr/bin/chromium

$(CHROMIUM):
	apt-get update && apt-get install -y chromium

browser: $(CHROMIUM)

# The official MCP Inspector, whose CLI a test runs against memesh-mcp: pinned in its lockfile and installed once
# from the npm registry, as the plugin's tsc is (the test never downloads it).
INSPECTOR := tools/inspector
$(INSPECTOR)/node_modules/.installed: $(INSPECTOR)/package.json $(INSPECTOR)/package-lock.json
	cd $(INSPECTOR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

inspector: $(INSPECTOR)/node_modules/.installed

# The official MCP memory server, which a test runs (through the mcp client) so that it writes a real memory.jsonl
# for `memesh import`: pinned in its lockfile, installed once from the npm registry (the test never downloads it).
MCP_MEMORY := tools/mcp-memory-server
$(MCP_MEMORY)/node_modules/.installed: $(MCP_MEMORY)/package.json $(MCP_MEMORY)/package-lock.json
	cd $(MCP_MEMORY) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

mcp-memory-server: $(MCP_MEMORY)/node_modules/.installed

# Claude Code's CLI, for the end-to-end test that runs a scripted session against a stand-in Messages API on 127.0.0.1
# with MeMesh's hooks (tests/transports/hooks/test_claude_code_session.py): pinned in its lockfile, installed once from
# the npm registry (its package brings the native binary for this platform); the test never downloads it.
CLAUDE_CODE := tools/claude-code
$(CLAUDE_CODE)/node_modules/.installed: $(CLAUDE_CODE)/package.json $(CLAUDE_CODE)/package-lock.json
	cd $(CLAUDE_CODE) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

claude-code: $(CLAUDE_CODE)/node_modules/.installed

# Gemini CLI, for the test that adds MeMesh's MCP server with `gemini mcp add`, checks `gemini mcp list` and runs a
# scripted session against a stand-in Gemini API on 127.0.0.1 with MeMesh's SessionStart hook
# (tests/transports/test_gemini_cli.py): pinned in its lockfile, installed once from the npm registry (about 100 MB);
# the test never downloads it. Codex's CLI (424 MB) is checked by hand instead (README, Codex).
GEMINI_CLI := tools/gemini-cli
$(GEMINI_CLI)/node_modules/.installed: $(GEMINI_CLI)/package.json $(GEMINI_CLI)/package-lock.json
	cd $(GEMINI_CLI) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

gemini-cli: $(GEMINI_CLI)/node_modules/.installed

# GitHub Copilot CLI, for the test that runs it with MeMesh's hooks in the repository's .github/hooks/memesh.json
# against a scripted model stand-in on 127.0.0.1 (tests/transports/test_copilot_cli.py): pinned in its lockfile,
# installed once from the npm registry (about 190 MB: its package brings the native binary for this platform); the
# test never downloads it; it unpacks itself once into tools/copilot-cli/.cache.
COPILOT_CLI := tools/copilot-cli
$(COPILOT_CLI)/node_modules/.installed: $(COPILOT_CLI)/package.json $(COPILOT_CLI)/package-lock.json
	cd $(COPILOT_CLI) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

copilot-cli: $(COPILOT_CLI)/node_modules/.installed

# --durations=10: the ten slowest tests, so a test that got slow shows in every run.
# The suite runs its store-touching tests on PostgreSQL too: each pytest process starts a throwaway cluster of
# Debian's server (tools/pg_cluster.py: initdb as the postgres system user, a unix socket in a temporary folder, no
# TCP) and gives each test a database of its own. Only the server programs are needed; no service is started.
# The pooler tests put Debian's PgBouncer in front of it (tools/pgbouncer.py; its own process, no service either).
PG_INITDB = $(firstword $(wildcard /usr/lib/postgresql/*/bin/initdb))
PGBOUNCER = $(firstword $(wildcard /usr/sbin/pgbouncer /usr/bin/pgbouncer))

postgres:
	@test -n "$(PG_INITDB)" -a -n "$(PGBOUNCER)" || (apt-get update && \
		apt-get install -y --no-install-recommends postgresql pgbouncer)

test: check-codegen lint typecheck typecheck-ts $(CHROMIUM) $(INSPECTOR)/node_modules/.installed $(MCP_MEMORY)/node_modules/.installed $(CLAUDE_CODE)/node_modules/.installed $(GEMINI_CLI)/node_modules/.installed $(COPILOT_CLI)/node_modules/.installed postgres
	MEMESH_TEST_REQUIRE_POSTGRES=1 $(BIN)/pytest -n 2 --durations=10

# For contributors: what `make test` checks of the Python code, needing only python3, make and git (the package index
# once, for .venv): codegen, ruff, mypy, and the suite without the browser and Node tests. PostgreSQL's half of the
# store tests runs when its server programs are installed and is skipped otherwise. `make test` stays the whole thing.
check: check-codegen lint typecheck
	$(BIN)/pytest -n 2 -m "not node and not browser" --durations=10

# The quick benchmarks; locomo.py and scale.py --n 100000 are run by hand (benchmarks/README.md). A script's own
# folder, not the working directory, leads sys.path, so the bare memesh/ folder cannot shadow the install here.
bench: $(STAMP)
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/scale.py --n 10000
	$(BIN)/python benchmarks/longmemeval.py

# SQLite and PostgreSQL side by side (a throwaway cluster): remember and recall at 10k and 100k memories, LoCoMo.
bench-postgres: $(STAMP) postgres
	$(BIN)/python benchmarks/pg_vs_sqlite.py --n 10000 100000 --copy --locomo

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache $(OPENCLAW)/node_modules $(INSPECTOR)/node_modules $(CLAUDE_CODE)/node_modules $(GEMINI_CLI)/node_modules
