"""PostgreSQL prepares the statements a connection runs again (docs/deploy.md, "Prepared
statements"): the parameters travel apart from the statement (server-side binding) and
psycopg prepares it the third time a connection runs it; DB_PREPARE=false keeps the
binding and prepares nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.db import connection

from tracker.services import share_link_create

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POSTGRES = "postgres://scores:secret@db.internal:5432/scores"


def options_in_subprocess(**env: str) -> dict:
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        "options = settings.DATABASES['default']['OPTIONS']; "
        "print(json.dumps({name: options.get(name, 'unset') "
        "for name in ('server_side_binding', 'prepare_threshold')}))"
    )
    full_env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("DB_") and name != "DATABASE_URL"
    }
    full_env.update(DJANGO_SETTINGS_MODULE="tracker.settings", **env)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_postgresql_prepares_the_statements_a_connection_repeats():
    assert options_in_subprocess(DATABASE_URL=POSTGRES) == {
        "server_side_binding": True,
        "prepare_threshold": 2,
    }
    assert options_in_subprocess(DATABASE_URL=POSTGRES, DB_POOL="true") == {
        "server_side_binding": True,
        "prepare_threshold": 2,
    }


def test_db_prepare_false_keeps_the_binding_and_prepares_nothing():
    assert options_in_subprocess(DATABASE_URL=POSTGRES, DB_PREPARE="false") == {
        "server_side_binding": True,
        "prepare_threshold": None,
    }
    bad = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=REPO_ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tracker.settings",
            "DATABASE_URL": POSTGRES,
            "DB_PREPARE": "sometimes",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode != 0
    assert "DB_PREPARE='sometimes' is not a boolean" in bad.stderr


def test_sqlite_takes_no_postgresql_options():
    assert options_in_subprocess() == {
        "server_side_binding": "unset",
        "prepare_threshold": "unset",
    }


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_read_asked_again_runs_prepared(client, make_session, actor):
    """The standings asked three times on one connection: from the third, the server
    runs its statements prepared (psycopg names them `_pg3_...`), and each answer is the
    same as the first."""
    session, _players = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    def prepared() -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return {statement for (statement,) in cursor.fetchall()}

    before = prepared()
    answers = [
        client.get(
            f"/api/sessions/{session.pk}/standings/", HTTP_AUTHORIZATION=f"Share {link.token}"
        )
        for _ in range(3)
    ]

    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert answers[2].json() == answers[0].json()
    now = prepared() - before
    assert any('FROM "tracker_sharelink"' in statement for statement in now), now
