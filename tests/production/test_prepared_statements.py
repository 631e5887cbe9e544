"""PostgreSQL prepares the statements a connection runs again (docs/deploy.md, "Prepared
statements"): the parameters travel apart from the statement (server-side binding) and
psycopg prepares it the third time a connection runs it; DB_PREPARE=false keeps the
binding and prepares nothing."""

from __future__ import annotations

import ast

import pytest
from django.db import connection

from tests.production.conftest import setting_in_subprocess
from tracker.services import share_link_create

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
