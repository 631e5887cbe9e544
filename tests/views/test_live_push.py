"""The standings page's stream sends the standings themselves: at once when the rows
differ from those the page shows, after each change that moves a row, nothing more when
a change moves none; kept by version, so a process's streams render a change once, and
silent once the link is revoked (issue 15)."""

from __future__ import annotations

import re
import threading
import time

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse
from django_htmx.middleware import HtmxDetails

from tests.views.helpers import htmx, open_deal, play_deals
from tracker.access import Role
from tracker.services import (
    deal_tap,
    player_rename,
    players_change,
    session_end,
    share_link_create,
    share_link_revoke,
)
from tracker.views import standings as standings_views
from tracker.views.doors import reach

pytestmark = pytest.mark.django_db


def events(chunk: bytes) -> list[dict[str, str]]:
    """The server-sent events in a chunk: each one's fields, data lines joined."""
    said = []
    for block in chunk.decode().split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            if name == "data" and "data" in fields:
                fields["data"] += "\n" + value
            elif name and name != "retry" and not line.startswith(":"):
                fields[name] = value
        if "data" in fields:
            said.append(fields)
    return said


def hang_up(response) -> None:
    """The phone goes away: the stream is closed as Django's test client closes one read
    to its end, through its own wrapper (`response._iterator`), which keeps the test's
    database connection open. `response.close()` would close it (the wrapper connects the
    signal that does so again before the response sends it), and on PostgreSQL the test
    could not read any more."""
    response._iterator.close()


@pytest.fixture
def watching(table, actor):
    """A viewer link's standings after two deals: its URL, and what the page shows."""
    session, players = table
    play_deals(session, players, 2, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    page = Client().get(reverse("link:standings", kwargs={"token": link.token})).text
    seen = re.search(r'"seen": "([^"]*)"', page).group(1)
    return link, reverse("link:live", kwargs={"token": link.token}), seen


def test_a_page_that_shows_the_rows_there_are_hears_only_the_version(watching, table):
    _link, url, seen = watching
    session, _ = table
    session.refresh_from_db()

    response = Client().get(url, {"show": "standings", "seen": seen})

    first = next(iter(response.streaming_content))
    hang_up(response)
    assert events(first) == [{"data": str(session.version)}]


def test_a_page_behind_is_sent_the_standings_at_once(watching, table):
    _link, url, seen = watching
    session, _ = table
    session.refresh_from_db()

    response = Client().get(url, {"show": "standings", "seen": "1:00000000"})

    first = next(iter(response.streaming_content))
    hang_up(response)
    standings, version = events(first)
    assert standings["event"] == "standings"
    assert standings["id"] == seen  # what a reconnecting browser names as shown
    assert standings["data"].startswith('<section id="standings"')
    assert f'data-version="{session.version}"' in standings["data"]
    assert 'class="flash"' in standings["data"]  # the rows it did not show
    assert version == {"data": str(session.version)}


def test_a_reconnecting_browser_names_the_rows_it_last_got(watching):
    _link, url, seen = watching

    response = Client().get(
        url, {"show": "standings", "seen": "1:00000000"}, HTTP_LAST_EVENT_ID=seen
    )

    first = next(iter(response.streaming_content))
    hang_up(response)
    assert [event.get("event") for event in events(first)] == [None]  # the version alone


def test_a_change_that_moves_rows_sends_them_and_one_that_does_not_sends_the_version(
    watching, table, actor
):
    _link, url, seen = watching
    session, players = table
    response = Client().get(url, {"show": "standings", "seen": seen})
    stream = iter(response.streaming_content)
    next(stream)

    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)  # files nothing
    assert next(stream) == b":\n\n"  # a second later: still there
    session.refresh_from_db()
    assert events(next(stream)) == [{"data": str(session.version)}]

    for name in ("Cara", "Ben"):  # the third tap files the deal
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    assert next(stream) == b":\n\n"
    session.refresh_from_db()
    standings, version = events(next(stream))
    hang_up(response)
    assert standings["event"] == "standings"
    assert standings["id"] != seen
    assert "after 3 deals" in standings["data"]
    assert version == {"data": str(session.version)}


def test_a_revoked_link_hears_nothing_more(watching, table, actor):
    link, url, seen = watching
    session, players = table
    response = Client().get(url, {"show": "standings", "seen": seen})
    stream = iter(response.streaming_content)
    next(stream)

    share_link_revoke(link_id=link.pk, actor=actor)
    play_deals(session, players, 1, actor)

    assert next(stream) == b":\n\n"
    assert list(stream) == []  # the stream ended, saying nothing of the new deal


def test_streams_of_one_table_render_a_change_once(watching, table, django_assert_num_queries):
    _link, url, _seen = watching
    first = Client().get(url, {"show": "standings", "seen": "1:00000000"})
    next(iter(first.streaming_content))
    hang_up(first)

    # The next phone: the link with its session, and the standings kept by version.
    with django_assert_num_queries(1):
        second = Client().get(url, {"show": "standings", "seen": "1:00000000"})
        chunk = next(iter(second.streaming_content))
    hang_up(second)
    assert events(chunk)[0]["event"] == "standings"


def test_each_phone_is_sent_the_standings_in_its_own_language(watching):
    _link, url, _seen = watching
    said = {}
    for language in ("en", "vi", "en"):
        response = Client().get(
            url, {"show": "standings", "seen": ""}, HTTP_ACCEPT_LANGUAGE=language
        )
        said.setdefault(language, []).append(events(next(iter(response.streaming_content))))
        hang_up(response)

    assert "after 2 deals" in said["en"][0][0]["data"]
    assert "sau 2 ván" in said["vi"][0][0]["data"]
    assert said["en"][1] == said["en"][0]  # the kept English one, not the Vietnamese


def test_streams_woken_together_render_a_change_once(watching, monkeypatch):
    """A change wakes every stream of the table at once, each in a thread of the pool:
    one renders, the others wait for its answer (found by a reviewer)."""
    link, url, _seen = watching
    request = RequestFactory().get(url)
    page = reach(request, session_id=None, token=link.token, need=Role.VIEWER)
    renders = []

    def render_slowly(request, page, shown):  # a real render takes tens of ms
        renders.append(shown)
        time.sleep(0.2)
        return "1:00000000", b"<section></section>"

    monkeypatch.setattr(standings_views, "_fragment", render_slowly)
    streams = [
        threading.Thread(target=standings_views.pushed, args=(request, page, "0:stale"))
        for _ in range(4)
    ]
    for stream in streams:
        stream.start()
    for stream in streams:
        stream.join()

    assert len(renders) == 1, f"{len(renders)} renders of one change"


def test_an_unchanged_table_answers_an_empty_204(watching):
    """The test client empties a 204's body as a server would not: the view's own answer
    must be empty (it once said b"None", which a kept-alive connection read as the start
    of the next answer; found by a reviewer)."""
    link, _url, seen = watching
    url = reverse("link:standings", kwargs={"token": link.token})
    query = {"seen": seen, "version": "0"}  # behind on the version, not on the rows

    request = RequestFactory().get(url, query, **htmx())
    request.htmx = HtmxDetails(request)
    direct = standings_views.standings(request, token=link.token)

    assert (direct.status_code, direct.content) == (204, b"")


def _stream_of(url, seen):
    response = Client().get(url, {"show": "standings", "seen": seen})
    stream = iter(response.streaming_content)
    next(stream)
    return response, stream


def _said_after_a_change(stream):
    """What the stream says at its next look (it reads the version every second)."""
    assert next(stream) == b":\n\n"
    return events(next(stream))


def test_a_tap_that_moves_no_row_is_told_without_reading_the_rows(
    watching, table, actor, django_assert_num_queries
):
    """The rows are compared again only when the session's standings_version moved, the
    link read again only when its access_version did: a tap that files nothing costs the
    stream the counters it reads each second, and nothing more."""
    _link, url, seen = watching
    session, players = table
    response, stream = _stream_of(url, seen)

    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)  # files nothing
    assert next(stream) == b":\n\n"
    # The counters read each second: no link, no running totals.
    with django_assert_num_queries(1):
        said = events(next(stream))
    hang_up(response)
    session.refresh_from_db()
    assert said == [{"data": str(session.version)}]


def test_a_player_renamed_is_sent_in_the_rows(watching, table, actor):
    _link, url, seen = watching
    session, players = table
    response, stream = _stream_of(url, seen)

    player_rename(player=players["Cara"], name="Carolina")

    standings, _version = _said_after_a_change(stream)
    hang_up(response)
    assert standings["event"] == "standings"
    assert "Carolina" in standings["data"]


def test_a_player_seated_is_sent_in_the_rows(watching, table, actor):
    _link, url, seen = watching
    session, _players = table
    response, stream = _stream_of(url, seen)

    deal = open_deal(session)
    players_change(session_id=session.pk, deal_id=deal.pk, change="name", target="Eve", actor=actor)

    standings, _version = _said_after_a_change(stream)
    hang_up(response)
    assert standings["event"] == "standings"
    assert "Eve" in standings["data"]


def test_end_match_on_the_empty_next_deal_is_sent_to_the_standings(watching, table, actor):
    """The night usually ends this way: the last deal filed, End match on the empty deal
    it opened. That moves no row, but the page must stop saying "live" and say "ended"."""
    _link, url, seen = watching
    session, _players = table
    response, stream = _stream_of(url, seen)

    session_end(session_id=session.pk, actor=actor)

    standings, _version = _said_after_a_change(stream)
    hang_up(response)
    assert standings["event"] == "standings"
    assert '<span class="pill">ended</span>' in standings["data"]
    assert "live__dot" not in standings["data"]
