# make play: set up and play; make test: set up and run every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: play test lint bench bench-solver serve setup clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,all]'
	touch $@

setup: $(STAMP)

play: $(STAMP)
	$(VENV)/bin/chase-the-ace play

serve: $(STAMP)
	$(PY) -m chasetheace.web

test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks examples
	$(PY) -m mypy src

bench: $(STAMP)
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/bots.py --games 300
	$(PY) benchmarks/simulate.py
	$(PY) benchmarks/adapters.py
	$(PY) benchmarks/acechasing.py
	$(PY) benchmarks/fast.py

bench-solver: $(STAMP)
	$(PY) benchmarks/solver.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
