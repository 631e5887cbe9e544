"""Answers that show a share token or an API token are never cached: `Cache-Control:
no-store` on the share page, on every page reached through a share link (the token is in
its address and its links), on the API's share links and tokens."""

import pytest
from django.urls import reverse

from tests.api.conftest import client_with
from tracker.services import api_token_create, share_link_create

pytestmark = pytest.mark.django_db


def no_store(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


@pytest.fixture
def links(make_session, actor):
    session, _ = make_session()
    return session, {
        role: share_link_create(session_id=session.pk, role=role, actor=actor)
        for role in ("scorer", "viewer")
    }


def test_the_share_page_is_not_cached(client, user, links):
    session, _ = links
    client.force_login(user)

    response = client.get(reverse("member:share", kwargs={"session_id": session.pk}))

    assert response.status_code == 200
    assert no_store(response)


@pytest.mark.parametrize("page", ["tap", "standings", "deals", "settle", "players"])
def test_pages_through_a_scorer_link_are_not_cached(client, links, page):
    _, link = links
    response = client.get(reverse(f"link:{page}", kwargs={"token": link["scorer"].token}))

    assert response.status_code == 200
    assert no_store(response)


def test_a_refused_page_through_a_link_is_not_cached_either(client, links):
    _, link = links
    response = client.get(reverse("link:tap", kwargs={"token": link["viewer"].token}))

    assert no_store(response)


def test_member_pages_without_tokens_may_be_cached(client, user, links):
    session, _ = links
    client.force_login(user)

    response = client.get(reverse("member:standings", kwargs={"session_id": session.pk}))

    assert not no_store(response)


def test_the_apis_share_links_are_not_cached(user, links):
    session, link = links
    api = client_with(f"Token {api_token_create(user=user).key}")

    listed = api.get(f"/api/sessions/{session.pk}/share-links/")
    made = api.post(f"/api/sessions/{session.pk}/share-links/", {"role": "viewer"})
    replayed = api.post(
        f"/api/sessions/{session.pk}/share-links/", {"role": "scorer"}, HTTP_IDEMPOTENCY_KEY="k"
    )
    replayed = api.post(
        f"/api/sessions/{session.pk}/share-links/", {"role": "scorer"}, HTTP_IDEMPOTENCY_KEY="k"
    )
    revoked = api.post(f"/api/share-links/{made.json()['id']}/revoke/")

    assert [r.status_code for r in (listed, made, replayed, revoked)] == [200, 201, 201, 200]
    assert replayed["Idempotent-Replayed"] == "true"
    assert all(no_store(r) for r in (listed, made, replayed, revoked))


def test_the_apis_tokens_are_not_cached(user):
    signed_in = client_with().post(
        "/api/auth/token/", {"username": "host", "password": "table-of-four"}
    )
    listed = client_with(f"Token {signed_in.json()['token']}").get("/api/auth/tokens/")

    assert no_store(signed_in)
    assert no_store(listed)
