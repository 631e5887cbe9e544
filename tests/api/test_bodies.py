"""Request bodies are capped on every endpoint (MAX_REQUEST_BYTES), and a body refused for
its size or its number of fields is answered in JSON like every other API error."""

import pytest

from tests.api.conftest import client_with, db_state

pytestmark = pytest.mark.django_db

TOO_LARGE = {
    "code": "body_too_large",
    "detail": "The request body is too large: at most 65536 bytes.",
}


@pytest.mark.parametrize("path", ["/api/auth/token/", "/api/circles/", "/api/sessions/"])
def test_a_body_over_the_cap_is_413_json(api, path):
    before = db_state()

    response = api.post(path, data="x" * 70_000, content_type="application/json")

    assert response.status_code == 413
    assert response.json() == TOO_LARGE
    assert db_state() == before


def test_a_50_megabyte_sign_in_is_refused_before_it_is_read(user):
    # Content-Length says 50 MB; the body is never read, so none needs sending.
    response = client_with().post(
        "/api/auth/token/", data=b"", content_type="application/json", CONTENT_LENGTH="52428800"
    )

    assert response.status_code == 413
    assert response.json() == TOO_LARGE


def test_a_page_body_over_the_cap_is_413(member_client):
    response = member_client.post("/circles/new/", {"name": "x" * 70_000})

    assert response.status_code == 413


def test_too_many_form_fields_is_400_json(api):
    body = "&".join(f"field{number}=1" for number in range(1500))

    response = api.post(
        "/api/circles/", data=body, content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 400
    assert response.json() == {
        "code": "too_many_fields",
        "detail": "The request has too many fields: at most 1000.",
    }


def test_too_many_form_fields_at_sign_in_is_400_json(user):
    body = "&".join(f"field{number}=1" for number in range(1500))

    response = client_with().post(
        "/api/auth/token/", data=body, content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "too_many_fields"


@pytest.fixture
def member_client(client, user):
    client.force_login(user)
    return client
