# The two commands a new user types: `make run` (set up, open the playground) and `make test`
# (set up, run every test). Everything else here is what those two need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-unit bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: setup
	$(BIN)/python scripts/seed_demo.py

# Unit tests run twice: on the numpy backend and on the pure-Python one the browser uses.
test: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider
	GRADPLAY_BACKEND=pure $(BIN)/python -m pytest -q -p no:cacheprovider

bench: setup
	$(BIN)/python bench/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
