"""The SQLite test database lets one thread write while another reads (tests/conftest.py).

A live server's streams read while the test's own thread writes. Django's default SQLite
test database, shared-cache memory, refuses that write at once ("database table is
locked"): CI met it as a flaky live standings test.
"""

import threading

import pytest
from django.db import connection

from tracker.models import Session

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite test database's own setup")


def test_the_test_database_is_a_file_in_wal_mode():
    assert "mode=memory" not in connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"


def test_a_write_goes_through_while_another_thread_is_reading(make_session):
    session, _players = make_session()
    reading, written = threading.Event(), threading.Event()
    errors: list[Exception] = []

    def read() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("BEGIN")
                cursor.execute("SELECT version FROM tracker_session")
                cursor.fetchone()  # a read transaction open on the table
                reading.set()
                written.wait(10)
                cursor.execute("COMMIT")
        except Exception as error:  # reported below
            errors.append(error)
            reading.set()
        finally:
            connection.close()

    reader = threading.Thread(target=read)
    reader.start()
    assert reading.wait(10)
    try:
        Session.objects.filter(pk=session.pk).update(name="Saturday")
    finally:
        written.set()
        reader.join(10)
    assert errors == []
    assert Session.objects.get(pk=session.pk).name == "Saturday"
