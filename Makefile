# Two commands matter: `make run` (set up and serve on SQLite) and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
UV_VERSION := 0.13.8
LOCK_HASH := $(shell sha1sum requirements.lock | cut -c1-12)
# "-bytecode": venvs installed before bytecode was compiled at install get it once.
STAMP := $(VENV)/.installed-$(LOCK_HASH)-bytecode
APP_DIRS := config common catalog quotes tco api
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run setup test test-app test-fast lint format bench fuzz system-deps-run system-deps-test system-deps-bench messages bytecode

run: setup
	$(PY) manage.py runserver $(HOST):$(PORT)

setup: system-deps-run $(STAMP) messages bytecode
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_catalog

# Lint first: CI runs only this target, so ruff and mypy are enforced here.
# The suite runs in TEST_WORKERS processes (pytest-xdist), each with its own PostgreSQL and
# Redis: about a third of a serial run is spent waiting on servers, browsers and workers,
# so two processes on two cores finish in about two thirds of the time. Work-stealing: a
# worker that runs out of tests takes half of the other's queue, so neither idles at the end.
TEST_WORKERS ?= 2
test: system-deps-test $(STAMP) messages bytecode lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=15

# The inner loop: the engine, its doctests and hand calculations; no Django, no database,
# no browser (well under 2 minutes).
test-fast: $(STAMP)
	$(PY) -m pytest -q -p no:django tests/engine tco/engine

# The middle loop, for web, quotes and API work: the whole suite but the browser tests, the
# fuzzers and the benchmarks (PostgreSQL and Redis as in `make test`, no Chromium).
APP_TEST_SKIPPED := tests/hardening/test_fuzz.py tests/api/test_fuzz.py tests/tco/test_cli_fuzz.py \
	tests/test_benches.py tests/test_calculator_bench.py
test-app: system-deps-test $(STAMP) messages bytecode
	$(PY) -m pytest -n $(TEST_WORKERS) -q -m "not browser" $(addprefix --ignore=,$(APP_TEST_SKIPPED))

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: system-deps-bench $(STAMP) messages bytecode
	$(PY) bench/run.py

# 20,000 generated requests against every public and sales URL (tests/hardening/test_fuzz.py);
# prints the count of each status and fails on any 500. Then schemathesis against the API
# with 40/30/30 examples per operation (tests/api/test_fuzz.py; `make test` sends 12/9/9).
FUZZ_REQUESTS ?= 20000
API_FUZZ_SCALE ?= 10
fuzz: system-deps-test $(STAMP) messages
	FUZZ_REQUESTS=$(FUZZ_REQUESTS) FUZZ_RANDOM=1 LOG_LEVEL=ERROR $(PY) -m pytest tests/hardening/test_fuzz.py -q -s
	API_FUZZ_SCALE=$(API_FUZZ_SCALE) LOG_LEVEL=ERROR $(PY) -m pytest tests/api/test_fuzz.py -q -s

# Each language's .mo is compiled again only when its .po changed: compilemessages starts
# Django (~3 s) and `make test` runs it every time.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))
messages: $(MO_FILES)

locale/%.mo: locale/%.po | $(STAMP)
	$(PY) manage.py compilemessages --ignore=.venv -v0 --locale $(firstword $(subst /, ,$*))

# The app's own bytecode (the libraries' is compiled at install): a fresh process, e.g. a
# worker after a deploy, then reads .pyc files instead of compiling every module again.
# Needed where PYTHONDONTWRITEBYTECODE is set (containers often set it).
bytecode: $(STAMP)
	$(PY) -m compileall -q $(APP_DIRS)

system-deps-run:
	@scripts/install-system-deps run

system-deps-test:
	@scripts/install-system-deps test

system-deps-bench:
	@scripts/install-system-deps bench

$(PY):
	"$$(scripts/find-python)" -m venv $(VENV)

# Reinstall only when the lock file changes.
$(STAMP): requirements.lock | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	# --compile-bytecode: without it every fresh process compiles the libraries from source
	# (django.setup 2.9 s instead of 0.7 s, WeasyPrint's import 1.4 s) when bytecode cannot
	# be written at run time (PYTHONDONTWRITEBYTECODE, a read-only venv).
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -r requirements.lock
	# Put the project on the venv's path so `pytest` finds the tests.real_services plugin.
	$(PY) -c 'import site, pathlib; pathlib.Path(site.getsitepackages()[0], "gputco-project.pth").write_text("$(CURDIR)\n")'
	rm -f $(VENV)/.installed-*
	touch $@

# Regenerate the lock file after editing pyproject.toml dependencies.
lock: | $(PY)
	$(PY) -m pip install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --python-version 3.12 -o requirements.lock
