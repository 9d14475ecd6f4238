# labledger: two commands do all the set-up on a fresh machine.
#   make demo   create .venv, install labledger[all] (CPU torch pinned), run the quickstart: a
#               complete recorded session (train, seal, pull, verify, tear down, SQL) in ~1 min
#   make test   create .venv, install labledger[all,dev] (CPU torch pinned), lint, type-check, test
# Also: make demo-ssh (the quickstart pulling over a throwaway sshd on 127.0.0.1),
#       make demo-ledger (the low-level event API: emit, checkpoint, sql; core install only).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The CPU build of PyTorch for tests and the demo; the package itself only asks for torch>=2.6
# (an unpinned install pulls a multi-GB CUDA build).
TORCH_TEST_PIN ?= torch==2.13.0
PIP    := $(BIN)/python -m pip --disable-pip-version-check
EDITABLE := --config-settings editable_mode=strict

.PHONY: demo demo-ssh demo-ledger test lint typecheck pytest bench kinds-table docs install-core install-dev install-demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Byte-compile the package too: with PYTHONDONTWRITEBYTECODE set (common in containers) every
# `labledger emit` would otherwise recompile its modules, tripling its start-up time.
COMPILE := $(BIN)/python -c "import compileall, os, labledger.ledger as m; compileall.compile_dir(os.path.dirname(os.path.dirname(m.__file__)), quiet=1)"

$(VENV)/.core-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q -e . $(EDITABLE)
	$(COMPILE)
	touch $@

$(VENV)/.dev-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q "$(TORCH_TEST_PIN)"
	$(PIP) install -q -e ".[all,dev]" $(EDITABLE)
	$(COMPILE)
	touch $@ $(VENV)/.core-installed $(VENV)/.demo-installed

# The quickstart trains with PyTorch (CPU) and can pull over SSH (paramiko).
$(VENV)/.demo-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q "$(TORCH_TEST_PIN)"
	$(PIP) install -q -e ".[all]" $(EDITABLE)
	$(COMPILE)
	touch $@ $(VENV)/.core-installed

install-core: $(VENV)/.core-installed
install-dev: $(VENV)/.dev-installed
install-demo: $(VENV)/.demo-installed

demo: install-demo
	PATH="$(CURDIR)/$(BIN):$$PATH" bash examples/quickstart/quickstart.sh

demo-ssh: install-demo
	PATH="$(CURDIR)/$(BIN):$$PATH" bash examples/quickstart/quickstart.sh --ssh

demo-ledger: install-core
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
	$(BIN)/python benchmarks/bench_cas_put.py --quick
	$(BIN)/python benchmarks/bench_cas_tree.py --quick

# Regenerate ledger/_kinds_table.py (emit's msgspec-free validator) after changing events.py.
kinds-table: install-core
	$(BIN)/python -m labledger.ledger.events

# Regenerate docs/cli.md (the CLI reference) from every command's --help; a test fails while it
# is stale.
docs: install-core
	$(BIN)/python -m labledger.ledger.cli._reference docs/cli.md

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
