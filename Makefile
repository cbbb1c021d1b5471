# Two entry points that work on a fresh machine (Python 3.11, pip, git, make):
#   make demo  — set up, generate realistic data, index it, run the scenarios
#   make test  — set up, lint, run the whole test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[all]'
	touch $@

setup: $(VENV)/.installed

demo: setup
	$(BIN)/akw demo --out demo

lint: setup
	$(BIN)/ruff check .

test: lint
	$(BIN)/pytest

clean:
	rm -rf demo .pytest_cache
