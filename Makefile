# knowforge: two commands do everything on a fresh machine (Python 3.11, JDK 17, Maven).
#   make demo   set up, start the managed Neo4j, load the bundled samples, print stats
#   make test   set up (including torch for the transformers tests) and run the whole suite

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
KF := $(BIN)/knowforge

.PHONY: demo test install install-dev neo4j clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel

$(VENV)/.core-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

$(VENV)/.all-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[dev,hf,retrieval,spark,lexical,lmeval]"
	touch $@ $(VENV)/.core-installed

install: $(VENV)/.core-installed

install-dev: $(VENV)/.all-installed

neo4j: install
	$(KF) neo4j install

demo: install-dev neo4j
	$(BIN)/python scripts/demo.py

test: install-dev neo4j
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean-venv:
	rm -rf $(VENV)
