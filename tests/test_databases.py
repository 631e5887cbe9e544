"""`DATABASES` as the environment makes it (tracker.databases)."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from tracker.databases import from_environment


def test_a_sqlite_file_waits_for_another_write_instead_of_failing():
    database = from_environment("sqlite:////tmp/squarescores.sqlite3", pool=False)
    assert database["ENGINE"] == "django.db.backends.sqlite3"
    options = database["OPTIONS"]
    assert "journal_mode=WAL" in options["init_command"]
    assert "synchronous=NORMAL" in options["init_command"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] == 20
    assert database["ATOMIC_REQUESTS"] is False


def test_postgresql_is_planned_once_a_connection_and_pooled_when_asked(monkeypatch):
    monkeypatch.delenv("DB_PREPARE", raising=False)
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "12")
    database = from_environment("postgres://u@db:5432/name", pool=True)
    options = database["OPTIONS"]
    assert options["server_side_binding"] is True
    assert options["prepare_threshold"] == 2
    assert options["connect_timeout"] == 5
    assert options["pool"]["max_size"] == 12
    assert database["CONN_MAX_AGE"] == 0 and database["CONN_HEALTH_CHECKS"] is True
    assert "transaction_mode" not in options


def test_the_pool_needs_postgresql():
    with pytest.raises(ImproperlyConfigured, match="DB_POOL=true needs a PostgreSQL"):
        from_environment("sqlite:////tmp/squarescores.sqlite3", pool=True)
