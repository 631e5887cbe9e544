"""`DATABASES` from the environment: one variable (`DATABASE_URL`) switches the database.
PostgreSQL serves production and CI; a SQLite file is the default, so `make run` needs
nothing (docs/deploy.md)."""

from __future__ import annotations

from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from tracker.environment import env_bool, env_int


def from_environment(url: str, *, pool: bool) -> dict[str, Any]:
    """The default database's settings for `url`, with the psycopg pool if `pool`."""
    database: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=0))
    database["ATOMIC_REQUESTS"] = False  # writes are atomic in services, not per request
    options = database.setdefault("OPTIONS", {})
    if database["ENGINE"] == "django.db.backends.postgresql":
        _postgresql(database, options, pool=pool)
    elif pool:
        raise ImproperlyConfigured("DB_POOL=true needs a PostgreSQL DATABASE_URL.")
    elif database["ENGINE"] == "django.db.backends.sqlite3":
        # One process serves the pages, the API and the live streams from many threads.
        # In WAL mode a reader never blocks the writer. Every transaction takes the write
        # lock as it begins (IMMEDIATE), so a write that reads first (a share link: the
        # session read, then the link written) waits for another write to end (the busy
        # timeout) instead of failing at once with "database is locked": SQLite cannot
        # turn a read into a write while another connection writes. NORMAL is WAL's
        # durable-enough setting: a crash loses no committed write, a power cut may lose
        # the last few.
        options.setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        options.setdefault("transaction_mode", "IMMEDIATE")
        options.setdefault("timeout", 20)
    return database


def _postgresql(database: dict[str, Any], options: dict[str, Any], *, pool: bool) -> None:
    # Django's psycopg pool requires CONN_MAX_AGE=0; without the pool, 0 means a fresh
    # connection per request, which is the safe default behind gunicorn.
    database["CONN_MAX_AGE"] = 0
    # Give up on an unreachable server within seconds (a 503), not the OS's minutes.
    options.setdefault("connect_timeout", 5)
    # Parameters apart from the statement, so psycopg prepares what a connection runs a
    # third time: planned once a connection, not once a request (docs/deploy.md).
    options["server_side_binding"] = True
    options["prepare_threshold"] = 2 if env_bool("DB_PREPARE", True) else None
    if pool:
        # Per gunicorn worker (a thread a request; live streams hold none while they
        # wait). The check on checkout drops connections a PostgreSQL restart killed, and
        # a reconnection gives up as soon as a request would (not backing off for
        # minutes): the next request after an outage connects at once.
        timeout = env_int("DB_POOL_TIMEOUT", 5)
        options["pool"] = {
            "min_size": 1,
            "max_size": env_int("DB_POOL_MAX_SIZE", 8),
            "timeout": timeout,
            "reconnect_timeout": timeout,
        }
        database["CONN_HEALTH_CHECKS"] = True
