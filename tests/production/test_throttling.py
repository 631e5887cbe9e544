"""Throttling (issue 5 §4): token requests per IP, API writes per caller, reads free.

Tests run with throttles off (tests/conftest.py); these turn them on with small rates.
Counters live in the database cache (CACHES["throttle"]), so every worker shares them.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import caches
from django.db import connection
from rest_framework.test import APIClient

from tests.production.conftest import setting_in_subprocess
from tracker import services
from tracker.services import api_token_create

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def throttles_on(settings, one_rate_window):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"auth": "10/min", "writes": "3/min"},
    }
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


def client(header: str | None = None, ip: str = "203.0.113.7") -> APIClient:
    api = APIClient(REMOTE_ADDR=ip)
    api.default_format = "json"
    if header:
        api.credentials(HTTP_AUTHORIZATION=header)
    return api


def assert_throttled(response) -> None:
    assert response.status_code == 429, response.content
    assert int(response["Retry-After"]) >= 1
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail.endswith(".")


def test_the_eleventh_token_request_in_a_minute_is_refused(user):
    anyone = client()
    for attempt in range(10):
        password = "table-of-four" if attempt % 2 else "a guess"
        response = anyone.post("/api/auth/token/", {"username": "host", "password": password})
        assert response.status_code in (200, 400), response.content
    response = anyone.post("/api/auth/token/", {"username": "host", "password": "table-of-four"})
    assert_throttled(response)
    assert int(response["Retry-After"]) <= 60


def test_token_requests_are_counted_per_ip_and_forwarded_for_is_not_trusted(user):
    body = {"username": "host", "password": "table-of-four"}
    first = client(ip="203.0.113.7")
    for _ in range(10):
        assert first.post("/api/auth/token/", body).status_code == 200
    # Claiming another address in a header the client writes itself does not help...
    assert_throttled(first.post("/api/auth/token/", body, HTTP_X_FORWARDED_FOR="198.51.100.1"))
    # ...but another client really is another client.
    assert client(ip="198.51.100.9").post("/api/auth/token/", body).status_code == 200


def test_writes_are_throttled_per_account_and_reads_are_not(user, circle, django_user_model):
    host = client(f"Token {api_token_create(user=user).key}")
    for n in range(3):
        response = host.post(f"/api/circles/{circle.pk}/players/", {"name": f"Player {n}"})
        assert response.status_code == 201, response.content
    refused = host.post(f"/api/circles/{circle.pk}/players/", {"name": "One too many"})
    assert_throttled(refused)
    assert not circle.players.filter(name="One too many").exists()

    # Reads go on.
    for _ in range(20):
        assert host.get(f"/api/circles/{circle.pk}/players/").status_code == 200

    # Another account, from the same address, has its own count.
    other = django_user_model.objects.create_user(username="other", password="x")
    guest = client(f"Token {api_token_create(user=other).key}")
    assert guest.post("/api/circles/", {"name": "Sunday table"}).status_code == 201


def test_share_link_writes_are_counted_per_link(user, circle, actor):
    session = services.session_create(
        circle=circle, name="Friday", players=["Alice", "Ben", "Cara", "Dev"], actor=actor
    )
    link = services.share_link_create(session_id=session.pk, role="scorer", actor=actor)
    scorer = client(f"Share {link.token}")
    deal = session.deals.get().pk
    for _ in range(3):
        assert scorer.post(f"/api/deals/{deal}/undo/").status_code in (200, 400, 409)
    assert_throttled(scorer.post(f"/api/deals/{deal}/undo/"))
    assert scorer.get(f"/api/deals/{deal}/").status_code == 200
    # The host's own writes are counted apart from the link's.
    host = client(f"Token {api_token_create(user=user).key}")
    assert host.post("/api/circles/", {"name": "Sunday table"}).status_code == 201


def test_counters_are_kept_in_the_database(user):
    client().post("/api/auth/token/", {"username": "host", "password": "table-of-four"})
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM throttle_cache")
        keys = [row[0] for row in cursor.fetchall()]
    assert any("throttle_auth_ip:203.0.113.7" in key for key in keys), keys


def settings_in_subprocess(**env: str) -> subprocess.CompletedProcess[str]:
    return setting_in_subprocess(
        "settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']",
        leave_out=("THROTTLE_", "DATABASE_URL"),
        **env,
    )


def test_rates_come_from_the_environment():
    defaults = settings_in_subprocess()
    assert defaults.stdout.strip() == (
        "{'auth': '10/min', 'writes': '120/min', 'signup': '5/hour', 'signup_tries': '30/hour'}"
    ), defaults.stderr
    chosen = settings_in_subprocess(
        THROTTLE_AUTH="5/hour",
        THROTTLE_WRITES="600/min",
        THROTTLE_SIGNUP="2/day",
        THROTTLE_SIGNUP_TRIES="9/hour",
    )
    assert chosen.stdout.strip() == (
        "{'auth': '5/hour', 'writes': '600/min', 'signup': '2/day', 'signup_tries': '9/hour'}"
    ), chosen.stderr
    off = settings_in_subprocess(THROTTLE_RATES_OFF="true", THROTTLE_AUTH="5/hour")
    assert off.stdout.strip() == (
        "{'auth': None, 'writes': None, 'signup': None, 'signup_tries': None}"
    ), off.stderr
    bad = settings_in_subprocess(THROTTLE_WRITES="lots")
    assert bad.returncode != 0
    assert "THROTTLE_WRITES='lots' is not a rate" in bad.stderr


def test_servers_share_the_count(tmp_path):
    """Two gunicorn servers (two workers each) on one database, taking turns: the 11th
    token request is refused, though neither server saw more than six."""
    from tests.production.test_serve import gunicorn, production_env

    env = production_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        SECURE_SSL_REDIRECT="false",
        THROTTLE_RATES_OFF="false",
        THROTTLE_AUTH="10/min",
        LOGIN_FAILURE_LIMIT="100",  # the per-address rate, not the lockout (test_lockout)
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=REPO_ROOT, env=env, check=True
    )
    body = json.dumps({"username": "nobody", "password": "a guess"})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    answers = []
    with gunicorn(env, tmp_path / "a") as first, gunicorn(env, tmp_path / "b") as second:
        for n in range(11):
            server = (first, second)[n % 2]
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:
                connection.request(
                    "POST",
                    "/api/auth/token/",
                    body=body,
                    headers={"Content-Type": "application/json"},
                )
                response = connection.getresponse()
                answers.append((response.status, response.getheader("Retry-After")))
                response.read()
            finally:
                connection.close()
    assert [status for status, _ in answers] == [400] * 10 + [429]
    assert int(answers[-1][1]) >= 1
