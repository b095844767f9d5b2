# The two commands a new user types: `make run` (set up, open the playground) and `make test`
# (set up, run every test). Everything else here is what those two need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
PORT   ?= 5006
SITE_PORT ?= 8765
PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider

.PHONY: setup ui site wheel run serve-site test test-unit test-e2e chromium bench clean

setup: $(STAMP) $(NODE_STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[app,test,e2e,notebook]"
	touch $(STAMP)

# The UI's npm packages (esbuild, the graph layout, the code editor, Pyodide), from the lock file.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# One bundle per host: static/dist/panel.js (Panel app) and static/dist/site.js (in-browser).
ui: setup
	node static/build.mjs

# The static in-browser site (Pyodide, no server): site/
site: ui
	$(BIN)/python scripts/build_site.py --out site

# The wheel and source distribution (dist/), carrying the built UI and site: see README.
wheel: site
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# The playground in the Panel app; the built site is served beside it for "open in the browser".
run: site
	$(BIN)/python -m panel serve playground/app.py --show --address 127.0.0.1 --port $(PORT) \
	  --allow-websocket-origin 127.0.0.1:$(PORT) --allow-websocket-origin localhost:$(PORT) \
	  --static-dirs site=./site

# The same playground with no server behind it: the static site on localhost.
serve-site: site
	$(BIN)/python scripts/serve_site.py --port $(SITE_PORT)

chromium:
	bash scripts/ensure_chromium.sh

# Unit tests run twice: on the numpy backend and on the pure-Python one the browser uses; then
# the UI's own tests and its lint (ESLint, Prettier), then the end-to-end tests in Chromium against both hosts.
test: site chromium
	$(BIN)/ruff check engine playground tests scripts bench e2e setup.py
	$(PYTEST) tests
	GRADPLAY_BACKEND=pure $(PYTEST) tests
	node --test static/test/
	node_modules/.bin/eslint static eslint.config.js
	node_modules/.bin/prettier --check static eslint.config.js
	$(PYTEST) e2e

test-unit: setup
	$(PYTEST) tests

test-e2e: site chromium
	$(PYTEST) e2e

bench: setup
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_programs.py

clean:
	rm -rf $(VENV) node_modules static/dist site dist build artifacts .pytest_cache .hypothesis
