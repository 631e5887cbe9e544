"""Circles are for friends: invite links (expiring, revocable, single- or multi-use),
joining by one, members listed, removed by the owner or leaving (not the owner), the
circle handed over, and "this is me" so the leaderboard can say which player you are."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.conftest import client_with, db_state
from tracker.models import Circle, Invite
from tracker.services import api_token_create, share_link_create

pytestmark = pytest.mark.django_db

NO_STORE = "max-age=0, no-cache, no-store, must-revalidate, private"


@pytest.fixture
def friend(django_user_model):
    return django_user_model.objects.create_user(username="friend", password="x")


def api_of(user):
    return client_with(f"Token {api_token_create(user=user).key}")


def invite(api, circle, **body):
    response = api.post(f"/api/circles/{circle.pk}/invites/", body)
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_member_makes_an_invite_link_never_cached(api, circle):
    response = api.post(f"/api/circles/{circle.pk}/invites/", {})

    body = response.json()
    assert response.status_code == 201
    assert response["Cache-Control"] == NO_STORE
    assert body["url"] == f"http://testserver/join/{body['token']}/"
    assert (body["max_uses"], body["uses"], body["active"]) == (1, 0, True)
    assert len(body["token"]) >= 43  # 256 random bits


def test_a_signed_in_friend_joins_with_the_invite(api, circle, friend):
    token = invite(api, circle)["token"]
    theirs = api_of(friend)
    assert theirs.get(f"/api/circles/{circle.pk}/").status_code == 404

    joined = theirs.post("/api/invites/accept/", {"token": token})

    assert joined.status_code == 200
    assert joined.json() == {"id": circle.pk, "name": "Friday table"}
    assert theirs.get(f"/api/circles/{circle.pk}/").status_code == 200
    assert sorted(m["username"] for m in api.get(f"/api/circles/{circle.pk}/members/").json()) == [
        "friend",
        "host",
    ]


def test_a_single_use_invite_lets_one_person_in(api, circle, friend, django_user_model):
    token = invite(api, circle)["token"]
    api_of(friend).post("/api/invites/accept/", {"token": token})
    late = django_user_model.objects.create_user(username="late", password="x")

    refused = api_of(late).post("/api/invites/accept/", {"token": token})

    assert refused.status_code == 404
    assert refused.json() == {
        "code": "invite_used_up",
        "detail": "This invite has been used as often as it may be; ask for a new one.",
    }
    assert not circle.members.filter(pk=late.pk).exists()


def test_an_invite_for_anyone_lets_many_in(api, circle, django_user_model):
    token = invite(api, circle, max_uses=None, days=30)["token"]
    for number in range(5):
        friend = django_user_model.objects.create_user(username=f"f{number}", password="x")
        assert api_of(friend).post("/api/invites/accept/", {"token": token}).status_code == 200

    assert circle.members.count() == 6


def test_joining_again_uses_nothing(api, circle, friend):
    token = invite(api, circle, max_uses=2)["token"]
    theirs = api_of(friend)
    theirs.post("/api/invites/accept/", {"token": token})

    again = theirs.post("/api/invites/accept/", {"token": token})

    assert again.status_code == 200
    assert Invite.objects.get().uses == 1


def test_an_expired_invite_is_refused(api, circle, friend):
    token = invite(api, circle)["token"]
    Invite.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    refused = api_of(friend).post("/api/invites/accept/", {"token": token})

    assert (refused.status_code, refused.json()["code"]) == (404, "invite_expired")


def test_a_revoked_invite_is_refused(api, circle, friend):
    made = invite(api, circle)

    revoked = api.post(f"/api/invites/{made['id']}/revoke/")
    refused = api_of(friend).post("/api/invites/accept/", {"token": made["token"]})

    assert revoked.status_code == 200
    assert revoked.json()["active"] is False
    assert (refused.status_code, refused.json()["code"]) == (404, "invite_revoked")
    assert api.get(f"/api/circles/{circle.pk}/invites/").json() == []


@pytest.mark.parametrize("token", ["nope", "", "a\x00b", "\u202e" * 10, "x" * 65])
def test_a_token_that_is_no_invite_is_refused(friend, token):
    theirs = api_of(friend)
    before = db_state()

    refused = theirs.post("/api/invites/accept/", {"token": token})

    assert refused.status_code in (400, 404)
    assert db_state() == before


@pytest.mark.parametrize(
    "body, detail",
    [
        ({"days": 0}, "days: Ensure this value is greater than or equal to 1."),
        ({"days": 31}, "days: Ensure this value is less than or equal to 30."),
        ({"max_uses": 0}, "max_uses: Ensure this value is greater than or equal to 1."),
        ({"max_uses": 101}, "max_uses: Ensure this value is less than or equal to 100."),
    ],
)
def test_an_invite_out_of_bounds_is_refused(api, circle, body, detail):
    response = api.post(f"/api/circles/{circle.pk}/invites/", body)

    assert (response.status_code, response.json()["detail"]) == (400, detail)


def test_a_circle_has_at_most_twenty_live_invites(api, circle):
    for _ in range(20):
        invite(api, circle)

    refused = api.post(f"/api/circles/{circle.pk}/invites/", {})

    assert (refused.status_code, refused.json()["code"]) == (409, "too_many_invites")


def test_a_share_link_cannot_join_a_circle(api, circle, make_session, actor):
    token = invite(api, circle)["token"]
    session, _ = make_session()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    refused = client_with(f"Share {link.token}").post("/api/invites/accept/", {"token": token})

    assert refused.status_code == 403


# --- Members --------------------------------------------------------------------------


@pytest.fixture
def joined(api, circle, friend):
    api_of(friend).post("/api/invites/accept/", {"token": invite(api, circle)["token"]})
    return friend


def test_members_are_listed_with_the_owner(api, circle, joined, user):
    response = api.get(f"/api/circles/{circle.pk}/members/")

    assert response.json() == [
        {"id": joined.pk, "username": "friend", "owner": False, "player": None},
        {"id": user.pk, "username": "host", "owner": True, "player": None},
    ]


def test_a_member_accepting_the_invite_they_spent_is_answered_with_the_circle(api, circle, friend):
    token = invite(api, circle)["token"]  # for one join
    theirs = api_of(friend)
    assert theirs.post("/api/invites/accept/", {"token": token}).status_code == 200

    again = theirs.post("/api/invites/accept/", {"token": token})

    assert (again.status_code, again.json()["id"]) == (200, circle.pk)
    assert Invite.objects.get(token=token).uses == 1
    # A stranger is still told it is spent.
    stranger = api_of(type(friend).objects.create_user(username="late", password="x"))
    late = stranger.post("/api/invites/accept/", {"token": token})
    assert (late.status_code, late.json()["code"]) == (404, "invite_used_up")


def test_a_removed_member_cannot_join_again_nor_use_a_link_they_saw(
    api, circle, joined, user, make_session, actor
):
    """Members list every invite and share link, tokens and all: removal revokes the
    ones that work, naming the owner, or the removed member was back in at once (found
    by a tester). An invite already out of use is left as it was."""
    theirs = api_of(joined)
    own = invite(theirs, circle, days=30, max_uses=None)["token"]
    anyone = invite(api, circle, days=30, max_uses=None)["token"]
    expired = Invite.objects.get(token=invite(api, circle)["token"])
    Invite.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(days=1))
    session, _ = make_session()
    scorer = theirs.post(f"/api/sessions/{session.pk}/share-links/", {"role": "scorer"}).json()
    viewer = api.post(f"/api/sessions/{session.pk}/share-links/", {"role": "viewer"}).json()

    assert api.delete(f"/api/circles/{circle.pk}/members/{joined.pk}/").status_code == 204

    for token in (own, anyone):
        refused = theirs.post("/api/invites/accept/", {"token": token})
        assert (refused.status_code, refused.json()["code"]) == (404, "invite_revoked")
    assert not circle.members.filter(pk=joined.pk).exists()
    for link in (scorer, viewer):
        shared = client_with(f"Share {link['token']}")
        assert shared.get(f"/api/sessions/{session.pk}/").status_code == 401
    revoked = Invite.objects.filter(circle=circle, revoked_at__isnull=False)
    assert set(revoked.values_list("token", flat=True)) == {own, anyone}
    assert set(revoked.values_list("revoked_by", flat=True)) == {user.pk}
    assert Invite.objects.get(pk=expired.pk).revoked_at is None


def test_a_member_who_leaves_revokes_nothing(api, circle, joined, make_session):
    token = invite(api, circle)["token"]
    session, _ = make_session()
    viewer = api.post(f"/api/sessions/{session.pk}/share-links/", {"role": "viewer"}).json()

    assert (
        api_of(joined).delete(f"/api/circles/{circle.pk}/members/{joined.pk}/").status_code == 204
    )

    assert Invite.objects.get(token=token).revoked_at is None
    assert (
        client_with(f"Share {viewer['token']}").get(f"/api/sessions/{session.pk}/").status_code
        == 200
    )


def test_the_owner_removes_a_member_who_then_sees_nothing(api, circle, joined):
    theirs = api_of(joined)

    removed = api.delete(f"/api/circles/{circle.pk}/members/{joined.pk}/")

    assert removed.status_code == 204
    assert theirs.get(f"/api/circles/{circle.pk}/").status_code == 404
    assert theirs.get("/api/circles/").json() == []


def test_a_member_leaves(circle, joined):
    theirs = api_of(joined)

    assert theirs.delete(f"/api/circles/{circle.pk}/members/{joined.pk}/").status_code == 204

    assert not circle.members.filter(pk=joined.pk).exists()


def test_a_member_cannot_remove_another(circle, joined, user):
    refused = api_of(joined).delete(f"/api/circles/{circle.pk}/members/{user.pk}/")

    # The owner, at that: refused as any other, not told the owner cannot leave (which
    # the owner alone is trying when they are the one removed).
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "owner_only",
        "detail": "Only the circle's owner can do this.",
    }
    assert circle.members.filter(pk=user.pk).exists()


def test_only_the_owner_removes_members(circle, joined, django_user_model, api):
    third = django_user_model.objects.create_user(username="third", password="x")
    api_of(third).post("/api/invites/accept/", {"token": invite(api, circle)["token"]})

    refused = api_of(joined).delete(f"/api/circles/{circle.pk}/members/{third.pk}/")

    assert refused.status_code == 403
    assert refused.json() == {
        "code": "owner_only",
        "detail": "Only the circle's owner can do this.",
    }


def test_the_last_owner_cannot_leave(api, circle, user):
    refused = api.delete(f"/api/circles/{circle.pk}/members/{user.pk}/")

    assert refused.status_code == 409
    assert refused.json() == {
        "code": "owner_stays",
        "detail": "The owner cannot leave the circle: hand it to another member first.",
    }


def test_the_owner_hands_the_circle_over_then_may_leave(api, circle, joined, user):
    handed = api.post(f"/api/circles/{circle.pk}/owner/", {"user": joined.pk})

    assert handed.status_code == 200
    assert Circle.objects.get(pk=circle.pk).owner == joined
    assert api.delete(f"/api/circles/{circle.pk}/members/{user.pk}/").status_code == 204


def test_a_member_cannot_hand_the_circle_over(circle, joined):
    refused = api_of(joined).post(f"/api/circles/{circle.pk}/owner/", {"user": joined.pk})

    assert refused.status_code == 403


def test_a_removed_member_was_no_member_to_begin_with(api, circle, user, stranger):
    refused = api.delete(f"/api/circles/{circle.pk}/members/{stranger.pk}/")

    assert refused.status_code == 404
    assert refused.json()["detail"] == f"There is no member {stranger.pk} in this circle."


# --- This is me -----------------------------------------------------------------------


def test_this_is_me_links_a_player_and_the_leaderboard_says_you(api, circle, joined):
    alice = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"}).json()
    theirs = api_of(joined)

    claimed = theirs.post(f"/api/players/{alice['id']}/claim/")

    assert claimed.status_code == 200
    assert claimed.json()["account"] == "friend"
    assert theirs.get(f"/api/circles/{circle.pk}/leaderboard/").json()["you"] == alice["id"]
    assert api.get(f"/api/circles/{circle.pk}/leaderboard/").json()["you"] is None
    members = {
        m["username"]: m["player"] for m in api.get(f"/api/circles/{circle.pk}/members/").json()
    }
    assert members == {"friend": alice["id"], "host": None}


def test_a_member_is_one_player_per_circle(api, circle):
    alice = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"}).json()
    ben = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Ben"}).json()
    api.post(f"/api/players/{alice['id']}/claim/")

    api.post(f"/api/players/{ben['id']}/claim/")

    accounts = {
        p["name"]: p["account"] for p in api.get(f"/api/circles/{circle.pk}/players/").json()
    }
    assert accounts == {"Alice": None, "Ben": "host"}


def test_a_player_another_member_claimed_is_refused(api, circle, joined):
    alice = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"}).json()
    api_of(joined).post(f"/api/players/{alice['id']}/claim/")

    refused = api.post(f"/api/players/{alice['id']}/claim/")

    assert (refused.status_code, refused.json()["code"]) == (409, "player_claimed")


def test_not_me_by_the_member_or_the_owner(api, circle, joined, django_user_model):
    alice = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"}).json()
    theirs = api_of(joined)
    theirs.post(f"/api/players/{alice['id']}/claim/")

    assert api.post(f"/api/players/{alice['id']}/unclaim/").json()["account"] is None  # owner
    theirs.post(f"/api/players/{alice['id']}/claim/")
    assert theirs.post(f"/api/players/{alice['id']}/unclaim/").json()["account"] is None


def test_leaving_lets_go_of_your_player(api, circle, joined):
    alice = api.post(f"/api/circles/{circle.pk}/players/", {"name": "Alice"}).json()
    theirs = api_of(joined)
    theirs.post(f"/api/players/{alice['id']}/claim/")

    theirs.delete(f"/api/circles/{circle.pk}/members/{joined.pk}/")

    assert api.get(f"/api/players/{alice['id']}/").json()["account"] is None
