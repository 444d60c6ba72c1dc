# Chatkeep: `make serve` and `make test` set up everything they need on a fresh machine.
# Every step is a file target, so a second run does only what changed.

SHELL := /bin/bash
# A CHATKEEP_* setting in the environment beats the defaults below (flags beat the environment).
HOST ?= $(or $(CHATKEEP_HOST),127.0.0.1)
PORT ?= $(or $(CHATKEEP_PORT),8000)

# Pyodide 0.29.5 runs Python 3.13: the wheel must be py-compiled by the same version.
PYTHON313 := $(shell for c in python3.13 "$$(pyenv prefix 3.13 2>/dev/null)/bin/python3" \
	"$$(pyenv prefix 3.13.0 2>/dev/null)/bin/python3" /usr/bin/python3.13 /usr/local/bin/python3.13; do \
	"$$c" -c 'import sys; assert sys.version_info[:2] == (3, 13)' >/dev/null 2>&1 && { echo "$$c"; break; }; done)

VENV := .venv
PY := $(VENV)/bin/python
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
# Built files go into the served folder (git-ignored), so the same tree serves from a checkout
# and from the installed package.
RUNTIME := static/runtime
PYODIDE_FILES := pyodide.mjs pyodide.asm.js pyodide.asm.wasm pyodide-lock.json
WIDGET_SOURCES := $(wildcard widget/*.py widget/sync/*.py) pyproject.toml tools/widget_wheel.py
# The widget wheel (py-compiled): browsers never fetch it, its modules go into PYTHON_ZIP.
WHEEL := build/widget.whl
# The Python the worker boots: the standard library's modules the widget uses, and the widget.
PYTHON_ZIP := $(RUNTIME)/pyodide/widget_python.zip
MINIFIED := $(RUNTIME)/min/.stamp
# pypdf, for attached PDFs: fetched by the worker only when a person attaches one
PYPDF_VERSION := $(shell sed -n 's/.*"pypdf==\([0-9.]*\)".*/\1/p' pyproject.toml)
PYPDF := $(RUNTIME)/pdf/pypdf.whl
TEST_WHEELS := build/test-wheels/.stamp
BROWSER_STAMP := build/.browser
REDIS_STAMP := build/.redis
POSTGRES_STAMP := build/.postgres
ENGINES_STAMP := build/.engines

.PHONY: setup serve test lint typecheck test-unit test-pyodide test-e2e bench dist clean
.DELETE_ON_ERROR:

setup: $(VENV)/.stamp static/node_modules/.package-lock.json $(WHEEL) $(RUNTIME)/.stamp $(PYPDF) $(PYTHON_ZIP) $(MINIFIED)

# Synced history on by default here: an SQLite file in the git-ignored data folder.
SYNC_STORE ?= $(or $(CHATKEEP_SYNC_STORE),sqlite:///$(CURDIR)/data/sync.db)
serve: setup
	$(PY) -m server --host $(HOST) --port $(PORT) --sync-store $(SYNC_STORE)

test: setup $(TEST_WHEELS) $(BROWSER_STAMP) $(REDIS_STAMP) $(POSTGRES_STAMP) $(ENGINES_STAMP) lint typecheck test-js test-pyodide test-unit-and-e2e

lint: $(VENV)/.stamp
	$(VENV)/bin/ruff check widget server tests e2e bench tools
	$(VENV)/bin/ruff format --check widget server tests e2e bench tools

# Python with mypy; the JavaScript and static/chat-widget.d.ts with tsc (checkJs).
typecheck: $(VENV)/.stamp static/node_modules/.package-lock.json
	$(VENV)/bin/mypy
	static/node_modules/.bin/tsc -p static/tsconfig.json
	static/node_modules/.bin/tsc -p static/tsconfig.worker.json

# The JavaScript that has no DOM (the storage codec) under Node's own test runner.
.PHONY: test-js
test-js: static/node_modules/.package-lock.json
	node --test tests/js/

test-pyodide: setup $(TEST_WHEELS)
	node tests/pyodide/run.mjs

.PHONY: test-unit-and-e2e
test-unit-and-e2e: setup $(BROWSER_STAMP) dist
	$(PY) -m pytest tests e2e

bench: setup $(BROWSER_STAMP) $(REDIS_STAMP) $(POSTGRES_STAMP) $(ENGINES_STAMP)
	$(PY) -m bench

$(VENV)/.stamp: pyproject.toml
	@test -n "$(PYTHON313)" || { echo "Python 3.13 was not found (tried python3.13 and pyenv 3.13): install it, e.g. 'pyenv install 3.13'." >&2; exit 1; }
	test -x $(PY) || $(PYTHON313) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

static/node_modules/.package-lock.json: static/package.json static/package-lock.json
	npm ci --prefix static --no-audit --no-fund

# The widget wheel: built as pure Python, then py-compiled for Pyodide's Python 3.13.
$(WHEEL): $(WIDGET_SOURCES) $(VENV)/.stamp
	rm -rf build/dist $(RUNTIME)/widget.whl && mkdir -p build/dist
	$(PY) tools/widget_wheel.py build/dist $(VERSION) >/dev/null
	cd build/dist && ../../$(VENV)/bin/pyodide py-compile --silent *.whl
	cp build/dist/*-cp313-*.whl $@

# pypdf's wheel from PyPI, py-compiled like the widget's.
$(PYPDF): pyproject.toml $(VENV)/.stamp
	rm -rf build/pypdf && mkdir -p build/pypdf $(RUNTIME)/pdf
	$(PY) -m pip download --quiet --no-deps --only-binary=:all: -d build/pypdf "pypdf==$(PYPDF_VERSION)"
	cd build/pypdf && ../../$(VENV)/bin/pyodide py-compile --silent *.whl
	cp build/pypdf/*-cp313-*.whl $@

# Pyodide's runtime, its standard library py-compiled (boots ~3x faster), and the vendored
# browser packages, each with a .gz beside it for the server to send precompressed.
$(RUNTIME)/.stamp: static/node_modules/.package-lock.json $(VENV)/.stamp
	rm -rf $(RUNTIME)/pyodide $(RUNTIME)/vendor && mkdir -p $(RUNTIME)/pyodide $(RUNTIME)/vendor
	cp $(addprefix static/node_modules/pyodide/,$(PYODIDE_FILES)) $(RUNTIME)/pyodide/
	cp static/node_modules/pyodide/python_stdlib.zip $(RUNTIME)/pyodide/
	cd $(RUNTIME)/pyodide && $(CURDIR)/$(VENV)/bin/pyodide py-compile --silent python_stdlib.zip
	cp static/node_modules/markdown-it/dist/browser/markdown-it.esm.min.mjs $(RUNTIME)/vendor/markdown-it.mjs
	cp static/node_modules/dompurify/dist/purify.es.mjs $(RUNTIME)/vendor/dompurify.mjs
	cp static/node_modules/@highlightjs/cdn-assets/es/highlight.min.js $(RUNTIME)/vendor/highlight.mjs
	cp static/node_modules/katex/dist/katex.mjs $(RUNTIME)/vendor/katex.mjs
	for f in $(RUNTIME)/pyodide/*.{mjs,js,json,wasm} $(RUNTIME)/vendor/*.mjs; do gzip -kf9 "$$f"; done
	touch $@

# One wheel for pip: the server, the widget's Python code and every built asset.
dist: setup
	rm -rf dist build/lib build/bdist.*
	$(PY) -m build --wheel --no-isolation --outdir dist . >/dev/null
	@ls dist/chatkeep-$(VERSION)-py3-none-any.whl

# The element's scripts minified one by one, as browsers get them under the build's digest.
$(MINIFIED): $(wildcard static/*.js static/i18n/*.js) tools/minify.mjs static/node_modules/.package-lock.json
	rm -rf $(RUNTIME)/min
	node tools/minify.mjs static $(RUNTIME)/min
	touch $@

# The Python the worker boots: the standard library's modules the widget imports (a third of
# the whole) and the widget's own, in one zip of stored files, sent gzip-compressed; beside
# pypdf, the modules reading a PDF needs on top of those. The browser makes its own memory snapshot after a first visit is ready
# (static/snapshot-maker.js).
$(PYTHON_ZIP): $(WHEEL) $(PYPDF) $(RUNTIME)/.stamp tools/stdlib_subset.mjs tools/sample_pdf.py
	rm -f $(RUNTIME)/pyodide/widget_stdlib.zip
	node tools/stdlib_subset.mjs $(RUNTIME) $(WHEEL)
	gzip -kf9 $@

$(TEST_WHEELS): tests/pyodide/requirements.txt $(VENV)/.stamp
	rm -rf build/test-wheels && mkdir -p build/test-wheels
	$(PY) -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.13 \
		--platform any --implementation py --abi none -d build/test-wheels -r $<
	touch $@

# Chromium for the browser tests: Debian's package where apt exists, else Playwright's own.
$(BROWSER_STAMP): $(VENV)/.stamp
	mkdir -p build
	if [ -x /usr/bin/chromium ]; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else $(PY) -m playwright install chromium; fi
	touch $@

# Redis for the shared-limit tests (they start their own on a free port): Debian's package.
$(REDIS_STAMP):
	mkdir -p build
	if command -v redis-server >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	else echo "redis-server is not installed: the shared-limit tests will be skipped" >&2; fi
	touch $@

# PostgreSQL for synced history's shared store (tests start their own in a temporary folder).
$(POSTGRES_STAMP):
	mkdir -p build
	if command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "PostgreSQL is not installed: the PostgreSQL sync tests will be skipped" >&2; fi
	touch $@

# Firefox and WebKit for the cross-engine journey (e2e/test_every_engine.py): Debian's
# firefox-esr (driven by puppeteer-core over WebDriver BiDi), WebKitGTK's WebDriver with its
# MiniBrowser, and Xvfb for MiniBrowser's display.
$(ENGINES_STAMP):
	mkdir -p build
	if [ -x /usr/bin/firefox-esr ] && [ -x /usr/bin/WebKitWebDriver ] && command -v Xvfb >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb >/dev/null; \
	else echo "Firefox ESR or WebKitGTK's WebDriver is missing: those engines' journeys will be skipped" >&2; fi
	touch $@

clean:
	rm -rf build dist $(VENV) static/node_modules $(RUNTIME)
