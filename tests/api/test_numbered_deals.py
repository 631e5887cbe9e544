"""Writes by session and deal number (`/api/sessions/{id}/deals/{number}/...`), where a
phone's offline queue sends what waited: the same gate, reach and answers as by id."""

import pytest

from tests.api.conftest import client_with, db_state
from tracker.models import IdempotencyKey, Tap

pytestmark = pytest.mark.django_db


def numbered(table, number, what="taps"):
    return f"/api/sessions/{table.id}/deals/{number}/{what}/"


def test_a_tap_by_number_answers_as_a_tap_by_id(start, api):
    table = start()
    by_id = table.api.post(f"/api/deals/{table.deal}/taps/", {"player": table.p["Alice"]})

    by_number = api.post(numbered(table, 1), {"player": table.p["Cara"]})

    assert (by_id.status_code, by_number.status_code) == (201, 201)
    assert [tap["player"] for tap in by_number.json()["taps"]] == [
        table.p["Alice"],
        table.p["Cara"],
    ]
    assert by_number.json()["id"] == by_id.json()["id"]


def test_a_replay_with_the_same_key_gets_the_same_answer_and_taps_once(start, api):
    table = start()
    first = api.post(numbered(table, 1), {"player": table.p["Alice"]}, HTTP_IDEMPOTENCY_KEY="q1")

    again = api.post(numbered(table, 1), {"player": table.p["Alice"]}, HTTP_IDEMPOTENCY_KEY="q1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert Tap.objects.count() == 1
    assert IdempotencyKey.objects.count() == 1


def test_a_queued_evening_files_deal_one_and_taps_deal_two_by_number(start, api):
    table = start()
    for name in ("Alice", "Cara", "Ben"):
        assert api.post(numbered(table, 1), {"player": table.p[name]}).status_code == 201

    second = api.post(numbered(table, 2), {"player": table.p["Dev"]})

    assert second.status_code == 201
    assert (second.json()["number"], second.json()["status"]) == (2, "open")
    assert second.json()["leader"] == table.p["Alice"]


def test_events_and_undo_by_number(start, api):
    table = start()
    chopped = {"type": "two_beaten", "by": table.p["Ben"], "owner": table.p["Alice"]}
    recorded = api.post(numbered(table, 1, "events"), {**chopped, "with": "cutup", "black": 1})
    assert recorded.status_code == 201, recorded.json()

    undone = api.post(numbered(table, 1, "undo"))

    assert undone.status_code == 200
    assert undone.json()["ledger"] == []


def test_a_deal_not_yet_open_is_a_conflict_that_says_so(start, api):
    table = start()
    before = db_state()

    response = api.post(numbered(table, 2), {"player": table.p["Alice"]})

    assert response.status_code == 409
    assert response.json() == {
        "code": "deal_not_open",
        "detail": "Deal 2 is not open yet: the deal before it has not been filed on the server.",
    }
    assert db_state() == before


@pytest.mark.parametrize("number", [0, 3, 999])
def test_a_number_beyond_the_next_deal_is_not_found(start, api, number):
    table = start()

    response = api.post(numbered(table, number), {"player": table.p["Alice"]})

    assert response.status_code == 404
    assert response.json() == {
        "code": "deal_not_found",
        "detail": f"There is no deal {number} in this session.",
    }


def test_another_account_finds_nothing(start, stranger_api):
    table = start()

    response = stranger_api.post(numbered(table, 1), {"player": table.p["Alice"]})

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": f"There is no session {table.id}."}


def test_a_viewer_link_may_not_write(start, api):
    table = start()
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "viewer"}).json()

    response = client_with(f"Share {link['token']}").post(
        numbered(table, 1), {"player": table.p["Alice"]}
    )

    assert response.status_code == 403
    assert response.json()["code"] == "viewer_read_only"
    assert Tap.objects.count() == 0


def test_a_scorer_link_taps_by_number(start, api):
    table = start()
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()

    response = client_with(f"Share {link['token']}").post(
        numbered(table, 1), {"player": table.p["Alice"]}, HTTP_IDEMPOTENCY_KEY="link-1"
    )

    assert response.status_code == 201
    assert Tap.objects.count() == 1


def test_a_tap_by_number_costs_two_queries_more_than_by_id(start, api, django_assert_num_queries):
    table = start()
    deal = table.deal
    api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]})
    # By id: 1 token, then the tap: 2 savepoint, 3 the lock that also finds the deal in
    # reach, 4 its players, 5 its taps and events, 6 the tap, 7 places, 8 release.
    with django_assert_num_queries(8):
        api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Cara"]})
    api.post(f"/api/deals/{deal}/undo/")
    # By number: the session in reach and its deal by number are read first.
    with django_assert_num_queries(10):
        response = api.post(numbered(table, 1), {"player": table.p["Cara"]})
    assert response.status_code == 201
