# labledger: two commands do all the set-up on a fresh machine.
#   make demo   create .venv, install labledger, run the main job (a real recorded session)
#   make test   create .venv, install labledger[all,dev] (CPU torch pinned), lint, type-check, test
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The CPU build of PyTorch for tests; the package itself only asks for torch>=2.6.
TORCH_TEST_PIN ?= torch==2.13.0
PIP    := $(BIN)/python -m pip --disable-pip-version-check
EDITABLE := --config-settings editable_mode=strict

.PHONY: demo test lint typecheck pytest bench install-core install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.core-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q -e . $(EDITABLE)
	touch $@

$(VENV)/.dev-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q "$(TORCH_TEST_PIN)"
	$(PIP) install -q -e ".[all,dev]" $(EDITABLE)
	touch $@ $(VENV)/.core-installed

install-core: $(VENV)/.core-installed
install-dev: $(VENV)/.dev-installed

demo: install-core
	PATH="$(CURDIR)/$(BIN):$$PATH" bash examples/ledger_session.sh

lint: install-dev
	$(BIN)/ruff check .

typecheck: install-dev
	$(BIN)/mypy -p labledger.ledger -p labledger.cas -p labledger.ingest -p labledger.reconcile -p labledger.profiles

pytest: install-dev
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: install-dev
	$(BIN)/python benchmarks/bench_append.py --quick
	$(BIN)/python benchmarks/bench_ingest.py --quick
	$(BIN)/python benchmarks/bench_query.py --quick
	$(BIN)/python benchmarks/bench_cli_start.py --quick

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
