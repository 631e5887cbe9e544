"""A session's reads are computed once a version (tracker.answers): the next caller at the
same version, with the same role and language, is answered from memory, and any change
moves the version on, so a kept answer is never a stale one."""

from __future__ import annotations

import pytest

from tests.api.conftest import JsonClient, client_with
from tests.api.test_payment_details import ALICE_BANK, two_of_us
from tests.api.test_watching import watched_paths
from tracker.models import Session, StandingTally
from tracker.services import session_tallies_rebuild, share_link_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("caller", ["token", "viewer"])
def test_a_second_read_at_the_same_version_costs_one_glance(
    start, api, actor, caller, django_assert_num_queries
):
    table = start()
    table.tap(table.deal, "Alice")
    if caller != "token":
        link = share_link_create(session_id=table.id, role=caller, actor=actor)
        api = client_with(f"Share {link.token}")
    for path in watched_paths(table):
        first = api.get(path)
        # The caller and the session's version in one statement (tracker.glance): the
        # answer is kept at that version, and sent as the long way sent it.
        with django_assert_num_queries(1):
            second = api.get(path)

        assert (first.status_code, second.status_code) == (200, 200)
        assert second.content == first.content
        for header in ("Content-Type", "ETag", "Cache-Control", "Vary", "Allow"):
            assert second[header] == first[header], header


def test_the_browsable_api_or_a_session_login_goes_the_long_way(start, api, user):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    kept = api.get(path)
    page = JsonClient()
    page.force_login(user)

    in_a_browser = api.get(path, HTTP_ACCEPT="text/html")
    signed_in = page.get(path)

    assert in_a_browser["Content-Type"].startswith("text/html")
    assert signed_in.content == kept.content


def test_a_change_is_read_at_once(start, api):
    table = start()
    paths = watched_paths(table)
    before = {path: api.get(path).json() for path in paths}

    table.tap(table.deal, "Alice", "Cara", "Ben")  # the deal is filed, the next one opens

    for path in paths:
        assert api.get(path).json() != before[path], path
    rows = api.get(f"/api/sessions/{table.id}/standings/").json()["rows"]
    assert {row["name"]: row["points"] for row in rows}["Alice"] == 3


def test_a_viewer_link_is_never_given_the_scorer_s_kept_answer(start, api, actor):
    table = two_of_us(start, currency="VND", stake="50000")
    api.put(f"/api/players/{table.p['Alice']}/payment-details/", ALICE_BANK)
    path = f"/api/sessions/{table.id}/settlement/"
    scorer = share_link_create(session_id=table.id, role="scorer", actor=actor)
    viewer = share_link_create(session_id=table.id, role="viewer", actor=actor)

    by_scorer = client_with(f"Share {scorer.token}").get(path).json()
    by_viewer = client_with(f"Share {viewer.token}").get(path).json()
    again_by_scorer = client_with(f"Share {scorer.token}").get(path).json()

    assert by_scorer["transfers"][0]["pay"]["account_number"] == "0011001932418"
    assert by_viewer["transfers"][0]["pay"] is None
    assert again_by_scorer == by_scorer


def test_payment_details_changed_are_read_at_once(start, api, actor):
    table = two_of_us(start, currency="VND", stake="50000")
    path = f"/api/sessions/{table.id}/settlement/"
    assert api.get(path).json()["transfers"][0]["pay"] is None

    api.put(f"/api/players/{table.p['Alice']}/payment-details/", ALICE_BANK)

    pay = api.get(path).json()["transfers"][0]["pay"]
    assert pay["account_number"] == "0011001932418"


def test_a_kept_answer_is_per_language(start, api):
    table = start()
    path = f"/api/sessions/{table.id}/"
    english = api.get(path)
    vietnamese = api.get(path, HTTP_ACCEPT_LANGUAGE="vi")

    assert english["ETag"] != vietnamese["ETag"]
    assert english["Content-Language"] == "en"
    assert vietnamese["Content-Language"] == "vi"


CARA_BANK = {**ALICE_BANK, "account_name": "TRAN CARA"}


def _cara_paid_then_left(start, api):
    """Cara pays Alice 50000 before the first deal, then leaves the table before anyone
    is dealt in: she has money in the session but no seat and no deal player."""
    table = start(players=("Alice", "Ben", "Cara"), currency="VND", stake="50000")
    paid = api.post(
        f"/api/sessions/{table.id}/payments/",
        {"from": table.p["Cara"], "to": table.p["Alice"], "amount": "50000"},
    )
    assert paid.status_code == 201, paid.json()
    seated = api.put(
        f"/api/sessions/{table.id}/players/",
        {"players": [table.p["Alice"], table.p["Ben"]]},
    )
    assert seated.status_code == 200, seated.json()
    return table


def test_payment_details_of_a_payee_who_left_the_table_are_read_at_once(start, api):
    table = _cara_paid_then_left(start, api)
    path = f"/api/sessions/{table.id}/settlement/"
    (transfer,) = api.get(path).json()["transfers"]  # kept: Alice owes Cara, no details
    assert (transfer["from"], transfer["to"], transfer["pay"]) == (
        table.p["Alice"],
        table.p["Cara"],
        None,
    )

    put = api.put(f"/api/players/{table.p['Cara']}/payment-details/", CARA_BANK)
    assert put.status_code == 200, put.json()

    pay = api.get(path).json()["transfers"][0]["pay"]
    assert pay is not None and pay["account_name"] == "TRAN CARA"


def test_renaming_a_payee_who_left_the_table_is_read_at_once(start, api):
    table = _cara_paid_then_left(start, api)
    api.put(f"/api/players/{table.p['Cara']}/payment-details/", CARA_BANK)
    path = f"/api/sessions/{table.id}/settlement/"
    before = api.get(path).json()["transfers"][0]["pay"]["vietqr"]
    assert "Cara" in before

    renamed = api.patch(f"/api/players/{table.p['Cara']}/", {"name": "Carol"})
    assert renamed.status_code == 200, renamed.json()

    after = api.get(path).json()["transfers"][0]["pay"]["vietqr"]
    assert "Carol" in after


def test_standings_rebuilt_are_read_at_once(start, api):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")
    path = f"/api/sessions/{table.id}/standings/"
    StandingTally.objects.filter(session_id=table.id).update(points=99)  # as a bad load
    assert {row["points"] for row in api.get(path).json()["rows"]} == {99}  # kept

    session_tallies_rebuild(session=Session.objects.get(pk=table.id))

    rows = {row["name"]: row["points"] for row in api.get(path).json()["rows"]}
    assert rows == {"Alice": 3, "Cara": 2, "Ben": 1, "Dev": 0}


# The standings show their rows only, and are kept by what the rows are made of
# (`answers.ROWS`, the session's `standings_version`): a tap that files nothing moves the
# version on but no row, and the next phone's first read is the kept answer.


def _standings(table) -> str:
    return f"/api/sessions/{table.id}/standings/"


@pytest.mark.parametrize("caller", ["token", "viewer"])
def test_standings_stay_kept_through_a_tap_that_files_nothing(
    start, api, actor, caller, django_assert_num_queries
):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")
    reader = api
    if caller == "viewer":
        reader = client_with(
            f"Share {share_link_create(session_id=table.id, role='viewer', actor=actor).token}"
        )
    before = reader.get(_standings(table))
    deal = table.deal

    table.tap(deal, "Dev")
    table.tap(deal, "Ben")
    with django_assert_num_queries(1):  # the glance: nothing else is read
        after = reader.get(_standings(table))
    held = reader.get(_standings(table), HTTP_IF_NONE_MATCH=before["ETag"])

    assert after.status_code == 200
    assert after.content == before.content
    # The tag is the version's: it moved, so a client holding the old one is sent the rows.
    assert after["ETag"] != before["ETag"]
    assert held.status_code == 200 and held.content == before.content


def test_standings_kept_by_rows_are_read_again_when_a_row_moves(start, api, actor):
    table = start()
    path = _standings(table)
    first = table.deal

    def points() -> dict[str, int]:
        return {row["name"]: row["points"] for row in api.get(path).json()["rows"]}

    assert points() == {"Alice": 0, "Ben": 0, "Cara": 0, "Dev": 0}
    table.tap(first, "Alice", "Cara")
    assert points() == {"Alice": 0, "Ben": 0, "Cara": 0, "Dev": 0}
    following = table.tap(first, "Ben")["next_deal"]  # filed
    assert points() == {"Alice": 3, "Cara": 2, "Ben": 1, "Dev": 0}

    assert api.post(f"/api/deals/{following}/undo/").status_code == 200  # filed no more
    assert points() == {"Alice": 0, "Ben": 0, "Cara": 0, "Dev": 0}

    table.tap(first, "Ben")  # filed again, Ben third
    assert points() == {"Alice": 3, "Cara": 2, "Ben": 1, "Dev": 0}
    renamed = api.patch(f"/api/players/{table.p['Ben']}/", {"name": "Benny"})
    assert renamed.status_code == 200, renamed.json()
    assert points() == {"Alice": 3, "Cara": 2, "Benny": 1, "Dev": 0}

    seated = api.put(
        f"/api/sessions/{table.id}/players/",
        {"players": [table.p["Alice"], table.p["Ben"], table.p["Cara"], table.p["Dev"], "Eve"]},
    )
    assert seated.status_code == 200, seated.json()
    assert points() == {"Alice": 3, "Cara": 2, "Benny": 1, "Dev": 0, "Eve": 0}


def test_a_session_login_keeps_the_standings_by_rows_too(
    start, api, user, django_assert_num_queries
):
    table = start()
    page = JsonClient()
    page.force_login(user)
    before = page.get(_standings(table))
    table.tap(table.deal, "Alice")

    with django_assert_num_queries(3):  # the sign-in, its account, the session: no rows
        after = page.get(_standings(table))

    assert after.content == before.content


def test_a_closed_deal_stays_kept_through_taps_and_an_open_one_does_not(
    start, api, django_assert_num_queries
):
    table = start()
    first = table.deal
    following = table.tap(first, "Alice", "Cara", "Ben")["next_deal"]
    closed = api.get(f"/api/deals/{first}/")
    open_before = api.get(f"/api/deals/{following}/")

    table.tap(following, "Dev")
    with django_assert_num_queries(1):  # the glance: the closed deal is as it was
        again = api.get(f"/api/deals/{first}/")
    open_after = api.get(f"/api/deals/{following}/")

    assert again.content == closed.content
    assert again["ETag"] != closed["ETag"]  # the tag is the version's
    assert [tap["player"] for tap in open_after.json()["taps"]] == [table.p["Dev"]]
    assert open_before.json()["taps"] == []


def test_a_correction_that_moves_no_total_is_read_at_once(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")
    before = api.get(f"/api/deals/{deal}/").json()
    order = [tap["player"] for tap in before["taps"]]

    corrected = api.post(f"/api/deals/{deal}/correction/", {"taps": order, "reason": "checked"})

    assert corrected.status_code == 200, corrected.json()
    after = api.get(f"/api/deals/{deal}/").json()
    assert after["points"] == before["points"]
    assert {tap["id"] for tap in after["taps"]}.isdisjoint(tap["id"] for tap in before["taps"])
    assert after == corrected.json()
