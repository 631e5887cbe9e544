"""Live pages: the stream of a session's versions, and the cheap answers the pages ask
for once it says the session moved on."""

from __future__ import annotations

import asyncio
import contextlib

import psycopg
import pytest
from django.db import OperationalError
from django.test import Client
from django.urls import resolve, reverse

from tests.views.helpers import htmx, play_deals
from tracker import live as live_module
from tracker.live import UNKNOWN, Hub, Versions
from tracker.services import share_link_create
from tracker.views import live as live_view
from tracker.views.live import _Follower

pytestmark = pytest.mark.django_db


def first_event(response) -> str:
    chunk = next(iter(response.streaming_content))
    response.close()  # the stream would go on reading the version every second
    return chunk.decode()


def test_the_stream_says_the_session_s_version_at_once(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    session.refresh_from_db()

    response = member.get(reverse("member:live", kwargs={"session_id": session.pk}))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-store"
    assert response["X-Accel-Buffering"] == "no"
    assert first_event(response) == f"retry: 1500\ndata: {session.version}\n\n"


def test_a_viewer_link_may_follow_the_session(table, actor):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = Client().get(reverse("link:live", kwargs={"token": link.token}))

    assert response.status_code == 200
    assert first_event(response).startswith("retry: 1500\ndata: ")


def test_who_may_not_see_the_session_gets_no_stream(table, actor, stranger):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    revoked = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    assert revoked.token != link.token  # the first is revoked now

    assert (
        stranger.get(reverse("member:live", kwargs={"session_id": session.pk})).status_code == 404
    )
    assert Client().get(reverse("link:live", kwargs={"token": link.token})).status_code == 404
    assert (
        Client().get(reverse("member:live", kwargs={"session_id": session.pk})).status_code == 403
    )
    assert Client().get("/s/nonsense/live/").status_code == 404


def test_the_stream_is_read_only(member, table):
    session, _ = table

    response = member.post(reverse("member:live", kwargs={"session_id": session.pk}))

    assert response.status_code == 405


def test_standings_asked_at_the_version_shown_answer_204_reading_nothing_more(
    table, actor, django_assert_num_queries
):
    session, players = table
    play_deals(session, players, 3, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    session.refresh_from_db()
    phone = Client()
    url = reverse("link:standings", kwargs={"token": link.token})

    # The link with its session, in one query: then nothing else is read.
    with django_assert_num_queries(1):
        response = phone.get(url, {"version": str(session.version)}, **htmx())
    assert response.status_code == 204

    play_deals(session, players, 1, actor)
    response = phone.get(url, {"version": str(session.version)}, **htmx())
    assert response.status_code == 200
    assert "<tr" in response.text


def test_a_scorer_link_s_tap_screen_asked_at_its_version_answers_204_from_the_link(
    table, actor, django_assert_num_queries
):
    """The tap screen has no glance (`session_page(asked_again=...)`): it asks only once
    its stream said the version moved, and its answer is not kept."""
    session, players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    session.refresh_from_db()
    phone = Client()
    url = reverse("link:tap", kwargs={"token": link.token})

    with django_assert_num_queries(1):  # the link, with its session and version
        response = phone.get(url, {"seen": str(session.version)}, **htmx())

    assert (response.status_code, response.content) == (204, b"")
    assert "no-store" in response["Cache-Control"]  # a page reached by a link is never kept
    play_deals(session, players, 1, actor)
    assert phone.get(url, {"seen": str(session.version)}, **htmx()).status_code == 200


def test_a_viewer_link_asking_on_the_tap_screen_is_sent_to_the_standings_as_before(table, actor):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    session.refresh_from_db()

    response = Client().get(
        reverse("link:tap", kwargs={"token": link.token}), {"seen": str(session.version)}, **htmx()
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("link:standings", kwargs={"token": link.token})


def test_a_revoked_link_asking_again_hears_it_was_revoked(table, actor):
    session, _ = table
    old = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    share_link_create(session_id=session.pk, role="scorer", actor=actor)  # replaces it
    session.refresh_from_db()

    for name, asks in (("link:tap", "seen"), ("link:standings", "version")):
        response = Client().get(
            reverse(name, kwargs={"token": old.token}), {asks: str(session.version)}, **htmx()
        )
        assert response.status_code == 404, name
        assert "revoked" in response.text


def test_the_short_way_answers_only_a_following_page(table, actor):
    """Not htmx (a page opened with ?version= in its address), or no version: the view
    answers, as before."""
    session, _ = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    session.refresh_from_db()
    url = reverse("link:standings", kwargs={"token": link.token})

    opened = Client().get(url, {"version": str(session.version)})
    empty = Client().get(url, {"version": ""}, **htmx())

    assert opened.status_code == 200 and "<html" in opened.text
    assert empty.status_code == 200 and "<tr" in empty.text


# --- The hub each server process shares between its streams ---------------------------


def test_the_hub_wakes_the_streams_of_a_session_that_changed():
    async def scenario():
        hub = Hub()
        waiting = [asyncio.create_task(hub.wait(7, after=3, timeout=5)) for _ in range(3)]
        other = asyncio.create_task(hub.wait(8, after=1, timeout=0.2))
        await asyncio.sleep(0.01)
        hub.changed(7, Versions(4, 2, 1))
        return await asyncio.gather(*waiting), await other

    woken, untouched = asyncio.run(scenario())

    assert woken == [Versions(4, 2, 1)] * 3
    assert untouched is None  # another session's change wakes nobody here


def test_the_hub_remembers_a_change_that_came_before_the_stream_waited():
    async def scenario():
        hub = Hub()
        hub.changed(7, Versions(5, 3, 1))
        hub.changed(7, Versions(4, 3, 0))  # a late, older notice changes nothing
        return (
            await hub.wait(7, after=3, timeout=0.1),
            await hub.wait(7, after=5, timeout=0.01),  # nothing newer than 5
            await hub.wait(9, after=2, timeout=0.01),  # nothing of session 9
        )

    assert asyncio.run(scenario()) == (Versions(5, 3, 1), None, None)


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ("7:12:4:2", (7, Versions(12, 4, 2))),
        # A trigger of before migration 0018: the other counters unknown, so read again.
        ("7:12", (7, Versions(12, UNKNOWN, UNKNOWN))),
        ("7", None),
        ("", None),
        ("7:x:1:1", None),
        ("seven:1:1:1", None),
    ],
)
def test_what_a_notification_says(payload, said):
    assert Versions.said(payload) == said


def test_a_stream_reads_again_only_when_its_access_or_its_rows_moved():
    tap_screen = _Follower(request=None, session_id=1, token=None, version=5)
    tap_screen.rows_at, tap_screen.access_at = 2, 1
    standings = _Follower(request=None, session_id=1, token=None, version=5, push=True)
    standings.rows_at, standings.access_at = 2, 1

    a_tap = Versions(6, 2, 1)
    a_filing = Versions(6, 3, 1)
    a_link_revoked = Versions(6, 2, 2)
    said_by_an_older_trigger = Versions(6)
    assert not tap_screen.must_look(a_tap) and not standings.must_look(a_tap)
    assert not tap_screen.must_look(a_filing) and standings.must_look(a_filing)
    assert tap_screen.must_look(a_link_revoked) and standings.must_look(a_link_revoked)
    assert tap_screen.must_look(said_by_an_older_trigger)

    # Told of a tap, the tap screen says the version, reading nothing (no request given).
    assert tap_screen.told(a_tap) == "data: 6\n\n"
    assert tap_screen.version == 6
    assert tap_screen.told(a_tap) == ""  # the same version again says nothing


# --- A stream, and the hub, when the database fails them ------------------------------


@pytest.fixture
def quiet_hub(monkeypatch):
    hub = Hub()
    monkeypatch.setattr(hub, "start", lambda: None)  # no listener: the test says the change
    monkeypatch.setattr(live_view.changes, "hub", lambda: hub)
    return hub


def _share_live_request(rf, token: str):
    """A request for a share link's live stream, resolved as the handler resolves it."""
    path = reverse("link:live", kwargs={"token": token})
    request = rf.get(path)
    request.resolver_match = resolve(path)
    return request


def test_an_asgi_stream_ended_by_the_database_leaves_no_watcher_and_no_token_in_the_log(
    quiet_hub, monkeypatch, caplog, rf
):
    """The database unreachable, or every pooled connection busy (a pool timeout is an
    OperationalError), when a change needs the link read again: the stream ends, as a
    request would get its 503, and the browser listens again after `retry`; a warning in
    the log that hides the link's token, not a traceback out of the server."""
    token = "t" * 43
    follower = _Follower(request=_share_live_request(rf, token), session_id=None, token=token)
    follower.session, follower.version, follower.rows_at, follower.access_at = 7, 5, 2, 1

    def unreachable(*args, **kwargs):
        raise OperationalError("couldn't get a connection after 5.00 sec")

    monkeypatch.setattr(follower, "look", unreachable)

    async def listening() -> list[str]:
        stream = live_view._stream(follower, "data: 5\n\n")
        said = [await anext(stream)]
        assert quiet_hub._watchers == {7: 1}
        quiet_hub.changed(7, Versions(6, 2, 2))  # access moved: the link is read again
        said += [event async for event in stream]
        return said

    with caplog.at_level("WARNING", logger="squarescores.database"):
        said = asyncio.run(listening())

    assert said == ["data: 5\n\n"]
    assert quiet_hub._watchers == {} and quiet_hub._changed == {}
    (warning,) = caplog.records
    assert token not in warning.getMessage()
    assert "<token>" in warning.getMessage()


@pytest.fixture
def shared(make_session, actor):
    session, _ = make_session()
    return share_link_create(session_id=session.pk, role="viewer", actor=actor)


def test_a_thread_s_stream_ended_by_the_database_counts_itself_closed(shared, monkeypatch, caplog):
    """Served by WSGI: the stream ends after its comment, the open-streams counter (which
    the browser tests' server waits on) comes back down, and the token stays out of the
    warning."""
    open_before = live_view.thread_streams.open
    response = Client().get(reverse("link:live", kwargs={"token": shared.token}))
    stream = iter(response.streaming_content)
    next(stream)
    assert live_view.thread_streams.open == open_before + 1

    class Unreachable:
        def filter(self, *args, **kwargs):
            raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(live_view.Session, "objects", Unreachable())
    with caplog.at_level("WARNING", logger="squarescores.database"):
        rest = list(stream)

    assert rest == [b":\n\n"]
    assert live_view.thread_streams.open == open_before
    message = caplog.records[-1].getMessage()
    assert "shutting down" in message
    assert shared.token not in message


def test_the_hub_keeps_polling_after_a_database_error(monkeypatch):
    """The hub's one task per process polls the watched sessions' counters while it
    cannot listen (and on SQLite). The database down too, a poll raises Django's
    OperationalError: the task polls on, so the streams hear the change once the
    database is back (it ended, and every stream of the process heard nothing more until
    a new one started it again; found by a review)."""
    monkeypatch.setattr(live_module, "POLL_EVERY", 0.01)
    monkeypatch.setattr(live_module, "RECONNECT_AFTER", (0.01,))

    async def not_listening(self):
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(Hub, "_listen", not_listening)
    polls = []

    def versions(session_ids):
        polls.append(list(session_ids))
        if len(polls) == 1:
            raise OperationalError("the database system is starting up")
        return {7: Versions(6, 2, 2)}

    monkeypatch.setattr(live_module, "_versions", versions)

    async def watching() -> Versions | None:
        hub = Hub()
        async with hub.watching(7):
            heard = await hub.wait(7, 5, 2.0)
            if hub._task is not None and hub._task.done():
                with contextlib.suppress(BaseException):
                    hub._task.result()  # retrieved: no "never retrieved" at exit
            else:
                hub._task.cancel()
            return heard

    assert asyncio.run(watching()) == Versions(6, 2, 2)
