"""A tap says who was out as the phone showed it (`out_before`): a deal another phone moved on
meanwhile refuses it, rather than giving it a place the phone never showed (found by a
tester: two taps queued offline as 1st and 2nd were stored 2nd and 3rd after another
phone's tap, and filed the deal)."""

import pytest

from tests.api.conftest import db_state
from tracker.models import Tap

pytestmark = pytest.mark.django_db


def test_a_tap_after_what_the_deal_holds_is_saved(start, api):
    table = start()
    url = f"/api/deals/{table.deal}/taps/"
    assert api.post(url, {"player": table.p["Alice"], "out_before": []}).status_code == 201

    response = api.post(url, {"player": table.p["Ben"], "out_before": [table.p["Alice"]]})

    assert response.status_code == 201
    assert [tap["player"] for tap in response.json()["taps"]] == [table.p["Alice"], table.p["Ben"]]


@pytest.mark.parametrize("shown", [[], ["Ben"], ["Cara", "Alice"]])
def test_a_tap_on_a_deal_moved_on_since_is_refused_and_saves_nothing(start, api, shown):
    table = start()
    url = f"/api/deals/{table.deal}/taps/"
    assert api.post(url, {"player": table.p["Alice"]}).status_code == 201  # another phone
    before = db_state()

    refused = api.post(url, {"player": table.p["Dev"], "out_before": [table.p[n] for n in shown]})

    assert refused.status_code == 409
    assert refused.json() == {
        "code": "deal_moved_on",
        "detail": "Someone else recorded on deal 1 meanwhile: "
        "look at who is out now and tap again.",
    }
    assert db_state() == before


def test_a_tap_without_after_is_not_checked(start, api):
    table = start()
    url = f"/api/deals/{table.deal}/taps/"
    api.post(url, {"player": table.p["Alice"]})

    assert api.post(url, {"player": table.p["Ben"]}).status_code == 201
    assert Tap.objects.count() == 2


@pytest.mark.parametrize("after", ["Alice", [0], ["x"], list(range(1, 12))])
def test_a_bad_after_is_refused(start, api, after):
    table = start()

    response = api.post(
        f"/api/deals/{table.deal}/taps/", {"player": table.p["Ben"], "out_before": after}
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert Tap.objects.count() == 0
