"""The members page (members, invites with QR codes), joining by an invite link, leaving,
and "this is me" on the circle page."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from tracker.access import Actor
from tracker.models import Invite
from tracker.services import invite_accept, invite_create, player_create

pytestmark = pytest.mark.django_db

NO_STORE = "max-age=0, no-cache, no-store, must-revalidate, private"


@pytest.fixture
def friend(django_user_model):
    return django_user_model.objects.create_user(username="friend", password="x")


def members_url(circle):
    return reverse("circle_members", kwargs={"circle_id": circle.pk})


def test_the_members_page_makes_an_invite_with_a_qr_code(member, circle):
    made = member.post(
        reverse("circle_invite_new", kwargs={"circle_id": circle.pk}),
        {"days": "7", "uses": "10", "key": "k1"},
    )
    page = member.get(members_url(circle))

    invite = Invite.objects.get()
    assert made.status_code == 302
    assert invite.max_uses == 10
    assert page["Cache-Control"] == NO_STORE
    assert f"/join/{invite.token}/" in page.text
    assert "<svg" in page.text
    assert "host" in page.text and "owner" in page.text


@pytest.mark.parametrize("days, uses", [("2", "1"), ("7", "11"), ("abc", "1"), ("7", "")])
def test_an_invite_form_out_of_its_choices_is_400(member, circle, days, uses):
    response = member.post(
        reverse("circle_invite_new", kwargs={"circle_id": circle.pk}),
        {"days": days, "uses": uses, "key": "k1"},
    )

    assert response.status_code == 400
    assert not Invite.objects.exists()


def test_an_invite_link_asks_a_stranger_to_sign_in_then_joins(client, circle, actor, friend):
    invite = invite_create(circle=circle, actor=actor)
    url = reverse("join", kwargs={"token": invite.token})

    anonymous = client.get(url)
    client.force_login(friend)
    asked = client.get(url)
    joined = client.post(url, {"key": "k1"})

    assert anonymous.status_code == 200
    assert anonymous["Cache-Control"] == NO_STORE
    assert f"/accounts/login/?next=/join/{invite.token}/" in anonymous.text
    assert f"/accounts/signup/?next=/join/{invite.token}/" in anonymous.text
    assert "Friday table" in asked.text
    assert joined.status_code == 302
    assert joined.url == reverse("circle", kwargs={"circle_id": circle.pk})
    assert circle.members.filter(pk=friend.pk).exists()
    assert client.get(joined.url).status_code == 200


def test_signing_up_from_an_invite_joins_its_circle(client, circle, actor):
    """The sign-up page said "you get a circle of your own", and the new account had to
    tap Join again: one who left that page was in no circle but their own. Signing up from
    an invite that works now joins its circle, and makes no other."""
    invite = invite_create(circle=circle, actor=actor)
    url = reverse("join", kwargs={"token": invite.token})
    password = "tien-len-table-42"

    page = client.get(f"/accounts/signup/?next={url}")
    response = client.post(
        f"/accounts/signup/?next={url}",
        {"username": "newbie", "password1": password, "password2": password, "next": url},
    )

    assert "You join <bdi>Friday table</bdi> as you sign up." in page.text
    assert "a circle of your own" not in page.text
    assert response.status_code == 302
    assert response.url == reverse("circle", kwargs={"circle_id": circle.pk})
    newbie = circle.members.get(username="newbie")
    assert list(newbie.circles.all()) == [circle]
    invite.refresh_from_db()
    assert invite.uses == 1
    assert client.get(response.url).status_code == 200


def test_signing_up_from_an_invite_used_up_meanwhile_makes_a_circle_and_says_why(
    client, circle, actor, friend
):
    invite = invite_create(circle=circle, actor=actor)
    url = reverse("join", kwargs={"token": invite.token})
    password = "tien-len-table-42"
    page = client.get(f"/accounts/signup/?next={url}")
    invite_accept(token=invite.token, user=friend)  # the one use goes to another first

    response = client.post(
        f"/accounts/signup/?next={url}",
        {"username": "newbie", "password1": password, "password2": password, "next": url},
    )

    assert "You join <bdi>Friday table</bdi>" in page.text
    assert response.status_code == 302
    assert response.url == url  # the invite page says it is used up
    newbie = User.objects.get(username="newbie")
    assert not circle.members.filter(pk=newbie.pk).exists()
    assert newbie.circles.count() == 1  # a circle of their own
    assert "used" in client.get(url).text


def test_a_get_of_an_invite_link_changes_nothing(client, circle, actor, friend):
    invite = invite_create(circle=circle, actor=actor)
    client.force_login(friend)

    client.get(reverse("join", kwargs={"token": invite.token}))

    assert not circle.members.filter(pk=friend.pk).exists()


@pytest.mark.parametrize("token", ["nope", "%00", "a%E2%80%AEb"])
def test_an_invite_link_that_is_no_invite_is_404(client, friend, token):
    client.force_login(friend)

    response = client.get(f"/join/{token}/")

    assert response.status_code == 404
    assert "This invite link is not valid; ask for a new one." in response.text


def test_a_used_up_invite_link_says_so(client, circle, actor, friend):
    invite = invite_create(circle=circle, actor=actor)
    Invite.objects.update(uses=1)
    client.force_login(friend)

    response = client.get(reverse("join", kwargs={"token": invite.token}))

    assert response.status_code == 404
    assert "This invite has been used as often as it may be" in response.text


@pytest.mark.parametrize("spent", ["used up", "revoked", "expired"])
def test_a_member_following_an_invite_no_longer_working_goes_to_the_circle(
    client, circle, actor, friend, spent
):
    invite = invite_create(circle=circle, actor=actor)
    circle.members.add(friend)
    Invite.objects.update(
        **{
            "used up": {"uses": 1},
            "revoked": {"revoked_at": timezone.now()},
            "expired": {"expires_at": timezone.now() - timedelta(days=1)},
        }[spent]
    )
    client.force_login(friend)

    response = client.get(reverse("join", kwargs={"token": invite.token}))

    assert response.status_code == 302
    assert response.url == reverse("circle", kwargs={"circle_id": circle.pk})


def test_the_owner_removes_a_member_on_the_page(member, circle, friend):
    circle.members.add(friend)
    page = member.get(members_url(circle)).text
    assert "revokes the circle's invites and share links too" in page  # said before

    response = member.post(
        reverse("circle_member_remove", kwargs={"circle_id": circle.pk}),
        {"member": friend.pk, "key": "k1"},
    )

    assert response.status_code == 200
    assert "friend was removed." in response.text
    assert not circle.members.filter(pk=friend.pk).exists()


def test_removing_a_member_on_the_page_says_their_invites_and_links_went_too(
    member, circle, friend, make_session, actor
):
    from tracker.services import invite_create, share_link_create

    circle.members.add(friend)
    session, _ = make_session()
    invite = invite_create(circle=circle, actor=actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = member.post(
        reverse("circle_member_remove", kwargs={"circle_id": circle.pk}),
        {"member": friend.pk, "key": "k1"},
    )

    assert response.status_code == 200
    assert "invites and share links were revoked" in response.text
    invite.refresh_from_db()
    link.refresh_from_db()
    assert (invite.revoked_by, link.revoked_by) == (actor.user, actor.user)
    # The same form sent again changes nothing and says nothing new.
    again = member.post(
        reverse("circle_member_remove", kwargs={"circle_id": circle.pk}),
        {"member": friend.pk, "key": "k1"},
    )
    assert again.status_code == 302


def test_a_member_leaves_on_the_page(client, circle, friend):
    circle.members.add(friend)
    client.force_login(friend)

    response = client.post(
        reverse("circle_member_remove", kwargs={"circle_id": circle.pk}),
        {"member": friend.pk, "key": "k1"},
    )

    assert response.status_code == 302
    assert response.url == "/"
    assert client.get(members_url(circle)).status_code == 404


def test_the_owner_leaving_is_refused_on_the_page(member, circle, user):
    response = member.post(
        reverse("circle_member_remove", kwargs={"circle_id": circle.pk}),
        {"member": user.pk, "key": "k1"},
    )

    assert response.status_code == 409
    assert "hand it to another member first" in response.text


@pytest.mark.parametrize("value", ["abc", "1.5", "1e3", "NaN", "\u0663", ""])
def test_a_member_form_with_no_id_is_400(member, circle, value):
    response = member.post(
        reverse("circle_member_remove", kwargs={"circle_id": circle.pk}),
        {"member": value, "key": "k1"},
    )

    assert response.status_code == 400


def test_this_is_me_on_the_circle_page(member, circle, user):
    alice = player_create(circle=circle, name="Alice")

    response = member.post(
        reverse("player_claim", kwargs={"circle_id": circle.pk, "player_id": alice.pk}),
        {"key": "k1"},
    )
    page = member.get(reverse("circle", kwargs={"circle_id": circle.pk}))

    alice.refresh_from_db()
    assert response.status_code == 302
    assert alice.user == user
    assert "This is not me" in page.text


def test_the_leaderboard_page_marks_you(member, circle, user, make_session):
    from tests.views.helpers import play_deals

    session, players = make_session()
    play_deals(session, players, 1, Actor(user=user))
    players["Cara"].user = user
    players["Cara"].save()

    page = member.get(reverse("circle_leaderboard", kwargs={"circle_id": circle.pk}))

    assert page.context["you"] == players["Cara"].pk
    assert 'Cara <span class="pill">you</span>' in page.text


def test_another_circle_s_invite_cannot_be_revoked_from_this_circle_s_page(member, circle, user):
    """The page's address names the circle: an invite of the member's other circle is not
    found there (404), as a share link of another session is not on a session's page."""
    from tracker.services import circle_create

    other = circle_create(owner=user, name="Sunday table")
    invite = invite_create(circle=other, actor=Actor(user=user), days=7, max_uses=None)

    response = member.post(
        reverse("circle_invite_revoke", kwargs={"circle_id": circle.pk}), {"invite": invite.pk}
    )

    assert response.status_code == 404
    invite.refresh_from_db()
    assert invite.revoked_at is None
    revoked = member.post(
        reverse("circle_invite_revoke", kwargs={"circle_id": other.pk}), {"invite": invite.pk}
    )
    assert revoked.status_code == 302
    invite.refresh_from_db()
    assert invite.revoked_by == user
