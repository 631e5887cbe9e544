"""Security headers (issue 5 §4) on a page and an API call, HSTS with production
settings, and a Content-Security-Policy the pages live within (Swagger UI exempt)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tracker.middleware import CONTENT_SECURITY_POLICY
from tracker.services import api_token_create

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
}


def assert_common_headers(response) -> None:
    for name, value in COMMON.items():
        assert response.headers.get(name) == value, (name, response.headers.get(name))


def test_a_page_carries_the_security_headers(client, user):
    assert_common_headers(client.get("/accounts/login/"))
    client.force_login(user)
    response = client.get("/")
    assert response.status_code == 200
    assert_common_headers(response)


def test_an_api_call_carries_the_security_headers(user):
    token = api_token_create(user=user).key
    response = Client().get("/api/circles/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200
    assert_common_headers(response)
    assert_common_headers(Client().get("/api/circles/"))  # a refusal too (401)


def test_the_policy_allows_only_this_site():
    directives = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"  # no inline script, no eval
    assert directives["style-src"] == "'self'"
    assert directives["img-src"] == "'self' data:"
    assert directives["frame-ancestors"] == "'none'"


def test_the_pages_need_no_inline_script_or_style(client, user):
    client.force_login(user)
    html = client.get("/").content.decode()
    assert "<script>" not in html and "<style" not in html and " style=" not in html
    # htmx would inject a <style> element for its indicators, which the policy blocks.
    assert '"includeIndicatorStyles": false' in html


def test_swagger_ui_is_exempt_from_the_policy(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert "Content-Security-Policy" not in response.headers
    assert response.headers["X-Frame-Options"] == "DENY"


# Pages are left out: with DEBUG=false they need `collectstatic`'s manifest, and the
# headers come from the same middleware whatever the view.
PROBE = """
import json, django
django.setup()
from django.test import Client
answers = {}
for path in ("/healthz", "/api/circles/"):
    response = Client().get(path, secure=True, headers={"host": "scores.example.com"})
    answers[path] = [response.status_code, dict(response.headers)]
print(json.dumps(answers))
"""


def test_production_settings_add_hsts(tmp_path):
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("SECURE_", "DEBUG", "DATABASE_URL", "DB_POOL"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="tracker.settings",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="scores.example.com",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    probe = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    answers = json.loads(probe.stdout.strip().splitlines()[-1])
    for path, (status, headers) in answers.items():
        assert status in (200, 401), (path, status)
        assert headers["Strict-Transport-Security"] == (
            "max-age=31536000; includeSubDomains; preload"
        ), path
        for name, value in COMMON.items():
            assert headers.get(name) == value, (path, name)
