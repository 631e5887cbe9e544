"""Signing in: tokens, session login with CSRF, and callers without credentials."""

import pytest

from tests.api.conftest import client_with
from tracker.models import ApiToken, Circle

pytestmark = pytest.mark.django_db


def test_auth_token_trades_username_and_password_for_a_token(user):
    response = client_with().post(
        "/api/auth/token/", {"username": "host", "password": "table-of-four"}
    )

    token = ApiToken.objects.get(user=user)
    assert response.status_code == 200
    assert response.json() == {"token": response.json()["token"], "id": token.pk}
    assert len(response.json()["token"]) == 40
    assert token.prefix == response.json()["token"][:8]
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"
    again = client_with().post(
        "/api/auth/token/", {"username": "host", "password": "table-of-four"}
    )
    assert again.json()["token"] != response.json()["token"]  # a token per sign-in
    assert ApiToken.objects.filter(user=user).count() == 2


def test_auth_token_with_a_wrong_password_is_refused(user):
    response = client_with().post("/api/auth/token/", {"username": "host", "password": "nope"})

    assert response.status_code == 400
    assert response.json() == {
        "code": "bad_credentials",
        "detail": "That username and password do not match an account.",
    }
    assert ApiToken.objects.count() == 0


def test_auth_token_without_a_password_is_refused(user):
    response = client_with().post("/api/auth/token/", {"username": "host"})

    assert response.status_code == 400
    assert response.json()["detail"] == "password: This field is required."


def test_the_token_works_as_authorization(token, circle):
    response = client_with(f"Token {token}").get("/api/circles/")

    assert response.status_code == 200
    assert response.json() == [{"id": circle.pk, "name": "Friday table"}]


def test_anonymous_gets_401_with_a_sentence(circle):
    response = client_with().get("/api/circles/")

    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "detail": (
            "Sign in first: send Authorization: Token <token> (from POST /api/auth/token/), "
            "or Authorization: Share <token> with a share link."
        ),
    }
    assert response["WWW-Authenticate"] == "Token"


def test_a_bad_token_is_refused():
    response = client_with("Token 0123456789abcdef").get("/api/circles/")

    assert response.status_code == 401
    assert response.json() == {
        "code": "token_not_valid",
        "detail": "This token is not valid: it was revoked, or never was one; sign in again.",
    }


def test_session_login_reads_without_csrf(user, circle):
    browser = client_with(enforce_csrf_checks=True)
    browser.force_login(user)

    assert browser.get("/api/circles/").status_code == 200


def test_session_login_writes_need_the_csrf_token(user):
    browser = client_with(enforce_csrf_checks=True)
    browser.force_login(user)

    refused = browser.post("/api/circles/", {"name": "Sunday"})

    assert refused.status_code == 403
    assert refused.json() == {
        "code": "permission_denied",
        "detail": "CSRF Failed: CSRF cookie not set.",
    }
    assert Circle.objects.count() == 0

    browser.get("/admin/login/")  # any page that sets the CSRF cookie
    csrf = browser.cookies["csrftoken"].value
    accepted = browser.post("/api/circles/", {"name": "Sunday"}, HTTP_X_CSRFTOKEN=csrf)

    assert accepted.status_code == 201
    assert Circle.objects.get().name == "Sunday"
