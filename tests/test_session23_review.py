"""Session 23's review of ac3513b..HEAD: the next deal's id read with the records
(tracker/records.py), the sparklines' statement, payment details without the
serializer's lengths, the member removal's check order.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

import scoring
from tests.api.conftest import api, start, token  # noqa: F401 (fixtures)
from tests.conftest import values
from tests.views.conftest import member  # noqa: F401 (a fixture)
from tracker import services
from tracker.models import Deal, PaymentDetails
from tracker.records import live_records, live_records_and_next, read_deal_state

pytestmark = pytest.mark.django_db


def orm_next(deal: Deal) -> int | None:
    return (
        Deal.objects.filter(session_id=deal.session_id, number=deal.number + 1)
        .values_list("pk", flat=True)
        .first()
    )


def same_rows(deal: Deal):
    rows, following = live_records_and_next(Deal.objects.get(pk=deal.pk))
    alone = live_records(Deal.objects.get(pk=deal.pk))
    assert [(type(row), values(row)) for row in rows] == [(type(row), values(row)) for row in alone]
    assert [
        sorted(p.pk for p in row.not_played.all()) for row in rows if hasattr(row, "not_played")
    ] == [sorted(p.pk for p in row.not_played.all()) for row in alone if hasattr(row, "not_played")]
    assert following == orm_next(deal)
    return rows, following


# --- dac2c32: the next deal's id with the records ------------------------------------------


def test_the_next_deal_s_id_comes_with_the_records_in_every_state_of_a_deal(make_session, actor):
    """Guard: a deal with no records (the next one not opened), with taps, events and
    an undone record, filed (the next one exists, and is itself empty), and ended (no
    next deal), read alike on SQLite and PostgreSQL (the deal's row in the UNION ALL is
    all NULLs but its id: typed by the other branches, and sorted first on SQLite, last
    on PostgreSQL)."""
    session, p = make_session()
    first = session.deals.get()
    assert same_rows(first) == ([], None)
    services.deal_event_record(
        deal_id=first.pk,
        event=scoring.TwoBeaten(
            by=p["Ben"].pk, owner=p["Alice"].pk, beaten_with=scoring.Beater.BOMB, black=1
        ),
        actor=actor,
    )
    services.deal_tap(deal_id=first.pk, player_id=p["Cara"].pk, actor=actor)
    services.deal_tap(deal_id=first.pk, player_id=p["Dev"].pk, actor=actor)
    services.deal_undo(deal_id=first.pk, actor=actor)
    rows, following = same_rows(first)
    assert following is None and rows
    for name in ("Dev", "Alice", "Ben"):
        if Deal.objects.get(pk=first.pk).is_open:
            services.deal_tap(deal_id=first.pk, player_id=p[name].pk, actor=actor)
    second = session.deals.get(number=2)
    rows, following = same_rows(first)
    assert following == second.pk
    state = read_deal_state(Deal.objects.select_related("session").get(pk=first.pk))
    assert state.next_deal == second.pk
    assert same_rows(second) == ([], None)
    services.deal_tap(deal_id=second.pk, player_id=p["Ben"].pk, actor=actor)
    services.deal_end(deal_id=second.pk, actor=actor)
    assert same_rows(second)[1] is None
    ended = Deal.objects.select_related("session").get(pk=second.pk)
    assert read_deal_state(ended).next_deal is None


def test_the_next_deal_is_none_again_once_undo_withdraws_it(make_session, actor):
    """Guard: undoing the filing tap removes the empty next deal; the deal read after it
    (with the one statement) says there is none."""
    session, p = make_session()
    first = session.deals.get()
    for name in ("Alice", "Ben", "Cara"):
        services.deal_tap(deal_id=first.pk, player_id=p[name].pk, actor=actor)
    assert orm_next(first) is not None

    state = services.deal_undo(deal_id=first.pk, actor=actor)

    assert state.next_deal is None
    assert same_rows(first)[1] is None


# --- 7962cf7: the sparklines' statement ----------------------------------------------------


def test_the_sparklines_hold_the_last_40_and_count_them_all_past_40(make_session, actor):
    """Guard: more than 40 deals, a player who joins mid-session, and an End match on
    the empty deal (winnerless: not counted), as the ORM read them."""
    from tests.test_rows import orm_points_by_deal
    from tests.views.helpers import play_deals
    from tracker.selectors.standings import session_points_by_deal

    session, p = make_session()
    play_deals(session, p, 42, actor)
    services.players_seat(
        session_id=session.pk,
        players=[p["Alice"].pk, p["Ben"].pk, p["Cara"].pk, p["Dev"].pk, "Eve"],
        actor=actor,
    )
    p["Eve"] = session.seats.get(player__name="Eve").player
    for _ in range(2):
        deal = session.deals.get(status=Deal.Status.OPEN)
        for name in ("Eve", "Alice", "Ben", "Cara", "Dev"):
            if not Deal.objects.get(pk=deal.pk).is_open:
                break
            services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    open_deal = session.deals.get(status=Deal.Status.OPEN)
    services.deal_end(deal_id=open_deal.pk, actor=actor)  # nothing recorded: no winner

    for last in (1, 40, 100):
        assert session_points_by_deal(session, last=last) == orm_points_by_deal(session, last)
    count, series = session_points_by_deal(session, last=40)
    assert count == 44
    assert [number for number, _ in series] == list(range(5, 45))
    assert p["Eve"].pk in series[-1][1] and p["Eve"].pk not in series[0][1]


# --- 98b1848: payment details without the serializer's lengths ----------------------------


def test_long_payment_details_that_tidy_to_their_columns_are_stored_whole(start, api):  # noqa: F811
    """Guard: with no lengths in the serializer, what is stored is what the services
    tidied, within each column's max_length (a 60-character name of doubled spaces, a
    BIN and a link with spaces around them, an account number of spaces and dashes)."""
    table = start(players=("Alice", "Ben"))
    name = "NGUYEN  THI  ALICE  " * 3  # 60 characters; 45 once its spaces collapse
    body = {
        "bank_bin": "  970436  ",
        "account_number": " 0011-0019-3241-8 " + " " * 100,
        "account_name": name,
        "link": "   https://paypal.me/" + "a" * 180 + "   ",
    }

    response = api.put(f"/api/players/{table.p['Alice']}/payment-details/", body)

    assert response.status_code == 200, response.json()
    stored = PaymentDetails.objects.get()
    assert stored.bank_bin == "970436"
    assert stored.account_number == "0011001932418"
    assert stored.account_name == " ".join(name.split())
    assert stored.link == "https://paypal.me/" + "a" * 180
    for field in ("bank_bin", "account_number", "account_name", "link"):
        assert len(getattr(stored, field)) <= PaymentDetails._meta.get_field(field).max_length


@pytest.mark.parametrize(
    "body",
    [
        {"account_name": "A" * 51},
        {"account_name": "\u00a0" * 10 + "A" * 51},
        {"link": "https://paypal.me/" + "a" * 183},
        {"bank_bin": "970436" * 1000, "account_number": "1"},
        {"bank_bin": "970436", "account_number": "1 " * 5000},
    ],
)
def test_payment_details_too_long_for_their_columns_are_refused_not_a_500(start, api, body):  # noqa: F811
    """Guard: one past each column's length is a 400 with the services' code."""
    table = start(players=("Alice", "Ben"))
    api.raise_request_exception = False

    response = api.put(f"/api/players/{table.p['Alice']}/payment-details/", body)

    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] in {"invalid_account", "invalid_link", "invalid_bank"}
    assert not PaymentDetails.objects.exists()


# --- b7890cf: who may remove a member, first ----------------------------------------------


def test_on_the_page_a_member_removing_the_owner_is_refused_as_owner_only(
    client, circle, user, django_user_model, actor
):
    """Guard: the pages door gives the same refusal as the API (403, "Only the circle's
    owner..."), and the owner leaving is still 409 "hand it to another member first"."""
    friend = django_user_model.objects.create_user(username="friend", password="x")
    circle.members.add(friend)
    url = reverse("circle_member_remove", kwargs={"circle_id": circle.pk})
    client.force_login(friend)

    refused = client.post(url, {"member": str(user.pk), "key": "k1"})

    assert refused.status_code == 403
    assert "Only the circle&#x27;s owner can do this." in refused.text
    assert circle.members.filter(pk=user.pk).exists()
    client.force_login(user)
    stays = client.post(url, {"member": str(user.pk), "key": "k2"})
    assert stays.status_code == 409
    assert "hand it to another member first" in stays.text


# --- c62ee99: every code the app gives, listed --------------------------------------------
