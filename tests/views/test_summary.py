"""The end-of-night summary: podium, points, who pays whom, a text to share (never a
scorer link in it), and Open Graph tags when a viewer link is shared in a chat."""

import pytest
from django.urls import reverse

from tests.views.helpers import play_deals
from tracker.services import session_end, share_link_create

pytestmark = pytest.mark.django_db


def summary_url(session):
    return reverse("member:summary", kwargs={"session_id": session.pk})


def test_the_summary_shows_the_podium_points_and_who_pays_whom(member, table, actor):
    session, players = table
    play_deals(session, players, 3, actor)
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = member.get(summary_url(session))

    assert response.status_code == 200
    assert [(p.name, p.points) for p in response.context["podium"]] == [
        ("Alice", 6),
        ("Dev", 5),
        ("Ben", 4),
    ]
    text = response.context["share_text"]
    assert text.splitlines()[0] == "Friday · after 3 deals"
    assert text.splitlines()[1].startswith("🥇 Alice")
    assert "Who pays whom:" in text
    assert text.splitlines()[-1] == f"http://testserver/s/{viewer.token}/summary/"
    assert 'data-share="summary-text"' in response.text
    assert 'data-copy="summary-text"' in response.text


def test_the_shared_text_never_carries_a_scorer_link(client, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = client.get(f"/s/{scorer.token}/summary/")

    assert response.status_code == 200
    assert scorer.token not in response.context["share_text"]
    assert "http" not in response.context["share_text"]


def test_a_viewer_link_shares_itself(client, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    response = client.get(f"/s/{viewer.token}/summary/")

    assert response.context["share_text"].endswith(f"/s/{viewer.token}/summary/")


def test_a_shared_viewer_link_tells_a_chat_app_the_session_and_the_winner(client, table, actor):
    session, players = table
    play_deals(session, players, 3, actor)
    session_end(session_id=session.pk, actor=actor)
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    standings = client.get(f"/s/{viewer.token}/standings/")
    summary = client.get(f"/s/{viewer.token}/summary/")

    for page in (standings, summary):
        assert '<meta property="og:title" content="Friday">' in page.text
        assert (
            '<meta property="og:description" content="Alice won with 6 points after 3 deals">'
            in page.text
        )


def test_member_pages_carry_no_open_graph_tags(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    response = member.get(reverse("member:standings", kwargs={"session_id": session.pk}))

    assert "og:title" not in response.text


def test_a_night_without_deals_says_so(member, table):
    session, _players = table

    response = member.get(summary_url(session))

    assert response.context["headline"] == "No deal has counted yet."
    assert response.context["podium"] == []


@pytest.mark.parametrize("deals", [1, 12])
def test_the_summary_costs_the_same_however_many_deals(
    member, table, actor, django_assert_num_queries, deals
):
    session, players = table
    play_deals(session, players, deals, actor)

    # 1 login session, 2 account, 3 session in reach, 4 standings, 5 counted deals,
    # 6 balances from the running totals, 7 payments, 8 names, 9 the viewer link to share
    with django_assert_num_queries(9):
        response = member.get(summary_url(session))
    assert response.context["deal_count"] == deals
