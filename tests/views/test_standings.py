"""Standings: SPEC 6 columns, live by polling, who may see them."""

import pytest
from django.urls import reverse

from tests.views.helpers import htmx, play_deals
from tracker.services import share_link_create

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
