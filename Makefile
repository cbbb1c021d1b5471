# Two entry points that work on a fresh machine (Python 3.11, pip, git, make):
#   make demo  — set up (the core install only: no extra), generate realistic data, index it, run the scenarios
#   make test  — set up (every extra: .[all]), lint, run the whole test suite, gate on the golden-set floor
#   make quality — the data-quality suite (great-expectations) on a generated, indexed home
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Let Python cache the project's bytecode (and pytest its rewritten tests) even where the environment says not
# to: the suite starts a few hundred `akw`, build-child and MCP processes, and each would otherwise compile
# the modules it imports again (__pycache__/ is git-ignored).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup setup-core demo test test-team lint eval bench quality report clean

# Two installs into the one .venv, each with its own stamp (issue 28):
#   core (`pip install -e .`): the runtime `akw` and `make demo` need — no extra;
#   all  (`pip install -e '.[all]'`): every extra (apps, quality, mcp, semantic, team, dev) for the tests and tools.
# The all stamp also stands for core, so `make demo` after `make test` installs nothing.
$(VENV)/.installed-core: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-all: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[all]'
	touch $@ $(VENV)/.installed-core

setup-core: $(VENV)/.installed-core

setup: $(VENV)/.installed-all

demo: setup-core
	$(BIN)/akw demo --out demo

lint: setup
	$(BIN)/ruff check .

test: lint
	$(BIN)/akw eval --golden golden/queries.yaml --min-recall3 0.8 --min-mrr 0.6 --max-zero 0.1 --out $${TMPDIR:-/tmp}/akw-eval-floor   # the spec's floor on a small generated home (the real-transcripts slice: make eval); its report stays out of reports/, where it would overwrite the full eval's of the same index_rev
	$(BIN)/pytest -n 3 --dist loadfile --durations=15   # three workers on 2 cores (docs/adr/0004); a module stays on one

test-team: setup  # the team lake against a throwaway PostgreSQL cluster (docs/team.md)
	$(BIN)/pytest -m team tests/team

eval: setup
	$(BIN)/akw eval

bench: setup
	$(BIN)/akw bench --scale 100k

QUALITY_HOME := .akw/quality
quality: setup
	test -f $(QUALITY_HOME)/src/manifest.json || $(BIN)/akw fixtures generate --out $(QUALITY_HOME)/src --sessions 24 --seed 7
	$(BIN)/akw --dsh-home $(QUALITY_HOME)/src/dsh --autoclaw-root $(QUALITY_HOME)/src/autoclaw --home $(QUALITY_HOME)/home reindex
	$(BIN)/akw --dsh-home $(QUALITY_HOME)/src/dsh --autoclaw-root $(QUALITY_HOME)/src/autoclaw --home $(QUALITY_HOME)/home quality --out reports

clean:
	rm -rf demo .pytest_cache
