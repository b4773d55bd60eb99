# The whole set-up on a fresh machine is `make run` or `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.txt | cut -c1-12)
# `make run ADDR=127.0.0.1:8001` serves elsewhere.
ADDR := 127.0.0.1:8000

.PHONY: run test lint format bench clean demo-password

$(STAMP): requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

## run: set up, then serve the API on $(ADDR) with a django-q2 cluster
run: $(STAMP)
	DEBUG=true $(PY) manage.py migrate --noinput
	DEBUG=true $(PY) manage.py setup_schedules
	DEBUG=true $(PY) manage.py seed_demo --address $(ADDR)
	@echo "Serving on http://$(ADDR) (API under /api/v1, dashboard /dashboard/, admin /admin/). Ctrl-C stops both."
	@# Background jobs ignore SIGINT in a script: forward Ctrl-C to both as SIGTERM.
	@trap 'kill $$(jobs -p) 2>/dev/null; wait; exit 0' INT TERM; \
	  DEBUG=true $(PY) manage.py qcluster & \
	  DEBUG=true $(PY) manage.py runserver $(ADDR) --noreload & \
	  wait -n; kill $$(jobs -p) 2>/dev/null; wait

## demo-password: give the demo merchant a new password and print it
demo-password: $(STAMP)
	DEBUG=true $(PY) manage.py seed_demo --reset-password --address $(ADDR)

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
