# SquareScores. `make run` serves the app on SQLite; `make test` runs the suite.
# DATABASE_URL from the environment switches the database (see README.md).

VENV := .venv
PY := $(VENV)/bin/python

.PHONY: install install-runtime lock run serve test lint migrations-check clean

# Everything: what runs (requirements.txt, every file's hash checked) and what develops
# and tests it (requirements-dev.txt). Re-run only when either changes.
install: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install --require-hashes -r requirements.txt
	$(PY) -m pip install --require-hashes -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

# What runs, and nothing else: what `make serve` installs.
install-runtime: $(VENV)/.runtime

$(VENV)/.runtime: requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install --require-hashes -r requirements.txt
	touch $@

# Change requirements.in or requirements-dev.in, then run this: every package pinned with
# the hashes of its files on PyPI. pip's own configuration is left out (this machine's
# local indexes and wheel folders), so the hashes are PyPI's, which any machine checks.
PIP_COMPILE := env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(VENV)/bin/pip-compile \
	--quiet --allow-unsafe --strip-extras --generate-hashes --no-emit-index-url \
	--no-emit-find-links --index-url https://pypi.org/simple

lock: install
	$(PIP_COMPILE) --output-file requirements.txt requirements.in
	$(PIP_COMPILE) --output-file requirements-dev.txt requirements-dev.in

# uvicorn, the ASGI server `make serve` runs under gunicorn, in one process that reloads on
# a change to the Python code (a template or translation change needs a restart). Live
# pages are coroutines there, not a thread each: Django's runserver, a thread a stream,
# left up to 40 % of 200 phones that opened their standings at once unanswered for a
# minute (docs/performance.md, "`make run` with a crowd watching").
# No proxy headers: a client's address is the socket's, as under runserver, or a local
# client could pick its own address by sending X-Forwarded-For and slip the sign-in
# lockout and the per-address rates.
# `make run PORT=8080` moves it; not read from the environment, where PaaS set PORT.
PORT = 8000

run: install
	$(PY) manage.py migrate
	$(PY) manage.py demo_data --if-empty --url http://127.0.0.1:$(PORT)/
	$(VENV)/bin/uvicorn tracker.asgi:application --host 127.0.0.1 --port $(PORT) \
		--lifespan off --no-access-log --no-proxy-headers --timeout-graceful-shutdown 3 \
		--reload --reload-dir tracker --reload-dir scoring

# Production-style: gunicorn (gunicorn.conf.py) with settings from the environment, e.g.
# DEBUG=false SECRET_KEY=... ALLOWED_HOSTS=... DATABASE_URL=postgres://... DB_POOL=true
serve: install-runtime
	$(PY) manage.py collectstatic --noinput
	$(PY) manage.py migrate --noinput
	$(VENV)/bin/gunicorn --config gunicorn.conf.py

test: install
	$(PY) -m pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

migrations-check: install
	$(PY) manage.py makemigrations --check --dry-run

# Build output and caches only: the venv and db.sqlite3 (your data) stay.
clean:
	rm -rf staticfiles .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
