"""Share links: make, list, revoke, and use them as `Authorization: Share <token>`."""

import pytest

from tests.api.conftest import client_with
from tracker.models import ShareLink, Tap

pytestmark = pytest.mark.django_db


def test_share_link_create_answers_the_token(start, api, user):
    table = start()

    response = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"})

    assert response.status_code == 201
    link = ShareLink.objects.get()
    body = response.json()
    assert body == {
        "id": link.pk,
        "session": table.id,
        "role": "scorer",
        "token": link.token,
        "active": True,
        "created_at": body["created_at"],
        "revoked_at": None,
    }
    assert len(link.token) == 43  # secrets.token_urlsafe(32)
    assert link.created_by == user


def test_a_new_link_revokes_the_active_link_of_its_role(start, api):
    table = start()
    old = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "viewer"}).json()
    scorer = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()

    new = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "viewer"}).json()

    listed = api.get(f"/api/sessions/{table.id}/share-links/").json()
    assert [(link["id"], link["active"]) for link in listed] == [
        (new["id"], True),
        (scorer["id"], True),
        (old["id"], False),
    ]
    refused = client_with(f"Share {old['token']}").get(f"/api/sessions/{table.id}/")
    assert refused.status_code == 401
    # The code the pages' refusal has, as a revoked token's is `token_not_valid`.
    assert refused.json()["code"] == "link_revoked"


def test_share_link_revoke_stops_it_working(start, api):
    table = start()
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()
    phone = client_with(f"Share {link['token']}")
    assert phone.get(f"/api/sessions/{table.id}/").status_code == 200

    response = api.post(f"/api/share-links/{link['id']}/revoke/")

    assert response.status_code == 200
    assert (response.json()["active"], response.json()["revoked_at"] is None) == (False, False)
    assert ShareLink.objects.get().revoked_at is not None
    refused = phone.get(f"/api/sessions/{table.id}/")
    assert refused.status_code == 401
    assert refused.json() == {
        "code": "link_revoked",
        "detail": "This share link was revoked; ask for a new one.",
    }
    again = api.post(f"/api/share-links/{link['id']}/revoke/")
    assert again.status_code == 409
    assert again.json() == {"code": "link_revoked", "detail": "This share link is already revoked."}


def test_scorer_link_taps_and_the_tap_is_attributed_to_it(start, api):
    table = start()
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()
    phone = client_with(f"Share {link['token']}")

    response = phone.post(f"/api/deals/{table.deal}/taps/", {"player": table.p["Alice"]})

    assert response.status_code == 201
    tap = Tap.objects.get()
    assert (tap.recorded_by, tap.recorded_via_id) == (None, link["id"])


def test_scorer_link_lists_only_its_session(start, api):
    table = start()
    start(players=("X", "Y"))
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "viewer"}).json()

    response = client_with(f"Share {link['token']}").get("/api/sessions/")

    assert [session["id"] for session in response.json()["results"]] == [table.id]


def test_links_of_one_session_do_not_reach_another(start, api):
    table, other = start(), start(players=("X", "Y"))
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()
    phone = client_with(f"Share {link['token']}")

    for response in (
        phone.get(f"/api/sessions/{other.id}/"),
        phone.get(f"/api/deals/{other.deal}/"),
        phone.post(f"/api/deals/{other.deal}/taps/", {"player": other.p["X"]}),
    ):
        assert response.status_code == 404
    assert Tap.objects.count() == 0


def test_an_unknown_or_malformed_share_token_is_refused(start):
    table = start()

    for header, code, detail in (
        ("Share nope", "link_not_valid", "This share link is not valid."),
        ("Share " + "x" * 500, "link_not_valid", "This share link is not valid."),
        ("Share", "authentication_failed", "Send a share link as: Authorization: Share <token>."),
        (
            "Share a b",
            "authentication_failed",
            "Send a share link as: Authorization: Share <token>.",
        ),
    ):
        response = client_with(header).get(f"/api/sessions/{table.id}/")
        assert response.status_code == 401
        assert response.json() == {"code": code, "detail": detail}


def test_share_link_token_is_compared_in_constant_time(start, api, monkeypatch):
    import secrets

    from tracker import access

    table = start()
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "viewer"}).json()
    compared = []
    original = secrets.compare_digest

    def compare_digest(a, b):
        compared.append((a, b))
        return original(a, b)

    monkeypatch.setattr(access.secrets, "compare_digest", compare_digest)

    client_with(f"Share {link['token']}").get(f"/api/sessions/{table.id}/")

    # Its glance (tracker.glance) compares in constant time; the authentication that
    # follows takes the link the glance found and compared (nothing kept yet).
    assert compared == [(link["token"].encode(), link["token"].encode())]

    compared.clear()
    client_with(f"Share {link['token']}").get(f"/api/sessions/{table.id}/deals/")
    assert compared == [(link["token"].encode(), link["token"].encode())]  # no glance: one
