"""A page writes only within the session it was opened for: the deal id a form posts
must be one of that session's, whoever sends it (a member of another circle with a
session of their own, or another session's scorer link)."""

import pytest
from django.urls import reverse

from tests.views.helpers import open_deal, play_deals
from tracker.access import Actor
from tracker.models import Correction, Deal, DealPlayer, Tap
from tracker.services import circle_create, session_create, share_link_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_table(django_user_model):
    """Another circle's session, with one filed deal and an open one."""
    owner = django_user_model.objects.create_user(username="other", password="x")
    actor = Actor(user=owner)
    circle = circle_create(owner=owner, name="Other table")
    session = session_create(
        circle=circle, name="Saturday", players=["Wu", "Xan", "Yen", "Zoe"], actor=actor
    )
    players = {seat.player.name: seat.player for seat in session.seats.select_related("player")}
    play_deals(
        session, {"Alice": players["Wu"], "Cara": players["Xan"], "Ben": players["Yen"]}, 1, actor
    )
    return session, players


def post(client, session, name, data):
    return client.post(reverse(f"member:{name}", kwargs={"session_id": session.pk}), data)


def test_a_tap_on_another_sessions_deal_is_refused(member, table, other_table):
    session, _ = table
    other, players = other_table
    deal = open_deal(other)

    response = post(member, session, "tap_player", {"deal": deal.pk, "player": players["Wu"].pk})

    assert response.status_code == 404
    assert f"There is no deal {deal.pk} in this session." in response.text
    assert not Tap.objects.filter(deal=deal).exists()


def test_undo_on_another_sessions_filed_deal_is_refused(member, table, other_table):
    session, _ = table
    other, _ = other_table
    filed = other.deals.get(number=1)

    response = post(member, session, "undo", {"deal": filed.pk})

    filed.refresh_from_db()
    assert response.status_code == 404
    assert filed.status == Deal.Status.FILED


def test_a_hand_on_another_sessions_filed_deal_is_refused(member, table, other_table):
    session, _ = table
    other, players = other_table
    filed = other.deals.get(number=1)

    response = post(
        member,
        session,
        "event",
        {"deal": filed.pk, "type": "hand", "player": players["Zoe"].pk, "cards": 3},
    )

    assert response.status_code == 404
    assert not Correction.objects.filter(deal=filed).exists()


def test_a_scorer_link_taps_only_its_own_sessions_deals(client, table, actor, other_table):
    session, _ = table
    other, players = other_table
    deal = open_deal(other)
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    url = reverse("link:tap_player", kwargs={"token": link.token})

    response = client.post(url, {"deal": deal.pk, "player": players["Wu"].pk})

    assert response.status_code == 404
    assert not Tap.objects.filter(deal=deal).exists()


def test_a_players_form_for_a_deal_since_filed_changes_nothing(member, table, actor):
    session, players = table
    old = open_deal(session)
    play_deals(session, players, 1, actor)
    new = open_deal(session)
    seated = list(DealPlayer.objects.filter(deal=new).order_by("seat").values_list("player_id"))

    response = post(member, session, "players", {"deal": old.pk, "drop": players["Dev"].pk})

    assert response.status_code == 409
    assert "That form was for another deal; look again." in response.text
    assert (
        list(DealPlayer.objects.filter(deal=new).order_by("seat").values_list("player_id"))
        == seated
    )
