# The whole set-up on a fresh machine is `make run` or `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.txt | cut -c1-12)
# `make run ADDR=127.0.0.1:8001` serves elsewhere. The links the service builds
# (the sandbox's card page, payment links, e-mails, the API reference's server)
# start with BASE_URL: it follows ADDR (a bare port means 127.0.0.1) unless
# BASE_URL is set, in the environment or on the command line.
ADDR := 127.0.0.1:8000
BASE_URL ?= http://$(if $(findstring :,$(ADDR)),$(ADDR),127.0.0.1:$(ADDR))
# Local commands: development settings, the links on BASE_URL.
MANAGE = DEBUG=true BASE_URL='$(BASE_URL)' $(PY) manage.py

.PHONY: run test lint format bench clean demo-password

$(STAMP): requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

## run: set up, then serve the API on $(ADDR) with a django-q2 cluster
run: $(STAMP)
	$(MANAGE) migrate --noinput
	$(MANAGE) setup_schedules
	$(MANAGE) seed_demo
	@echo "Serving on http://$(ADDR), links on $(BASE_URL) (API under /api/v1, dashboard /dashboard/, admin /admin/). Ctrl-C stops both."
	@# Background jobs ignore SIGINT in a script: forward Ctrl-C to both as SIGTERM.
	@trap 'kill $$(jobs -p) 2>/dev/null; wait; exit 0' INT TERM; \
	  $(MANAGE) qcluster & \
	  $(MANAGE) runserver $(ADDR) --noreload & \
	  wait -n; kill $$(jobs -p) 2>/dev/null; wait

## demo-password: give the demo merchant a new password and print it
demo-password: $(STAMP)
	$(MANAGE) seed_demo --reset-password

## test: set up, then run the whole suite (SQLite, or DATABASE_URL when set)
test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) db.sqlite3 test_db*.sqlite3*

## bench: measure against baselines on a fresh PostgreSQL database (not a test)
bench: $(STAMP)
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(PY) -m bench.run $(BENCH_ARGS)
