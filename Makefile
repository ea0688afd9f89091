# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint pytest lit clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,tune,cross]'
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
