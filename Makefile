# `make demo` and `make test` work on a fresh machine with only python3.
# One venv, two installs: `make demo` installs oar with what the demo uses (the `demo` extra: ONNX and ONNX Runtime,
# uvicorn/starlette for the served request; its plot is an SVG written without a plotting package); `make test`
# installs the test stack (the `test` extra).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test lint size bench wheel-check clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# Before issue 27 this checkout installed itself as the distribution 'oar', an unrelated project's name on the
# package index; an older .venv drops that install first (it provides the same `oar` package and console script).
UNINSTALL_OLD := $(BIN)/pip uninstall -q -y oar 2>/dev/null || true

# --no-compile: no bytecode for every installed module up front (a third of the install time); Python compiles
# the modules the demo imports on its first run
$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(UNINSTALL_OLD)
	$(BIN)/pip install -q --no-compile -e ".[demo]"
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(UNINSTALL_OLD)
	$(BIN)/pip install -q -e ".[test]"
	touch $@

demo: $(DEMO_STAMP)
	$(BIN)/python examples/demo.py

test: $(TEST_STAMP)
	$(BIN)/python -m pytest
	$(BIN)/python tests/run_acceptance.py

lint: $(TEST_STAMP)
	$(BIN)/ruff check oar tests bench tools

size: $(TEST_STAMP)
	$(BIN)/python tools/size_report.py

bench: $(TEST_STAMP)
	for f in bench/*.py; do $(BIN)/python $$f || exit 1; done

# build the wheel, install it into a new venv, import it, run a converted model and `oar --version` (.ci/run)
wheel-check: $(TEST_STAMP)
	bash tools/wheel_check.sh $(BIN)/python

clean:
	rm -rf $(VENV) build dist *.egg-info
