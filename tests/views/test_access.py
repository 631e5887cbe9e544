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


# --- The circle's members, invites, "this is me", the account page: who may ------------
# The circle's owner, another member, an account outside the circle, and nobody signed
# in. A share link reaches none of these pages (they have no /s/<token>/ door).

PAGE_ROLES = ["owner", "member", "stranger", "anonymous"]


@pytest.fixture
def circle_world(circle, user, django_user_model, actor):
    from tracker.services import invite_create, player_create

    friend = django_user_model.objects.create_user(username="friend", password="x")
    outsider = django_user_model.objects.create_user(username="outsider", password="x")
    circle.members.add(friend)
    alice = player_create(circle=circle, name="Alice")
    invite = invite_create(circle=circle, actor=actor, max_uses=None)
    return {
        "circle": circle.pk,
        "users": {"owner": user, "member": friend, "stranger": outsider, "anonymous": None},
        "friend": friend.pk,
        "alice": alice.pk,
        "invite": invite,
    }


def page_cases():
    c = "/circles/{circle}"
    to_login = 302
    # name: (method, url, data, owner, member, stranger, anonymous)
    return {
        "members page": ("get", c + "/members/", {}, 200, 200, 404, to_login),
        "invite made": ("post", c + "/invites/", {"days": 7, "uses": "1"}, 302, 302, 404, to_login),
        "invite revoked": (
            "post",
            c + "/invites/revoke/",
            {"invite": "{invite}"},
            302,
            302,
            404,
            to_login,
        ),
        "member removed": (
            "post",
            c + "/members/remove/",
            {"member": "{friend}"},
            200,  # the page again, saying what went with them
            302,
            404,
            to_login,
        ),
        "circle handed over": (
            "post",
            c + "/members/owner/",
            {"member": "{friend}"},
            302,
            403,
            404,
            to_login,
        ),
        "this is me": ("post", c + "/players/{alice}/me/", {}, 302, 302, 404, to_login),
        "not me": ("post", c + "/players/{alice}/not-me/", {}, 302, 302, 404, to_login),
        "account page": ("get", "/accounts/", {}, 200, 200, 200, to_login),
        "join page": ("get", "/join/{token}/", {}, 302, 302, 200, 200),
        "join": ("post", "/join/{token}/", {}, 302, 302, 302, to_login),
    }


def fill(text, world):
    return str(text).format(
        circle=world["circle"],
        invite=world["invite"].pk,
        friend=world["friend"],
        alice=world["alice"],
        token=world["invite"].token,
    )


@pytest.mark.parametrize("case", list(page_cases()), ids=list(page_cases()))
def test_page_permission(client, circle_world, case):
    from django.db import transaction

    method, url, data, *expected = page_cases()[case]
    statuses = {}
    for role in PAGE_ROLES:
        with transaction.atomic():
            client.logout()
            if circle_world["users"][role] is not None:
                client.force_login(circle_world["users"][role])
            body = {name: fill(value, circle_world) for name, value in data.items()}
            response = getattr(client, method)(fill(url, circle_world), {**body, "key": role})
            statuses[role] = response.status_code
            transaction.set_rollback(True)

    assert statuses == dict(zip(PAGE_ROLES, expected, strict=True))
