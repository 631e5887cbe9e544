"""The account page: the account's API tokens, revoked one by one or all at once; the
password change page; no password reset pages (accounts have no email to send to)."""

import pytest

from tests.api.conftest import client_with
from tracker.models import ApiToken
from tracker.services import api_token_create

pytestmark = pytest.mark.django_db

NO_STORE = "max-age=0, no-cache, no-store, must-revalidate, private"


def test_the_account_page_lists_tokens_never_cached(member, user):
    phone = api_token_create(user=user, name="phone")

    response = member.get("/accounts/")

    assert response.status_code == 200
    assert response["Cache-Control"] == NO_STORE
    assert "phone" in response.text
    assert phone.key[:8] in response.text
    assert phone.key not in response.text


def test_a_token_revoked_on_the_page_stops_working(member, user):
    phone = api_token_create(user=user, name="phone")
    laptop = api_token_create(user=user, name="laptop")

    response = member.post("/accounts/", {"token": phone.token.pk, "key": "k1"})

    assert response.status_code == 302
    assert client_with(f"Token {phone.key}").get("/api/circles/").status_code == 401
    assert client_with(f"Token {laptop.key}").get("/api/circles/").status_code == 200


def test_revoke_every_token(member, user):
    for name in ("phone", "laptop"):
        api_token_create(user=user, name=name)

    assert member.post("/accounts/", {"key": "k1"}).status_code == 302

    assert ApiToken.objects.filter(user=user).count() == 0


def test_another_accounts_token_is_not_found(member, user, django_user_model):
    other = django_user_model.objects.create_user(username="other", password="x")
    theirs = api_token_create(user=other)

    response = member.post("/accounts/", {"token": theirs.token.pk, "key": "k1"})

    assert response.status_code == 404
    assert f"There is no token {theirs.token.pk}." in response.text
    assert ApiToken.objects.filter(user=other).count() == 1


@pytest.mark.parametrize("token", ["abc", "1.5", "1e3", "NaN", "٣", "99999999999999999999"])
def test_a_token_id_that_is_no_id_is_400(member, user, token):
    api_token_create(user=user)

    response = member.post("/accounts/", {"token": token, "key": "k1"})

    assert response.status_code == 400
    assert ApiToken.objects.filter(user=user).count() == 1


def test_the_account_page_asks_anonymous_to_sign_in(client):
    response = client.get("/accounts/")

    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/accounts/"


def test_the_password_change_page_is_ours(member):
    response = member.get("/accounts/password_change/")

    assert response.status_code == 200
    assert "signs out every app" in response.text


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/password_reset/",
        "/accounts/password_reset/done/",
        "/accounts/reset/MQ/set-password/",
        "/accounts/reset/done/",
    ],
)
def test_there_are_no_password_reset_pages(client, path):
    assert client.get(path).status_code == 404
