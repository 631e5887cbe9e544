"""Project-wide test setup.

Tests marked `@pytest.mark.postgres` (real concurrency, row locks) run only when the
database is PostgreSQL, i.e. with DATABASE_URL=postgres://...; elsewhere they are skipped
with a reason, not silently passed.
"""

import hashlib
import time
from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Reading the vendor builds the connection wrapper but does not connect.
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(
        reason=f"needs PostgreSQL (database is {connection.vendor}; set DATABASE_URL)"
    )
    for item in items:
        if item.get_closest_marker("postgres") is not None:
            item.add_marker(skip)


def values(instance) -> dict:
    """A model instance's stored columns, by attribute name: what a hand-written read must
    load exactly as the ORM does (tests/test_rows*.py, tests/api/test_glance_caller.py)."""
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite, the test database is a file in WAL mode, not Django's shared-cache
    database in memory.

    Threads that read and write at once (a live server's requests and streams, the test's
    own thread, a test's worker threads) each have their own connection. To a shared
    cache, a read in one connection locks the table against a write in another, and the
    write fails at once ("database table is locked"), without waiting. That is what the
    live standings test met in CI. The in-memory database is shared with the live server
    only when it exists before the server starts, and the test's thread gets a connection
    of its own once Playwright's loop runs in it (asgiref's `Local`). A file in WAL mode
    behaves as a real server does: readers never block the writer, a writer waits for
    another one (the busy timeout), and `BEGIN IMMEDIATE` takes the write lock at the
    start, so no transaction fails halfway when it would upgrade from read to write: the
    settings a served SQLite file has too (tracker.databases). Here nothing is made durable
    (`synchronous=OFF`): the file is thrown away.
    """
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3":
        # A test database of this checkout's own: two checkouts' runs on one server (a
        # developer's suite beside CI's fresh clone) both used "test_postgres", and the
        # second one's start tried to drop the first one's database under it.
        checkout = hashlib.sha256(str(Path(__file__).resolve().parent.parent).encode())
        database["TEST"] = {
            **database.get("TEST", {}),
            "NAME": f"test_{database['NAME']}_{checkout.hexdigest()[:10]}",
        }
        return
    database["TEST"] = {
        **database.get("TEST", {}),
        "NAME": str(tmp_path_factory.mktemp("sqlite") / "test.sqlite3"),
    }
    database["OPTIONS"] = {
        **database.get("OPTIONS", {}),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;",
    }


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Hash test passwords with MD5: the production hasher (PBKDF2, about 0.4 s a hash
    here) would take half the suite's time. Servers started by tests keep their own."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="host", password="table-of-four")


@pytest.fixture
def circle(user):
    from tracker.services import circle_create

    return circle_create(owner=user, name="Friday table")


@pytest.fixture
def actor(user):
    from tracker.access import Actor

    return Actor(user=user)


@pytest.fixture
def make_session(circle, actor):
    """A session at the Friday table; players by name, in seat order."""
    from tracker.services import session_create

    def make(players=("Alice", "Ben", "Cara", "Dev"), **rules):
        session = session_create(
            circle=circle, name="Friday", players=list(players), actor=actor, **rules
        )
        seats = {seat.player.name: seat.player for seat in session.seats.select_related("player")}
        return session, seats

    return make


@pytest.fixture
def outsider_table(django_user_model):
    """Another account, in none of the host's circles, with a circle and a session (and
    its open deal) of its own: what a second account probing every id reaches for."""
    from tracker.access import Actor
    from tracker.services import circle_create, session_create

    outsider = django_user_model.objects.create_user(username="outsider", password="x")
    session = session_create(
        circle=circle_create(owner=outsider, name="Other table"),
        name="Saturday",
        players=["Zed", "Otto", "Quin"],
        actor=Actor(user=outsider),
    )
    return outsider, session


@pytest.fixture(autouse=True)
def no_throttling(settings):
    """Throttles off, so tests that make many requests are not refused and query counts
    stay those of the views; tests/production/test_throttling.py turns them back on."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"auth": None, "writes": None},
    }


@pytest.fixture
def one_rate_window(monkeypatch):
    """Every write of the test counted in one window of the `writes` rate. The windows
    are fixed (tracker.gate.counted_write), so a test's few writes that straddled the edge
    of a minute started counting again and were not refused (CI met it)."""
    from tracker import gate

    counting, held = gate.counted_write, time.time()

    def in_one_window(scope: str, *, period: int, now: float | None = None):
        return counting(scope, period=period, now=held)

    monkeypatch.setattr(gate, "counted_write", in_one_window)


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A request in Vietnamese leaves Vietnamese active in the thread (LocaleMiddleware
    does not switch it back); the next test starts in English again."""
    yield
    from django.utils import translation

    translation.activate("en")


@pytest.fixture(autouse=True)
def fresh_answers():
    """Each test starts with no kept answers (tracker.answers): a rolled-back database
    hands the same ids and versions out again, to sessions with other data."""
    from tracker import answers

    answers.forget_all()
