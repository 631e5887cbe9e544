"""Sessions: start, list, read, reseat, end."""

import pytest

from tracker.models import Circle, Deal, Player, Session

pytestmark = pytest.mark.django_db


def test_session_create_answers_201_with_players_and_current_deal(api, circle):
    ben = Player.objects.create(circle=circle, name="Ben")

    response = api.post(
        "/api/sessions/",
        {
            "circle": circle.pk,
            "name": "Friday",
            "players": ["Alice", ben.pk, "Cara"],
            "format": "podium",
            "stake": "0.50",
            "currency": "eur",
            "stake_rule": "loser_pays",
            "hand_size": 17,
            "options": {"guaransheed": True, "got_to_get_in": True},
        },
    )

    assert response.status_code == 201
    session = Session.objects.get()
    deal = Deal.objects.get()
    alice, cara = (Player.objects.get(name=name) for name in ("Alice", "Cara"))
    body = response.json()
    assert body == {
        "id": session.pk,
        "circle": circle.pk,
        "name": "Friday",
        "format": "podium",
        "stake_rule": "loser_pays",
        "stake": "0.50",
        "currency": "EUR",
        "hand_size": 17,
        "options": {
            "guaransheed": True,
            "got_to_get_in": True,
            "instant_wins": False,
            "trading": False,
            "penalties": False,
            "five_consecutive_pairs": False,
        },
        "players": [
            {"id": alice.pk, "name": "Alice", "seat": 1},
            {"id": ben.pk, "name": "Ben", "seat": 2},
            {"id": cara.pk, "name": "Cara", "seat": 3},
        ],
        "current_deal": {"id": deal.pk, "number": 1},
        "started_at": body["started_at"],
        "ended_at": None,
        "settled": True,
        "open": "0.00",
    }


def test_session_create_takes_the_spec_defaults(start):
    table = start()

    session = table.session
    assert (session["format"], session["stake_rule"], session["stake"], session["currency"]) == (
        "podium",
        "loser_pays",
        "1.00",
        "USD",
    )
    assert session["hand_size"] == 13
    assert set(session["options"].values()) == {False}


def test_session_list_is_paginated_newest_first(start, api):
    first, second = start(), start(players=("X", "Y"))

    response = api.get("/api/sessions/")

    assert response.status_code == 200
    body = response.json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    assert [session["id"] for session in body["results"]] == [second.id, first.id]


def test_session_list_filters_by_circle(start, api, user):
    table = start()
    other = Circle.objects.create(owner=user, name="Other")
    other.members.add(user)

    assert [s["id"] for s in api.get(f"/api/sessions/?circle={other.pk}").json()["results"]] == []
    assert [
        s["id"]
        for s in api.get(f"/api/sessions/?circle={table.session['circle']}").json()["results"]
    ] == [table.id]
    for circle in ("abc", "²", "9" * 5000):
        response = api.get(f"/api/sessions/?circle={circle}")
        assert response.status_code == 400
        assert response.json()["detail"].startswith("circle: ")


def test_session_detail_reads_the_session(start, api):
    table = start()

    response = api.get(f"/api/sessions/{table.id}/")

    assert response.status_code == 200
    assert response.json() == table.session


def test_session_end_closes_the_open_deal(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice")

    response = api.post(f"/api/sessions/{table.id}/end/")

    assert response.status_code == 200
    assert response.json()["current_deal"] is None
    assert response.json()["ended_at"] is not None
    assert api.get(f"/api/deals/{deal}/").json()["status"] == "ended"
    again = api.post(f"/api/sessions/{table.id}/end/")
    assert again.status_code == 409
    assert again.json() == {"code": "session_ended", "detail": "This session has already ended."}


def test_session_players_reseats_the_empty_open_deal(start, api):
    table = start()

    response = api.put(
        f"/api/sessions/{table.id}/players/", {"players": [table.p["Ben"], "Eve", table.p["Alice"]]}
    )

    assert response.status_code == 200
    assert [(p["name"], p["seat"]) for p in response.json()["players"]] == [
        ("Ben", 1),
        ("Eve", 2),
        ("Alice", 3),
    ]
    deal = api.get(f"/api/deals/{table.deal}/").json()
    assert [table.name.get(p["player"], "Eve") for p in deal["players"]] == ["Ben", "Eve", "Alice"]


def test_session_players_refused_once_the_deal_has_started(start, api):
    table = start()
    table.tap(table.deal, "Alice")

    response = api.put(f"/api/sessions/{table.id}/players/", {"players": ["Ben", "Cara"]})

    assert response.status_code == 409
    assert response.json() == {
        "code": "deal_started",
        "detail": "Players can change only between deals: finish or undo this deal first.",
    }


def test_session_of_another_circle_is_not_found(start, stranger_api):
    table = start()

    for response in (
        stranger_api.get(f"/api/sessions/{table.id}/"),
        stranger_api.post(f"/api/sessions/{table.id}/end/"),
        stranger_api.get(f"/api/sessions/{table.id}/deals/"),
        stranger_api.get(f"/api/sessions/{table.id}/standings/"),
        stranger_api.get(f"/api/sessions/{table.id}/settlement/"),
    ):
        assert response.status_code == 404
        assert response.json() == {
            "code": "not_found",
            "detail": f"There is no session {table.id}.",
        }
    assert stranger_api.get("/api/sessions/").json()["results"] == []
