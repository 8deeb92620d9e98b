# Two commands on a fresh machine: `make demo` and `make test`.
# Each creates .venv with the machine's python3 when it is missing and
# installs the project (with its dev extra) into it before running.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit integrations e2e bench eval results clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/contextward demo

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -m "not slow and not e2e" --cov --cov-report=term

# The real Claude Code CLI, offline in a loopback-only network namespace
# (skips with a printed reason where node, npm or unshare are missing).
e2e: $(STAMP)
	$(BIN)/pytest -m e2e -rsx tests/e2e

# The pi and OpenCode shims: type-checked and tested against the real bridge
# (skips with a printed reason where node or npm are missing).
integrations: $(STAMP)
	bash integrations/run-tests.sh

test: lint typecheck integrations unit

bench: $(STAMP)
	$(BIN)/python -m bench

eval: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[eval]'
	$(BIN)/python -m bench.eval

# The README's results section, from make eval's sets and make bench's latest run.
results: $(STAMP)
	$(BIN)/python -m bench.readme_results --write README.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage build src/*.egg-info
