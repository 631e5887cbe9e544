"""Circles and players: list, create, read, rename."""

import pytest

from tracker.models import Circle, Player

pytestmark = pytest.mark.django_db


def test_circle_create_answers_201_with_id_and_name(api, user):
    response = api.post("/api/circles/", {"name": "  Sunday   lunch "})

    assert response.status_code == 201
    circle = Circle.objects.get(name="Sunday lunch")
    assert response.json() == {"id": circle.pk, "name": "Sunday lunch"}
    assert list(circle.members.all()) == [user]


def test_circle_list_shows_only_my_circles(api, circle, stranger):
    Circle.objects.create(owner=stranger, name="Elsewhere").members.add(stranger)

    response = api.get("/api/circles/")

    assert response.status_code == 200
    assert response.json() == [{"id": circle.pk, "name": "Friday table"}]


def test_circle_detail_and_rename(api, circle):
    assert api.get(f"/api/circles/{circle.pk}/").json() == {"id": circle.pk, "name": "Friday table"}

    response = api.patch(f"/api/circles/{circle.pk}/", {"name": "Friday night"})

    assert response.status_code == 200
    assert response.json() == {"id": circle.pk, "name": "Friday night"}
    circle.refresh_from_db()
    assert circle.name == "Friday night"


def test_circle_rename_to_blank_is_refused(api, circle):
    response = api.patch(f"/api/circles/{circle.pk}/", {"name": "   "})

    assert response.status_code == 400
    assert response.json() == {"code": "invalid", "detail": "The circle needs a name."}


def test_player_create_list_and_rename(api, circle):
    created = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"})
    assert created.status_code == 201
    alice = Player.objects.get(name="Alice")
    assert created.json() == {"id": alice.pk, "name": "Alice", "circle": circle.pk, "account": None}
    api.post(f"/api/circles/{circle.pk}/players/", {"name": "Ben"})

    listed = api.get(f"/api/circles/{circle.pk}/players/")
    assert [player["name"] for player in listed.json()] == ["Alice", "Ben"]

    renamed = api.patch(f"/api/players/{alice.pk}/", {"name": "Alicia"})
    assert renamed.status_code == 200
    assert renamed.json() == {
        "id": alice.pk,
        "name": "Alicia",
        "circle": circle.pk,
        "account": None,
    }
    assert api.get(f"/api/players/{alice.pk}/").json()["name"] == "Alicia"


def test_player_create_with_a_taken_name_is_a_conflict(api, circle):
    api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"})

    response = api.post(f"/api/circles/{circle.pk}/players/", {"name": "alice"})

    assert response.status_code == 409
    assert response.json() == {
        "code": "conflict",
        "detail": "Alice is already a player in Friday table.",
    }
    assert Player.objects.count() == 1


def test_player_rename_to_a_taken_name_is_a_conflict(api, circle):
    api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"})
    ben = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Ben"}).json()

    response = api.patch(f"/api/players/{ben['id']}/", {"name": "ALICE"})

    assert response.status_code == 409
    assert response.json() == {
        "code": "conflict",
        "detail": "Alice is already a player in Friday table.",
    }


def test_circle_of_someone_else_is_not_found(api, stranger):
    theirs = Circle.objects.create(owner=stranger, name="Elsewhere")
    theirs.members.add(stranger)

    for response in (
        api.get(f"/api/circles/{theirs.pk}/"),
        api.patch(f"/api/circles/{theirs.pk}/", {"name": "Mine now"}),
        api.get(f"/api/circles/{theirs.pk}/players/"),
        api.post(f"/api/circles/{theirs.pk}/players/", {"name": "Intruder"}),
    ):
        assert response.status_code == 404
        assert response.json() == {
            "code": "not_found",
            "detail": f"There is no circle {theirs.pk}.",
        }
    assert Player.objects.count() == 0
