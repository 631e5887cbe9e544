"""A live page reads its link or membership again only when the session's access_version
moved (a link revoked or replaced, a member removed, an account deleted or deactivated or
its password changed, an admin edit), and then hears no more at once, without waiting
for the table's next change; a tap moves no access, and costs a following page no query
beyond the counters (issue 15)."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models.signals import pre_delete
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


def end(response) -> None:
    """End a stream's generator (a WSGI stream lasts 25 s), as Django's test client does
    for one read to its end: `response._iterator`, not `response.close()`, which would also
    close the test's database connection."""
    response._iterator.close()


@pytest.fixture
def follow():
    """A page following the session: its stream, past the first events; ended after the
    test."""
    opened = []

    def open_stream(client, url, **query):
        response = client.get(url, query)
        assert response.status_code == 200
        opened.append(response)
        stream = iter(response.streaming_content)
        next(stream)
        return stream

    yield open_stream
    for response in opened:
        end(response)


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


def test_a_revoked_link_s_page_hears_no_more_at_once(table, actor, follow):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    url = reverse("link:live", kwargs={"token": link.token})
    standings = follow(Client(), url, show="standings")
    plain = follow(Client(), url)

    share_link_revoke(link_id=link.pk, actor=actor)  # and nothing else happens at the table

    assert ended_at_once(standings)
    assert ended_at_once(plain)


def test_a_replaced_link_s_page_hears_no_more_at_once(table, actor, follow):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    stream = follow(Client(), reverse("link:live", kwargs={"token": link.token}))

    share_link_create(session_id=session.pk, role="scorer", actor=actor)

    assert ended_at_once(stream)


def test_a_removed_member_s_page_hears_no_more_at_once(table, circle, actor, friend, follow):
    session, _ = table
    account, client = friend
    stream = follow(client, reverse("member:live", kwargs={"session_id": session.pk}))

    member_remove(circle=circle, user_id=account.pk, actor=actor)

    assert ended_at_once(stream)


def test_a_member_who_stays_hears_the_next_change(table, circle, actor, friend, member, follow):
    """Another member's removal moves access on; the owner's page reads its membership
    again, finds it, and goes on."""
    session, _ = table
    stream = follow(member, reverse("member:live", kwargs={"session_id": session.pk}))

    member_remove(circle=circle, user_id=friend[0].pk, actor=actor)

    assert next(stream) == b":\n\n"
    assert next(stream) == f"data: {counters(session)[0]}\n\n".encode()


def test_a_tap_costs_a_following_page_the_counters_alone(
    table, actor, member, django_assert_num_queries, follow
):
    session, players = table
    stream = follow(member, reverse("member:live", kwargs={"session_id": session.pk}))

    deal_tap(deal_id=open_deal(session).pk, player_id=players["Alice"].pk, actor=actor)
    assert next(stream) == b":\n\n"
    with django_assert_num_queries(1):  # the counters; not the membership
        said = next(stream)
    assert said == f"data: {counters(session)[0]}\n\n".encode()


# --- The sign-in read again ---------------------------------------------------------------


def live_url(session) -> str:
    return reverse("member:live", kwargs={"session_id": session.pk})


def hears_after_the_next_tap(client, session, players, actor, shut_out) -> bytes | None:
    """Open the member's page's stream, shut the member out (`shut_out`), tap once: what the
    stream says after its next look (None: it ended, as a page shut out must). The stream
    is closed before the caller asks anything more: an async view called while another's
    stream is open in the same thread once crashed the interpreter in asgiref's context
    handling (CI, PostgreSQL)."""
    response = client.get(live_url(session))
    assert response.status_code == 200
    stream = iter(response.streaming_content)
    try:
        next(stream)  # the first events
        shut_out()
        deal_tap(deal_id=open_deal(session).pk, player_id=players["Alice"].pk, actor=actor)
        assert next(stream) == b":\n\n"
        return next(stream, None)
    finally:
        end(response)


def test_a_deactivated_account_s_open_page_hears_no_more(table, actor, friend):
    """An admin deactivates an account (Django's advice instead of deleting it): its next
    request is anonymous, and the live page it has open ends too. Deactivating moves
    access_version on; the stream reads the sign-in again, not only the membership of the
    account it opened with (found by a review)."""
    session, players = table
    account, client = friend

    def deactivate():
        account.is_active = False
        account.save()

    said = hears_after_the_next_tap(client, session, players, actor, deactivate)
    assert said is None, f"a deactivated account heard {said!r}"
    assert client.get(live_url(session)).status_code == 403  # its next page: refused


def test_a_password_change_ends_the_page_a_stolen_phone_has_open(table, actor, friend):
    """A member whose phone was stolen changes their password: Django signs every other
    device out, the app revokes every API token, and the thief's open live page ends (found
    by a review)."""
    session, players = table
    account, client = friend

    def change_password():
        account.set_password("a-new-pass-456")
        account.save()

    said = hears_after_the_next_tap(client, session, players, actor, change_password)
    assert said is None, f"a signed-out phone heard {said!r}"
    assert client.get(live_url(session)).status_code == 403  # signed out now


# --- Lock order ---------------------------------------------------------------------------


def _in_a_thread(work, failures: list) -> threading.Thread:
    def run():
        try:
            work()
        except Exception as error:  # noqa: BLE001  # reported by the test
            failures.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_deleting_an_account_while_it_leaves_its_circle_does_not_deadlock(
    table, circle, actor, friend
):
    """The admin deletes an account while its owner (or the account itself) takes it out of
    the circle. The deletion's pre_delete (`account_going`) locks the circle's sessions,
    then deletes the memberships; `member_remove` locks the sessions too before it removes
    the membership, as every write locks its session first: neither waits for the other
    in turn, and both end (a deadlock, found by a review, when the removal moved the
    sessions last)."""
    account, _ = friend
    user_model = get_user_model()
    sessions_locked, go_on = threading.Event(), threading.Event()

    def between(sender, instance, **kwargs):  # after account_going, connected before it
        if instance.pk == account.pk:
            sessions_locked.set()
            go_on.wait(10)

    pre_delete.connect(between, sender=user_model, weak=False, dispatch_uid="review-between")
    failures: list[Exception] = []
    try:
        deleting = _in_a_thread(lambda: user_model.objects.get(pk=account.pk).delete(), failures)
        assert sessions_locked.wait(10)
        removing = _in_a_thread(
            lambda: member_remove(circle=circle, user_id=account.pk, actor=actor), failures
        )
        deadline = time.monotonic() + 10
        while _waiting_on_a_lock() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # member_remove waits for the sessions the deletion holds
        go_on.set()
        deleting.join(20)
        removing.join(20)
    finally:
        go_on.set()
        pre_delete.disconnect(sender=user_model, dispatch_uid="review-between")
    assert not deleting.is_alive() and not removing.is_alive()
    assert failures == []
    assert not user_model.objects.filter(pk=account.pk).exists()


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
