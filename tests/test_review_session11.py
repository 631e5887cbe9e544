"""Review of session 11: server-side binding and prepared statements on PostgreSQL, the
live stream that ends when the database fails it, and the cancelled CI's `stop_both`.

A passing test here documents a behaviour checked in the review; a failing one a defect."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import os
import signal
import subprocess
import time

import psycopg
import pytest
from django.db import OperationalError, connection
from django.test import Client
from django.urls import resolve, reverse

from tests.test_ci_script import checkout, running
from tracker import glance
from tracker import live as live_module
from tracker.backup import export_circle, import_circle
from tracker.live import Hub, Versions
from tracker.models import Circle, ShareLink, Tap
from tracker.services import deal_tap, share_link_create
from tracker.views import live as live_view
from tracker.views.live import _Follower

pytestmark = pytest.mark.django_db


def _other_connection() -> psycopg.Connection:
    """A connection of its own to the test database, as another process (a release's
    `manage.py migrate`) would have."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=True)


# --- Server-side binding: what was checked ----------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(
    "model",
    [
        "circle",
        "player",
        "session",
        "deal",
        "ledgerline",
        "correction",
        "sharelink",
        "payment",
        "invite",
        "apitoken",
    ],
)
def test_admin_changelists_search_and_sort_under_server_side_binding(
    admin_client, make_session, model
):
    """The admin's searches (LIKE with a pattern parameter, % and _ escaped), sorting and
    filters all type their parameters."""
    make_session()
    url = reverse(f"admin:tracker_{model}_changelist")
    for query in ("", "?q=Fri", "?q=%25_x", "?o=1", "?o=-2.1"):
        response = admin_client.get(url + query)
        assert response.status_code == 200, (query, response.content[:300])


@pytest.mark.postgres
def test_admin_date_hierarchy_under_server_side_binding(admin_client, make_session):
    """`date_hierarchy` truncates with its kind and time zone as parameters, in SELECT
    DISTINCT and ORDER BY: Django orders by the selected alias, so no mismatch."""
    session, _ = make_session()
    url = reverse("admin:tracker_session_changelist")
    day = session.started_at
    year, month = f"started_at__year={day.year}", f"started_at__month={day.month}"
    for query in ("", f"?{year}", f"?{year}&{month}", f"?{year}&{month}&started_at__day={day.day}"):
        response = admin_client.get(url + query)
        assert response.status_code == 200, (query, response.content[:300])


# --- Prepared statements and a migration run by another process -------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_prepared_read_survives_a_column_type_change_by_another_process(make_session, actor):
    """docs/deploy.md ("Prepared statements"): "A migration needs no restart for this:
    PostgreSQL plans a prepared statement again after a change to its tables, and Django
    names every column it reads, so no statement's result changes shape."

    Not so for a migration that changes a column's type, such as an `AlterField` of a
    CharField's `max_length` (varchar(10) -> varchar(20), the SQL Django emits): the
    result's row type changes, and PostgreSQL refuses to run the statement prepared
    before with `cached plan must not change result type` (NotSupportedError: a 500, not
    the 503 of a database down). It fails again every time on that connection, which the
    pool keeps (until `max_lifetime`, an hour); psycopg forgets its prepared statements
    only on a DROP/ALTER/ROLLBACK run on the same connection. "One server first" migrating
    (docs/deploy.md, "Migrations") while the others serve is exactly this."""
    session, _ = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    path = f"/api/sessions/{session.pk}/standings/"
    client = Client(raise_request_exception=False)
    auth = {"HTTP_AUTHORIZATION": f"Share {link.token}"}
    for _ in range(4):  # prepared from the third
        assert client.get(path, **auth).status_code == 200
        assert ShareLink.objects.filter(pk=link.pk).first() is not None
    table = ShareLink._meta.db_table
    with _other_connection() as other:
        other.execute(f'ALTER TABLE "{table}" ALTER COLUMN "role" TYPE varchar(20)')
        try:
            after = [client.get(path, **auth).status_code for _ in range(2)]
            errors = []
            for _ in range(2):
                try:
                    ShareLink.objects.filter(pk=link.pk).first()
                except Exception as error:  # noqa: BLE001 - what the read raised
                    errors.append(str(error))
        finally:
            other.execute(f'ALTER TABLE "{table}" ALTER COLUMN "role" TYPE varchar(10)')
    assert (after, errors) == ([200, 200], [])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_migration_on_the_same_connection_leaves_no_stale_prepared_statement(make_session, actor):
    """The same change run on the connection itself (a migration test, `make serve`
    migrating before it starts) is fine: psycopg forgets what it prepared after an
    ALTER."""
    session, _ = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    table = ShareLink._meta.db_table
    for _ in range(4):
        assert glance.by_link(link.token) is not None
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "role" TYPE varchar(20)')
    try:
        assert glance.by_link(link.token) is not None
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "role" TYPE varchar(10)')


# --- Server-side binding: at most 65535 parameters a statement --------------------------


@pytest.mark.postgres
def test_a_long_circle_s_export_imports_again(make_session, actor, circle, django_user_model):
    """Checked: with the parameters bound server-side a statement carries at most 65535
    of them (the Bind message counts them in 16 bits), and Django's PostgreSQL backend
    does not batch `bulk_create` (`max_query_params` is None). `import_circle` stores
    every tap of a circle in one `bulk_create`, 12 columns a tap; past 5,461 taps (about
    1,830 deals of 3 taps) that would be too many, but Django 5.2 inserts literal rows
    through `UNNEST`, one array parameter a column, so a long circle imports again."""
    session, p = make_session()
    deal = session.deals.get()
    for name in ("Alice", "Ben", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    data = export_circle(circle)
    filed, open_deal = data["sessions"][0]["deals"]
    per_tap = len([f for f in Tap._meta.concrete_fields if not f.primary_key])
    deals = 65535 // (3 * per_tap) + 10  # just past the limit
    copies = []
    for number in range(1, deals + 1):
        copied = copy.deepcopy(filed)
        copied["number"] = number
        copies.append(copied)
    open_deal["number"] = deals + 1
    data["sessions"][0]["deals"] = [*copies, open_deal]
    data["circle"]["name"] = "Friday table, restored"

    imported = import_circle(data, owner=django_user_model.objects.get().username)

    assert Tap.objects.filter(deal__session__circle=imported).count() == 3 * deals
    assert Circle.objects.count() == 2


# --- The live stream that ends on a database error --------------------------------------


@pytest.fixture
def quiet_hub(monkeypatch):
    hub = Hub()
    monkeypatch.setattr(hub, "start", lambda: None)  # no listener: the test says the change
    monkeypatch.setattr(live_view.changes, "hub", lambda: hub)
    return hub


def _share_live_request(rf, token: str):
    """A request for a share link's live stream, resolved as the handler resolves it."""
    path = reverse("link:live", kwargs={"token": token})
    request = rf.get(path)
    request.resolver_match = resolve(path)
    return request


def test_an_asgi_stream_ended_by_the_database_leaves_no_watcher_and_no_token_in_the_log(
    quiet_hub, monkeypatch, caplog, rf
):
    token = "t" * 43
    follower = _Follower(request=_share_live_request(rf, token), session_id=None, token=token)
    follower.session, follower.version, follower.rows_at, follower.access_at = 7, 5, 2, 1

    def unreachable(*args, **kwargs):
        raise OperationalError("couldn't get a connection after 5.00 sec")

    monkeypatch.setattr(follower, "look", unreachable)

    async def listening() -> list[str]:
        stream = live_view._stream(follower, "data: 5\n\n")
        said = [await anext(stream)]
        assert quiet_hub._watchers == {7: 1}
        quiet_hub.changed(7, Versions(6, 2, 2))  # access moved: the link is read again
        said += [event async for event in stream]
        return said

    with caplog.at_level("WARNING", logger="squarescores.database"):
        said = asyncio.run(listening())

    assert said == ["data: 5\n\n"]
    assert quiet_hub._watchers == {} and quiet_hub._changed == {}
    (warning,) = caplog.records
    assert token not in warning.getMessage()
    assert "<token>" in warning.getMessage()


@pytest.fixture
def shared(make_session, actor):
    session, _ = make_session()
    return share_link_create(session_id=session.pk, role="viewer", actor=actor)


def test_a_thread_s_stream_ended_by_the_database_counts_itself_closed(shared, monkeypatch, caplog):
    """Served by WSGI: the stream ends after its comment, the open-streams counter (which
    the browser tests' server waits on) comes back down, and the token stays out of the
    warning."""
    open_before = live_view.thread_streams.open
    response = Client().get(reverse("link:live", kwargs={"token": shared.token}))
    stream = iter(response.streaming_content)
    next(stream)
    assert live_view.thread_streams.open == open_before + 1

    class Unreachable:
        def filter(self, *args, **kwargs):
            raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(live_view.Session, "objects", Unreachable())
    with caplog.at_level("WARNING", logger="squarescores.database"):
        rest = list(stream)

    assert rest == [b":\n\n"]
    assert live_view.thread_streams.open == open_before
    message = caplog.records[-1].getMessage()
    assert "shutting down" in message
    assert shared.token not in message


def test_the_hub_keeps_polling_after_a_database_error(monkeypatch):
    """The hub's one task per process: while it cannot listen (or on SQLite) it polls the
    watched sessions' counters, through the ORM. The database down, the poll raises
    Django's OperationalError, which is not the `psycopg.Error` `_run` catches (nor
    inside the polling loop at all): the task ends with the exception ("Task exception
    was never retrieved"), and every stream of the process hears no change any more,
    the database back or not, until a new stream happens to start the hub again (a
    stream lasts about 5 minutes). The streams this change ends on a database error are
    the ones that needed a read; those that only relay versions wait on a dead hub."""
    monkeypatch.setattr(live_module, "POLL_EVERY", 0.01)
    monkeypatch.setattr(live_module, "RECONNECT_AFTER", (0.01,))

    async def not_listening(self):
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(Hub, "_listen", not_listening)
    polls = []

    def versions(session_ids):
        polls.append(list(session_ids))
        if len(polls) == 1:
            raise OperationalError("the database system is starting up")
        return {7: Versions(6, 2, 2)}

    monkeypatch.setattr(live_module, "_versions", versions)

    async def watching() -> Versions | None:
        hub = Hub()
        async with hub.watching(7):
            heard = await hub.wait(7, 5, 2.0)
            if hub._task is not None and hub._task.done():
                with contextlib.suppress(BaseException):
                    hub._task.result()  # retrieved: no "never retrieved" at exit
            else:
                hub._task.cancel()
            return heard

    assert asyncio.run(watching()) == Versions(6, 2, 2)


# --- The cancelled CI ---------------------------------------------------------------------

STUB_MAKE_SQLITE_QUICK = """#!/usr/bin/env bash
# `make test`: the SQLite run (no DATABASE_URL) passes at once, the PostgreSQL one runs on.
if [ "${1:-}" = test ]; then
    echo $$ >>"$PIDS"
    if [ -z "${DATABASE_URL:-}" ]; then echo "all passed"; touch "$PIDS.sqlite-done"; exit 0; fi
    exec sleep 60
fi
exit 0
"""


def test_ci_cancelled_after_the_sqlite_run_passed_says_it_passed(tmp_path):
    """The SQLite run ends first (7.8 minutes, PostgreSQL 11.4: docs/performance.md). CI
    cancelled after it passed and while the PostgreSQL run goes on: `stop_both` reaps the
    finished run with a bare `wait`, which drops its status, and says SQLite's run was
    "stopped" above its own "all passed"."""
    script, env = checkout(tmp_path)
    (tmp_path / "bin" / "make").write_text(STUB_MAKE_SQLITE_QUICK)
    ci = subprocess.Popen(
        ["bash", str(script)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    started: list[int] = []
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (
            (tmp_path / "pids.sqlite-done").exists() and len(started) == 2
        ):
            time.sleep(0.05)
            if (tmp_path / "pids").exists():
                started = [int(p) for p in (tmp_path / "pids").read_text().split()]
        assert len(started) == 2
        time.sleep(0.3)  # the SQLite run has exited
        ci.send_signal(signal.SIGTERM)
        said, _ = ci.communicate(timeout=10)
        assert [pid for pid in started if running(pid)] == []
        assert "Tests on PostgreSQL (exit status stopped)" in said
        assert "Tests on SQLite (exit status 0)" in said, said
    finally:
        if ci.poll() is None:
            ci.kill()
            ci.wait()
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
