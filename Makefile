# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The torch tests' torch (tests/test_torch_*.py), installed only where the venv
# has none, so a venv's own torch is left alone. An exact release: pip's
# configuration on these machines finds its CPU build on disk, where a bare
# `torch` or a range would pull a multi-GB CUDA build.
TORCH  ?= torch==2.13.0

.PHONY: demo test lint pytest lit clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,tune,cross]'
	$(BIN)/python -c 'import torch' 2>/dev/null || $(BIN)/pip install --quiet '$(TORCH)'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/lamina demo

test: $(STAMP) lint pytest lit

lint: $(STAMP)
	$(BIN)/ruff check .

pytest: $(STAMP)
	$(BIN)/pytest -n 2 tests

lit: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -v filecheck

clean:
	rm -rf $(VENV) build *.egg-info
