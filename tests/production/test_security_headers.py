"""Security headers (issue 5 §4) on a page and an API call, HSTS with production
settings, and a Content-Security-Policy (django-csp) the pages and Swagger UI live within."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tracker.services import api_token_create

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
# The policy as the hand-written middleware sent it before django-csp: the same
# directives (django-csp may write them in another order).
POLICY = {
    "default-src": "'self'",
    "img-src": "'self' data:",
    "style-src": "'self'",
    "script-src": "'self'",
    "connect-src": "'self'",
    "worker-src": "'self'",  # the service worker (docs/pages.md, "Offline")
    "manifest-src": "'self'",
    "form-action": "'self'",
    "base-uri": "'self'",
    "object-src": "'none'",
    "frame-ancestors": "'none'",
}


def directives(header: str | None) -> dict[str, str]:
    return dict(part.strip().split(" ", 1) for part in (header or "").split(";") if part)


def assert_common_headers(response) -> None:
    for name, value in COMMON.items():
        assert response.headers.get(name) == value, (name, response.headers.get(name))
    assert directives(response.headers.get("Content-Security-Policy")) == POLICY


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


def test_the_policy_allows_only_this_site(client):
    policy = directives(client.get("/accounts/login/").headers["Content-Security-Policy"])
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"  # no inline script, no eval
    assert policy["style-src"] == "'self'"
    assert policy["img-src"] == "'self' data:"
    assert policy["frame-ancestors"] == "'none'"


def test_the_pages_need_no_inline_script_or_style(client, user):
    client.force_login(user)
    html = client.get("/").content.decode()
    assert "<script>" not in html and "<style" not in html and " style=" not in html
    # htmx would inject a <style> element for its indicators, which the policy blocks.
    assert '"includeIndicatorStyles": false' in html


def test_swagger_ui_is_served_from_this_site_within_the_policy(client):
    response = client.get("/api/docs/")
    html = response.content.decode()

    assert response.status_code == 200
    assert directives(response.headers["Content-Security-Policy"]) == POLICY
    assert "<script>" not in html and "cdn." not in html and "unpkg" not in html
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")


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
        assert directives(headers.get("Content-Security-Policy")) == POLICY, path
