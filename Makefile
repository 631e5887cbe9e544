# SquareScores. `make run` serves the app on SQLite; `make test` runs the suite.
# DATABASE_URL from the environment switches the database (see README.md).

VENV := .venv
PY := $(VENV)/bin/python

.PHONY: install lock run serve test lint migrations-check clean

install: $(VENV)/.installed

# Re-run only when requirements.txt changes.
$(VENV)/.installed: requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	touch $@

# requirements.txt pins every package; change requirements.in, then run this.
lock: install
	$(VENV)/bin/pip-compile --quiet --allow-unsafe --strip-extras --no-emit-index-url \
		--no-emit-find-links --output-file requirements.txt requirements.in

run: install
	$(PY) manage.py migrate
	$(PY) manage.py demo_data --if-empty
	$(PY) manage.py runserver 127.0.0.1:8000

# Production-style: gunicorn (gunicorn.conf.py) with settings from the environment, e.g.
# DEBUG=false SECRET_KEY=... ALLOWED_HOSTS=... DATABASE_URL=postgres://... DB_POOL=true
serve: install
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
