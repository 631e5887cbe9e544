"""Standings: SPEC 6 columns, live by polling, who may see them."""

import re

import pytest
from django.urls import reverse

from tests.views.helpers import htmx, open_deal, play_deals, shows
from tracker import answers
from tracker.services import deal_tap, player_rename, share_link_create

pytestmark = pytest.mark.django_db


def url(session):
    return reverse("member:standings", kwargs={"session_id": session.pk})


def test_standings_rank_by_points_wins_net_then_name(member, table, actor):
    session, players = table
    play_deals(session, players, 3, actor)

    response = member.get(url(session))

    lines = response.context["lines"]
    assert [(line.rank, line.row.name, line.row.points) for line in lines] == [
        (1, "Alice", 6),
        (2, "Dev", 5),
        (3, "Ben", 4),
        (4, "Cara", 3),
    ]
    assert response.context["deal_count"] == 3
    for heading in ("Pts", "Net", "Deals", "Podium", "Lost", "Avg", "2s ±", "G ±"):
        assert heading in response.text
    assert "after 3 deals" in response.text
    assert 'hx-trigger="live"' in response.text
    assert "<polyline" in response.text


def test_a_poll_with_nothing_new_gets_204(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    seen = member.get(url(session)).context["seen"]

    response = member.get(url(session), {"seen": seen}, **htmx())

    assert response.status_code == 204


def test_a_poll_after_a_deal_brings_the_fragment_and_flashes_changed_rows(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    seen = member.get(url(session)).context["seen"]
    play_deals(session, players, 1, actor)  # Dev, Alice, Cara out: Ben loses

    response = member.get(url(session), {"seen": seen}, **htmx())

    assert response.status_code == 200
    assert response.text.startswith('<section id="standings"')
    changed = {line.row.name for line in response.context["lines"] if line.changed}
    assert changed == {"Alice", "Ben", "Cara", "Dev"}
    assert 'class="flash"' in response.text


def test_a_viewer_link_sees_standings_without_a_login(client, table, actor):
    session, _players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = client.get(f"/s/{link.token}/standings/")

    assert response.status_code == 200
    assert f'hx-get="/s/{link.token}/standings/"' in response.text
    assert "player__tap" not in response.text
    assert f'/s/{link.token}/"' not in response.text  # no link to the tap screen


def test_a_non_member_gets_404(stranger, table):
    session, _players = table

    assert stranger.get(url(session)).status_code == 404


def test_a_long_night_s_sparkline_shows_its_last_40_deals_from_where_each_stood(
    member, table, actor
):
    session, players = table
    play_deals(session, players, 45, actor)

    response = member.get(url(session))

    assert response.context["deal_count"] == 45
    assert "after 45 deals" in response.text
    for line in response.context["lines"]:
        points = line.spark.split()
        assert len(points) == 41  # where the player stood before deal 6, then 40 deals
    # The tallest line ends at the top: the last point is the player's total.
    leader = response.context["lines"][0]
    assert leader.spark.split()[-1].endswith(",1.0")


def watching_after_a_deal(client, table, actor):
    """A phone on a viewer link showing the standings after one deal: the fragment's
    address and what the phone says it shows (`version`, `seen`)."""
    session, players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    path = f"/s/{link.token}/standings/"
    play_deals(session, players, 1, actor)
    shown = client.get(path, **htmx())
    return path, shows(shown)


def test_the_phones_at_a_table_share_one_read_of_a_change(
    client, table, actor, django_assert_num_queries
):
    """After a change every phone asks for the same fragment: the first one's answer is
    kept by the rows' counter, and the others' cost the link alone."""
    session, players = table
    path, asked = watching_after_a_deal(client, table, actor)
    play_deals(session, players, 1, actor)

    first = client.get(path, asked, **htmx())
    with django_assert_num_queries(1):  # the link's glance: the version, and kept at it
        second = client.get(path, asked, **htmx())

    assert (first.status_code, second.status_code) == (200, 200)
    assert second.content == first.content
    assert 'class="flash"' in second.text
    assert "after 2 deals" in second.text

    play_deals(session, players, 1, actor)  # a new version: read again
    assert "after 3 deals" in client.get(path, asked, **htmx()).text


def test_a_kept_fragment_is_kept_per_language_and_way_in(member, client, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    english = client.get(f"/s/{link.token}/standings/", **htmx())
    vietnamese = client.get(f"/s/{link.token}/standings/", **htmx(HTTP_ACCEPT_LANGUAGE="vi"))
    by_member = member.get(url(session), **htmx())

    assert "after 1 deal" in english.text
    assert "after 1 deal" not in vietnamese.text
    assert f'hx-get="/s/{link.token}/standings/"' in english.text
    assert link.token not in by_member.text
    assert f'hx-get="{url(session)}"' in by_member.text


def test_a_tap_that_files_nothing_answers_204_from_the_running_totals_alone(
    client, table, actor, django_assert_num_queries
):
    session, players = table
    path, asked = watching_after_a_deal(client, table, actor)
    deal_tap(deal_id=open_deal(session).pk, player_id=players["Alice"].pk, actor=actor)

    # The link's glance (the version moved on, nothing kept at it yet), with the link, its
    # session and circle, then the running totals: no sparkline, no rendering.
    with django_assert_num_queries(2):
        response = client.get(path, asked, **htmx())

    assert response.status_code == 204


def test_a_fragment_kept_before_a_tap_that_files_nothing_is_served_at_the_new_version(
    client, table, actor, django_assert_num_queries
):
    """Two taps in three move the version and no row: a phone that asks after one (its
    page a version behind) gets the fragment kept before it, saying the new version, for
    the cost of the link alone; it is the fragment read afresh."""
    session, players = table
    path, asked = watching_after_a_deal(client, table, actor)
    stale = {"version": "stale"}  # a phone that shows no rows yet, as a page just opened
    before = client.get(path, stale, **htmx())
    assert f'data-version="{asked["version"]}"' in before.text
    deal_tap(deal_id=open_deal(session).pk, player_id=players["Alice"].pk, actor=actor)
    session.refresh_from_db()

    with django_assert_num_queries(1):  # the link's glance: nothing read or rendered
        after = client.get(path, stale, **htmx())

    assert after.status_code == 200
    assert f'data-version="{session.version}"' in after.text
    assert f'"version": "{session.version}"' in after.text
    assert "<!--version-->" not in after.text
    versions = (asked["version"], str(session.version))
    said = [(f'data-version="{v}"', f'"version": "{v}"') for v in versions]
    assert after.text == before.text.replace(said[0][0], said[1][0]).replace(said[0][1], said[1][1])
    answers.forget_all()
    assert client.get(path, stale, **htmx()).content == after.content


def test_a_name_that_looks_like_the_version_mark_is_shown_as_written(
    client, table, actor, django_assert_num_queries
):
    session, players = table
    player_rename(player=players["Ben"], name="Ben <!--version-->")
    path, asked = watching_after_a_deal(client, table, actor)

    shown = client.get(path, {"version": "stale"}, **htmx())
    again = client.get(path, {"version": "stale"}, **htmx())  # kept

    for response in (shown, again):
        assert "Ben &lt;!--version--&gt;" in response.text
        assert "<!--version-->" not in response.text


def test_each_number_names_its_column_and_its_player(member, table, actor):
    """A player's numbers are on the line under the name, and browsers take a cell's row
    header from its own row only: each number says its headers, the column's and the
    player's name, so a screen reader reads "Pts, Alice: 3"."""
    session, players = table
    play_deals(session, players, 1, actor)

    text = member.get(url(session)).text
    main = text[text.index("standings__main") : text.index("standings__more")]

    ids = set(re.findall(r'\bid="([^"]+)"', main))
    for player in players.values():
        name = f"standing-name-{player.pk}"
        assert re.search(rf'<th scope="rowgroup"[^>]*id="{name}">{player.name}</th>', main)
        cells = re.findall(rf'headers="([^"]+ {name})"', main)
        assert [cell.split()[0] for cell in cells] == [
            "standings-points",
            "standings-wins",
            "standings-net",
        ]
        assert all(set(cell.split()) <= ids for cell in cells)
