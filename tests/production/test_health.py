"""/healthz and the 503 answered while the database is unreachable, in-process.

The outage is real as far as Django can tell: a query wrapper (Django's documented
`connection.execute_wrapper`) makes every query fail the way a lost server does. The
same checks against a real unreachable PostgreSQL, under gunicorn, are in test_serve.py.
"""

from contextlib import contextmanager

import pytest
from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.test import Client

from tracker.middleware import UNAVAILABLE
from tracker.services import api_token_create

pytestmark = pytest.mark.django_db


def _lost_server(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


@contextmanager
def database_down():
    with connection.execute_wrapper(_lost_server):
        yield


class TouchUser:
    """A middleware that reads the user (and so the session) before the view runs."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.user.is_authenticated  # noqa: B018 -- loading it is the point
        return self.get_response(request)


def test_healthz_answers_ok_with_one_query(client, django_assert_num_queries):
    with django_assert_num_queries(1):  # SELECT 1; no session, no user
        response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_healthz_answers_503_when_database_down(client):
    with database_down():
        response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unavailable"}
    assert response["Retry-After"] == "5"


def test_healthz_answers_head_and_refuses_post(client):
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


@pytest.mark.urls("tests.production.urls")
def test_database_down_in_view_is_503_sentence(client):
    with database_down():
        response = client.get("/circles/")

    assert response.status_code == 503
    assert response.content.decode() == UNAVAILABLE
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Retry-After"] == "5"


@pytest.mark.urls("tests.production.urls")
def test_database_down_is_json_for_json_clients(client):
    with database_down():
        response = client.get("/circles/", headers={"Accept": "application/json"})

    assert response.status_code == 503
    assert response.json() == {"detail": UNAVAILABLE}


def test_database_down_in_api_is_503_json(user):
    token = api_token_create(user=user).key
    api = Client(headers={"Authorization": f"Token {token}"})

    with database_down():
        response = api.get("/api/circles/")

    assert response.status_code == 503
    assert response.json() == {"detail": UNAVAILABLE}
    assert response["Retry-After"] == "5"


@pytest.mark.urls("tests.production.urls")
def test_database_down_in_middleware_is_503(settings, user):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.production.test_health.TouchUser"]
    # The error is raised outside the view, so Django's handler has already turned it into
    # a 500 (and the test client would re-raise it) before the middleware replaces it.
    browser = Client(raise_request_exception=False)
    browser.force_login(user)

    with database_down():
        response = browser.get("/circles/")

    assert response.status_code == 503
    assert response.content.decode() == UNAVAILABLE


@pytest.mark.urls("tests.production.urls")
def test_other_errors_stay_500():
    browser = Client(raise_request_exception=False)

    response = browser.get("/broken/")

    assert response.status_code == 500
    assert "Retry-After" not in response
