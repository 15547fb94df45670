# make play: set up what playing needs and play; make hints: add the solver (hints, reviews);
# make fast: add the compiled kernel and compile it; make add-X: add the extra X of pyproject.toml
# (make add-plot, make add-spiel, ...); make test: set up everything and run every test;
# make test-fast: the same tests without the slow ones (a few minutes).
# Each target installs into the same .venv what it needs, once (a stamp file per set-up), so
# `make play` then `make test` adds the rest. Options for the game: make play ARGS="--preset cuckoo".
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
ARGS ?=
# The venv is made without a pip of its own (a moment instead of seconds); the pip of $(PYTHON)
# installs into it (pip >= 22.3 has --python), or else the venv gets its own pip first.
# `make test` gives the venv its own pip in any case.
INSTALL = $(PYTHON) -m pip --python $(PY) install -q --disable-pip-version-check
OWN_PIP = { $(PY) -m pip --version >/dev/null 2>&1 || $(PY) -m ensurepip >/dev/null; }
# every extra in pyproject.toml (dev, all, and any added later), for `make test`
EXTRAS = $$($(PY) -c 'import tomllib; print(",".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]))')

.PHONY: play hints test test-fast lint bench bench-solver serve setup clean fast

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "chase-the-ace needs Python 3.11 or newer; $(PYTHON) is older: try make play PYTHON=python3.12"; exit 1; }
	$(PYTHON) -m venv --without-pip $(VENV)

# playing needs Rich and platformdirs only (the [cli] extra)
$(VENV)/.play: pyproject.toml | $(PY)
	$(INSTALL) -e '.[cli]' || { $(OWN_PIP) && $(PY) -m pip install -q -e '.[cli]'; }
	touch $@

# hints and reviews of Chase the Ace need the solver (the [solve] extra: numpy, scipy)
$(VENV)/.hints: pyproject.toml | $(PY)
	$(INSTALL) -e '.[cli,solve]' || { $(OWN_PIP) && $(PY) -m pip install -q -e '.[cli,solve]'; }
	touch $@ $(VENV)/.play

$(VENV)/.serve: pyproject.toml | $(PY)
	$(INSTALL) -e '.[cli,web]' || { $(OWN_PIP) && $(PY) -m pip install -q -e '.[cli,web]'; }
	touch $@

# any other extra, by its name in pyproject.toml: make add-plot, make add-rl, ...
$(VENV)/.add-%: pyproject.toml | $(PY)
	@$(PY) -c 'import sys, tomllib; extras = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]; \
	  sys.exit(0 if "$*" in extras else "no extra $* in pyproject.toml: one of " + ", ".join(extras))'
	$(INSTALL) -e '.[cli,$*]' || { $(OWN_PIP) && $(PY) -m pip install -q -e '.[cli,$*]'; }
	touch $@

.PRECIOUS: $(VENV)/.add-%
add-%: $(VENV)/.add-%
	@echo "The $* extra is installed in $(VENV)."

$(VENV)/.everything: pyproject.toml | $(PY)
	$(OWN_PIP)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

setup: $(VENV)/.everything

play: $(VENV)/.play
	$(VENV)/bin/chase-the-ace play $(ARGS)

hints: $(VENV)/.hints
	@echo "Hints are installed: make play, then h at any decision (or play --hints); review works too."

serve: $(VENV)/.serve
	$(PY) -m chasetheace.web $(ARGS)

test: $(VENV)/.everything
	$(PY) -m pytest $(ARGS)

# the tests a contributor runs while working: everything but the tests marked slow (CI runs make test)
test-fast: $(VENV)/.everything
	HYPOTHESIS_PROFILE=dev $(PY) -m pytest -m "not slow" $(ARGS)

lint: $(VENV)/.everything
	$(PY) -m ruff check src tests benchmarks examples
	$(PY) -m mypy src tests

# add the fast engine (numba) and compile it ahead of a first `simulate` (numba keeps it on disk; the
# time a compile takes is said when it starts: the last compile's CPU time measured on this machine,
# kept beside numba's cache, or the release's figure before the first: chasetheace.fast.sim.compile_estimate);
# and, when the rl extra is installed (gymnasium: make add-rl), the step of ChaseTheAceVector-v0 for the
# default rules too (minutes more; else it compiles at its first step, with the same notice)
fast: $(VENV)/.add-fast
	$(PY) -c 'from chasetheace.fast.sim import warm_up; print(f"the fast engine is ready: {warm_up(notice=print)}")'
	@if $(PY) -c 'import gymnasium' 2>/dev/null; then \
	  $(PY) -c 'from chasetheace.adapters.vector import warm_up; print(f"the vector env is ready: {warm_up(notice=print)}")'; \
	else echo "(ChaseTheAceVector-v0 needs the rl extra, not installed: after make add-rl, make fast compiles its step too)"; fi

bench: $(VENV)/.everything
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/bots.py --games 300
	$(PY) benchmarks/simulate.py
	$(PY) benchmarks/adapters.py
	$(PY) benchmarks/acechasing.py
	$(PY) benchmarks/fast.py
	$(PY) benchmarks/kernel_vs_loop.py

bench-solver: $(VENV)/.everything
	$(PY) benchmarks/solver.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
