"""A live page reads its link or membership again only when the session's access_version
moved (a link revoked or replaced, a member removed, an account deleted, an admin edit),
and then hears no more at once, without waiting for the table's next change; a tap moves
no access, and costs a following page no query beyond the counters (issue 15)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from tests.views.helpers import open_deal, play_deals
from tracker.live import CHANNEL
from tracker.models import Session
from tracker.services import (
    deal_tap,
    invite_accept,
    invite_create,
    member_remove,
    player_rename,
    share_link_create,
    share_link_revoke,
)

pytestmark = pytest.mark.django_db


def counters(session) -> tuple[int, int, int]:
    return tuple(
        Session.objects.filter(pk=session.pk)
        .values_list("version", "standings_version", "access_version")
        .get()
    )


def follow(client, url, **query):
    """A page following the session: its stream, past the first events."""
    response = client.get(url, query)
    assert response.status_code == 200
    stream = iter(response.streaming_content)
    next(stream)
    return stream


def ended_at_once(stream) -> bool:
    """The stream's next look (it reads the counters each second) ends it, saying
    nothing more."""
    assert next(stream) == b":\n\n"
    return list(stream) == []


@pytest.fixture
def friend(circle, django_user_model, actor):
    """A second member of the circle, and their signed-in client."""
    account = django_user_model.objects.create_user(username="binh", password="binh-pass-123")
    invite = invite_create(circle=circle, actor=actor)
    invite_accept(token=invite.token, user=account)
    client = Client()
    client.force_login(account)
    return account, client


# --- What moves access_version -----------------------------------------------------------


def test_plays_renames_and_links_made_move_no_access(table, actor):
    session, players = table
    before = counters(session)
    play_deals(session, players, 2, actor)
    player_rename(player=players["Cara"], name="Carolina")
    share_link_create(session_id=session.pk, role="viewer", actor=actor)  # the first
    after = counters(session)
    assert after[0] > before[0] and after[1] > before[1]
    assert after[2] == before[2]


def test_revoking_a_link_moves_the_session_and_its_access_on(table, actor):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    version, rows, access = counters(session)
    share_link_revoke(link_id=link.pk, actor=actor)
    assert counters(session) == (version + 1, rows, access + 1)


def test_a_new_link_that_replaces_one_moves_access_on(table, actor):
    session, _ = table
    share_link_create(session_id=session.pk, role="scorer", actor=actor)
    _, _, access = counters(session)
    share_link_create(session_id=session.pk, role="scorer", actor=actor)  # revokes the first
    assert counters(session)[2] == access + 1


def test_removing_a_member_moves_every_session_of_the_circle_on(
    circle, make_session, actor, friend
):
    first, _ = make_session()
    second, _ = make_session(players=("Em", "Phong", "Giang"))
    before = [counters(first), counters(second)]
    member_remove(circle=circle, user_id=friend[0].pk, actor=actor)
    for session, (version, rows, access) in zip((first, second), before, strict=True):
        assert counters(session) == (version + 1, rows + 1, access + 1)


def test_deleting_an_account_moves_the_sessions_of_its_circles_on(table, friend):
    session, _ = table
    _, _, access = counters(session)
    friend[0].delete()
    assert counters(session)[2] == access + 1


# --- The streams --------------------------------------------------------------------------


def test_a_revoked_link_s_page_hears_no_more_at_once(table, actor):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    url = reverse("link:live", kwargs={"token": link.token})
    standings = follow(Client(), url, show="standings")
    plain = follow(Client(), url)

    share_link_revoke(link_id=link.pk, actor=actor)  # and nothing else happens at the table

    assert ended_at_once(standings)
    assert ended_at_once(plain)


def test_a_replaced_link_s_page_hears_no_more_at_once(table, actor):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    stream = follow(Client(), reverse("link:live", kwargs={"token": link.token}))

    share_link_create(session_id=session.pk, role="scorer", actor=actor)

    assert ended_at_once(stream)


def test_a_removed_member_s_page_hears_no_more_at_once(table, circle, actor, friend):
    session, _ = table
    account, client = friend
    stream = follow(client, reverse("member:live", kwargs={"session_id": session.pk}))

    member_remove(circle=circle, user_id=account.pk, actor=actor)

    assert ended_at_once(stream)


def test_a_member_who_stays_hears_the_next_change(table, circle, actor, friend, member):
    """Another member's removal moves access on; the owner's page reads its membership
    again, finds it, and goes on."""
    session, _ = table
    stream = follow(member, reverse("member:live", kwargs={"session_id": session.pk}))

    member_remove(circle=circle, user_id=friend[0].pk, actor=actor)

    assert next(stream) == b":\n\n"
    assert next(stream) == f"data: {counters(session)[0]}\n\n".encode()


def test_a_tap_costs_a_following_page_the_counters_alone(
    table, actor, member, django_assert_num_queries
):
    session, players = table
    stream = follow(member, reverse("member:live", kwargs={"session_id": session.pk}))

    deal_tap(deal_id=open_deal(session).pk, player_id=players["Alice"].pk, actor=actor)
    assert next(stream) == b":\n\n"
    with django_assert_num_queries(1):  # the counters; not the membership
        said = next(stream)
    assert said == f"data: {counters(session)[0]}\n\n".encode()


# --- What PostgreSQL says, and when ------------------------------------------------------


@pytest.mark.skipif("connection.vendor != 'postgresql'")
@pytest.mark.django_db(transaction=True)
def test_a_change_is_said_once_at_its_commit_with_its_three_counters(make_session, actor):
    """A filing tap moves the version in its first statement and the rows' counter in a
    later one: the notification is deferred to the commit and says the row as committed,
    once (PostgreSQL folds the same words said twice in one transaction)."""
    session, players = make_session()
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    deal_tap(deal_id=deal.pk, player_id=players["Ben"].pk, actor=actor)

    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        with transaction.atomic():
            deal_tap(deal_id=deal.pk, player_id=players["Cara"].pk, actor=actor)  # files
            # Not said before the commit.
            assert list(listener.notifies(timeout=0.3)) == []
        heard = [notice.payload for notice in listener.notifies(timeout=1, stop_after=5)]

    version, rows, access = counters(session)
    assert heard == [f"{session.pk}:{version}:{rows}:{access}"]
