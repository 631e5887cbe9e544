"""tracker.access: one function per kind of object, the same answer for every door.

Each function is asked by the four callers a session has (a member, an account outside
the circle, the session's scorer link, its viewer link) and by another session's scorer
link; what is out of reach is "not found" and names nothing but the id that was sent.
"""

import pytest

from tracker import access
from tracker.access import Actor, Role
from tracker.errors import Forbidden, NotFound
from tracker.models import ShareLink
from tracker.services import circle_create, session_create, share_link_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_session, actor, django_user_model):
    """The Friday table with its two links; another account's circle, session and link."""
    session, players = make_session()
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    outsider = django_user_model.objects.create_user(username="outsider", password="x")
    other = session_create(
        circle=circle_create(owner=outsider, name="Other table"),
        name="Saturday",
        players=["Zebediah Quixote", "Ottoline Vexby"],
        actor=Actor(user=outsider),
    )
    elsewhere = share_link_create(session_id=other.pk, role="scorer", actor=Actor(user=outsider))
    return {
        "session": session,
        "players": players,
        "deal": session.deals.get(),
        "other": other,
        "other_deal": other.deals.get(),
        "other_player": other.seats.first().player,
        "member": actor,
        "outsider": Actor(user=outsider),
        "scorer": Actor(link=scorer),
        "viewer": Actor(link=viewer),
        "elsewhere": Actor(link=elsewhere),
    }


def outcome(call):
    """What a caller gets: the object's id, or the refusal's status, code and sentence."""
    try:
        return call().pk
    except (NotFound, Forbidden) as refusal:
        return refusal.status, refusal.code, refusal.message


def test_roles_rank_viewer_scorer_member():
    assert [Role.VIEWER.allows(role) for role in Role] == [True, False, False]
    assert [Role.SCORER.allows(role) for role in Role] == [True, True, False]
    assert [Role.MEMBER.allows(role) for role in Role] == [True, True, True]


def test_an_actor_has_the_role_of_its_link_or_is_a_member(world):
    assert [world[name].role for name in ("member", "scorer", "viewer")] == [
        Role.MEMBER,
        Role.SCORER,
        Role.VIEWER,
    ]
    assert world["scorer"].scope == f"link:{world['scorer'].link.pk}"
    assert world["member"].scope == f"user:{world['member'].user.pk}"


def test_a_session_is_reached_by_its_members_and_links_only(world):
    session = world["session"].pk
    answers = {
        name: outcome(lambda name=name: access.access_session(world[name], session))
        for name in ("member", "scorer", "viewer", "outsider", "elsewhere")
    }

    not_found = (404, "not_found", f"There is no session {session}.")
    assert answers == {
        "member": session,
        "scorer": session,
        "viewer": session,
        "outsider": not_found,
        "elsewhere": not_found,
    }


def test_a_role_below_the_need_is_forbidden_before_anything_is_looked_up(world):
    session = world["session"].pk

    viewer = outcome(lambda: access.access_session(world["viewer"], session, need=Role.SCORER))
    scorer = outcome(lambda: access.access_session(world["scorer"], session, need=Role.MEMBER))
    # Even for a session the link does not reach: the role decides first.
    elsewhere = outcome(lambda: access.access_circle(world["elsewhere"], 10**9))

    assert viewer == (
        403,
        "viewer_read_only",
        "A viewer link can only look; a scorer link or an account can record.",
    )
    assert scorer[:2] == elsewhere[:2] == (403, "link_out_of_reach")


def test_a_deal_is_reached_within_the_callers_sessions_and_the_page_s_session(world):
    own, other = world["deal"].pk, world["other_deal"].pk

    assert outcome(lambda: access.access_deal(world["scorer"], own, need=Role.SCORER)) == own
    assert outcome(lambda: access.access_deal(world["member"], other)) == (
        404,
        "not_found",
        f"There is no deal {other}.",
    )
    # A page opened for one session writes to that session only, even for a member of
    # both circles.
    in_page = outcome(lambda: access.access_deal(world["outsider"], own, session=world["other"]))
    assert in_page == (404, "not_found", f"There is no deal {own} in this session.")


def test_a_deal_by_number_is_one_of_the_session_s(world):
    session = world["session"]

    assert outcome(lambda: access.access_deal_numbered(world["viewer"], session, 1)) == (
        world["deal"].pk
    )
    assert outcome(lambda: access.access_deal_numbered(world["viewer"], session, 2)) == (
        404,
        "deal_not_found",
        "There is no deal 2 in this session.",
    )


def test_players_and_circles_are_members_only_and_name_nothing_else(world):
    stranger = world["other_player"]

    for caller in ("member", "scorer"):
        refused = outcome(lambda caller=caller: access.access_player(world[caller], stranger.pk))
        assert stranger.name not in str(refused)
    assert outcome(lambda: access.access_player(world["member"], stranger.pk)) == (
        404,
        "not_found",
        f"There is no player {stranger.pk}.",
    )
    own = world["players"]["Alice"]
    assert outcome(lambda: access.access_player(world["member"], own.pk)) == own.pk
    circle = world["session"].circle
    assert outcome(lambda: access.access_circle(world["member"], circle.pk)) == circle.pk
    assert outcome(lambda: access.access_circle(world["outsider"], circle.pk))[0] == 404


def test_share_links_are_the_members_to_revoke_within_their_session(world):
    link = world["scorer"].link

    assert outcome(lambda: access.access_share_link(world["member"], link.pk)) == link.pk
    assert outcome(lambda: access.access_share_link(world["outsider"], link.pk))[0] == 404
    assert outcome(lambda: access.access_share_link(world["scorer"], link.pk))[0] == 403
    in_other = outcome(
        lambda: access.access_share_link(world["member"], link.pk, session=world["other"])
    )
    assert in_other[0] == 404


@pytest.mark.parametrize("token", ["", "a b", "\x00", "abc\x00def", "٣٣٣", "x" * 65, "ü" * 10])
def test_a_token_that_is_no_token_of_ours_is_not_looked_up(token, django_assert_num_queries):
    with django_assert_num_queries(0), pytest.raises(NotFound) as refused:
        access.link_by_token(token)

    assert refused.value.code == "link_not_valid"


def test_a_revoked_link_says_so(world):
    link = world["viewer"].link
    ShareLink.objects.filter(pk=link.pk).update(revoked_at="2026-01-01T00:00:00Z")

    with pytest.raises(NotFound) as refused:
        access.link_by_token(link.token)

    assert (refused.value.code, refused.value.message) == (
        "link_revoked",
        "This share link was revoked; ask for a new one.",
    )
