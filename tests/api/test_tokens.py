"""API tokens: one per sign-in, listed and revoked by their account, revoked by signing
out and by a password change, expired after the idle limit; only a digest is stored."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from tests.api.conftest import client_with
from tracker.models import ApiToken
from tracker.services import api_token_create
from tracker.services.accounts import digest

pytestmark = pytest.mark.django_db

NOT_VALID = {
    "code": "token_not_valid",
    "detail": "This token is not valid: it was revoked, or never was one; sign in again.",
}


def sign_in(**extra):
    response = client_with().post(
        "/api/auth/token/", {"username": "host", "password": "table-of-four", **extra}
    )
    assert response.status_code == 200, response.json()
    return response.json()


def test_only_a_digest_of_the_key_is_stored(user):
    key = sign_in()["token"]

    token = ApiToken.objects.get()
    assert token.digest == digest(key)
    assert key not in {token.digest, token.prefix, token.name}


def test_the_account_lists_its_tokens_without_their_keys(user):
    phone = sign_in(name="phone")
    laptop = sign_in(name="laptop")

    response = client_with(f"Token {laptop['token']}").get("/api/auth/tokens/")

    assert response.status_code == 200
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"
    listed = [(row["id"], row["name"], row["prefix"], row["current"]) for row in response.json()]
    assert sorted(listed) == sorted(
        [
            (phone["id"], "phone", phone["token"][:8], False),
            (laptop["id"], "laptop", laptop["token"][:8], True),
        ]
    )
    assert phone["token"] not in response.text


def test_a_revoked_token_stops_working(user):
    phone = sign_in(name="phone")
    laptop = sign_in(name="laptop")
    from_laptop = client_with(f"Token {laptop['token']}")

    assert from_laptop.post(f"/api/auth/tokens/{phone['id']}/revoke/").status_code == 204

    refused = client_with(f"Token {phone['token']}").get("/api/circles/")
    assert (refused.status_code, refused.json()) == (401, NOT_VALID)
    assert from_laptop.get("/api/circles/").status_code == 200


def test_another_accounts_token_cannot_be_revoked(user, stranger):
    theirs = api_token_create(user=stranger)
    mine = sign_in()

    response = client_with(f"Token {mine['token']}").post(
        f"/api/auth/tokens/{theirs.token.pk}/revoke/"
    )

    assert response.status_code == 404
    assert response.json() == {
        "code": "not_found",
        "detail": f"There is no token {theirs.token.pk}.",
    }
    assert client_with(f"Token {theirs.key}").get("/api/circles/").status_code == 200


def test_signing_out_revokes_the_token_it_was_sent_with(user):
    phone = sign_in()
    laptop = sign_in()

    assert client_with(f"Token {phone['token']}").post("/api/auth/sign-out/").status_code == 204

    assert client_with(f"Token {phone['token']}").get("/api/circles/").status_code == 401
    assert client_with(f"Token {laptop['token']}").get("/api/circles/").status_code == 200


def test_a_password_change_revokes_every_token(user, stranger):
    mine = sign_in()
    theirs = api_token_create(user=stranger)

    user.set_password("a-new-password-77")
    user.save()

    assert client_with(f"Token {mine['token']}").get("/api/circles/").status_code == 401
    assert ApiToken.objects.filter(user=user).count() == 0
    assert client_with(f"Token {theirs.key}").get("/api/circles/").status_code == 200


def test_the_password_page_revokes_every_token(user, client):
    mine = sign_in()
    client.force_login(user)

    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": "table-of-four",
            "new_password1": "a-new-password-77",
            "new_password2": "a-new-password-77",
        },
    )

    assert response.status_code == 302
    assert client_with(f"Token {mine['token']}").get("/api/circles/").status_code == 401


def test_changepassword_command_revokes_every_token(user, monkeypatch):
    mine = sign_in()
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "a-new-password-77")

    call_command("changepassword", "host", stdout=None)

    assert client_with(f"Token {mine['token']}").get("/api/circles/").status_code == 401


def test_signing_in_keeps_tokens(user):
    """Signing in saves the account's last login; that is no password change."""
    mine = sign_in()
    sign_in()

    assert client_with(f"Token {mine['token']}").get("/api/circles/").status_code == 200


def test_a_token_idle_past_the_limit_expires(user, settings):
    settings.API_TOKEN_IDLE_DAYS = 30
    mine = sign_in()
    ApiToken.objects.update(last_used_at=timezone.now() - timedelta(days=31))

    response = client_with(f"Token {mine['token']}").get("/api/circles/")

    assert response.status_code == 401
    assert response.json() == {
        "code": "token_expired",
        "detail": (
            "This token was not used for 30 days and has expired; sign in again for a new one."
        ),
    }
    assert ApiToken.objects.count() == 0


def test_using_a_token_keeps_it_alive(user, settings):
    settings.API_TOKEN_IDLE_DAYS = 30
    mine = sign_in()
    ApiToken.objects.update(last_used_at=timezone.now() - timedelta(days=29))

    assert client_with(f"Token {mine['token']}").get("/api/circles/").status_code == 200

    assert ApiToken.objects.get().last_used_at > timezone.now() - timedelta(minutes=1)


def test_an_account_keeps_at_most_twenty_tokens(user):
    first = sign_in()
    for _ in range(20):
        sign_in()

    assert ApiToken.objects.filter(user=user).count() == 20
    assert client_with(f"Token {first['token']}").get("/api/circles/").status_code == 401


def test_an_inactive_account_token_is_refused(user):
    mine = sign_in()
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)

    assert client_with(f"Token {mine['token']}").get("/api/circles/").status_code == 401
