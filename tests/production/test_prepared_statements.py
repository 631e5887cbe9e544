"""PostgreSQL prepares the statements a connection runs again (docs/deploy.md, "Prepared
statements"): the parameters travel apart from the statement (server-side binding) and
psycopg prepares it the third time a connection runs it; DB_PREPARE=false keeps the
binding and prepares nothing. A column's type changed by another process (a migration
while the app serves) makes a prepared statement stale: it is prepared again
(`tracker.prepared`)."""

from __future__ import annotations

import ast
import contextlib
import copy

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from tests.production.conftest import setting_in_subprocess
from tracker import glance
from tracker.backup import export_circle, import_circle
from tracker.models import Circle, Player, ShareLink, Tap
from tracker.services import deal_tap, share_link_create

POSTGRES = "postgres://scores:secret@db.internal:5432/scores"


def options(**env: str) -> dict[str, object]:
    read = setting_in_subprocess(
        "{name: settings.DATABASES['default']['OPTIONS'].get(name, 'unset')"
        " for name in ('server_side_binding', 'prepare_threshold')}",
        leave_out=("DB_", "DATABASE_URL"),
        **env,
    )
    assert read.returncode == 0, read.stderr
    return ast.literal_eval(read.stdout.strip())


def test_postgresql_prepares_the_statements_a_connection_repeats():
    prepared = {"server_side_binding": True, "prepare_threshold": 2}
    assert options(DATABASE_URL=POSTGRES) == prepared
    assert options(DATABASE_URL=POSTGRES, DB_POOL="true") == prepared


def test_db_prepare_false_keeps_the_binding_and_prepares_nothing():
    assert options(DATABASE_URL=POSTGRES, DB_PREPARE="false") == {
        "server_side_binding": True,
        "prepare_threshold": None,
    }
    bad = setting_in_subprocess(
        "1", leave_out=("DB_",), DATABASE_URL=POSTGRES, DB_PREPARE="sometimes"
    )
    assert bad.returncode != 0
    assert "DB_PREPARE='sometimes' is not a boolean" in bad.stderr


def test_sqlite_takes_no_postgresql_options():
    assert options() == {"server_side_binding": "unset", "prepare_threshold": "unset"}


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_read_asked_again_runs_prepared(client, make_session, actor):
    """The standings asked three times on one connection: from the third, the server
    runs its statements prepared (psycopg's, in `pg_prepared_statements`), and each
    answer is the same as the first."""
    session, _players = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    def prepared() -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return {statement for (statement,) in cursor.fetchall()}

    before = prepared()
    path = f"/api/sessions/{session.pk}/standings/"
    answers = [client.get(path, HTTP_AUTHORIZATION=f"Share {link.token}") for _ in range(3)]

    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert answers[2].json() == answers[0].json()
    now = prepared() - before
    assert any('FROM "tracker_sharelink"' in statement for statement in now), now


@contextlib.contextmanager
def column_retyped(model, column: str, wider: str, was: str):
    """The column's type changed by another process, as a release's `migrate` run from
    another server would (an `AlterField` of a `max_length`), and put back after."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    table = model._meta.db_table
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE {wider}')
        try:
            yield
        finally:
            other.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE {was}')


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_read_prepared_before_a_column_changed_type_is_prepared_again(make_session, actor):
    """PostgreSQL refuses a statement prepared before its result's type changed ("cached
    plan must not change result type"), and psycopg would run it prepared again and again
    on that pooled connection: out of a transaction the app deallocates and runs it again,
    and the caller sees nothing (a review's test)."""
    session, _ = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    path = f"/api/sessions/{session.pk}/standings/"
    client = Client(raise_request_exception=False)
    auth = {"HTTP_AUTHORIZATION": f"Share {link.token}"}
    for _ in range(4):  # prepared from the third
        assert client.get(path, **auth).status_code == 200
        assert ShareLink.objects.filter(pk=link.pk).first() is not None

    with column_retyped(ShareLink, "role", "varchar(20)", was="varchar(10)"):
        after = [client.get(path, **auth).status_code for _ in range(2)]
        again = [ShareLink.objects.filter(pk=link.pk).first() for _ in range(2)]

    assert after == [200, 200]
    assert [found.pk for found in again] == [link.pk, link.pk]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_write_whose_prepared_statement_went_stale_is_a_503_and_its_retry_is_taken(
    make_session, actor
):
    """Inside a write's transaction the refused statement spoils it: the write is rolled
    back and answered 503 "try again in a moment", not 500; the rollback makes psycopg
    forget what it prepared, so the phone's retry, with the same key, is taken."""
    session, p = make_session()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    deal = session.deals.get().pk
    client = Client(raise_request_exception=False)
    auth = {"HTTP_AUTHORIZATION": f"Share {link.token}"}

    def tap(key: str):
        return client.post(
            f"/api/deals/{deal}/taps/",
            {"player": p["Alice"].pk},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=key,
            **auth,
        )

    for round_ in range(3):  # the deal's read with its players' names, prepared
        assert tap(f"warm-{round_}").status_code == 201
        undone = client.post(f"/api/deals/{deal}/undo/", HTTP_IDEMPOTENCY_KEY=f"u{round_}", **auth)
        assert undone.status_code == 200

    with column_retyped(Player, "name", "varchar(41)", was="varchar(40)"):
        refused = tap("the-tap")
        retried = tap("the-tap")

    assert refused.status_code == 503, refused.content
    assert refused["Retry-After"] == "5"
    assert retried.status_code == 201, retried.content
    assert [place["place"] for place in retried.json()["players"] if place["place"]] == [1]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_column_changed_on_the_connection_itself_leaves_nothing_stale(make_session, actor):
    """The same change run on the app's own connection (`make serve` migrating before it
    serves) is fine without help: psycopg forgets what it prepared after an ALTER (a
    review's test)."""
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


# --- What else sends parameters apart: checked by a review ------------------------------


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
