"""Changing the players between deals from the pages (SPEC 3.5, `services.players_seat`)."""

import pytest
from django.urls import reverse

from tests.views.helpers import htmx, open_deal, play_deals
from tracker.models import Player, Seat
from tracker.services import deal_tap, player_create, share_link_create

pytestmark = pytest.mark.django_db


def url(session, name="players"):
    return reverse(f"member:{name}", kwargs={"session_id": session.pk})


def seat(client, session, *, key="", path=None, **change):
    data = {"deal": open_deal(session).pk, "key": key, **change}
    return client.post(path or url(session), data)


def seating(session):
    """Who sits where: the session's plan and the open deal's players, by name."""
    plan = [s.player.name for s in Seat.objects.filter(session=session).order_by("position")]
    deal = [dp.player.name for dp in open_deal(session).deal_players.order_by("seat")]
    assert plan == deal
    return plan


def test_the_page_shows_the_table_in_seat_order_and_who_else_can_sit(member, table, circle):
    session, _players = table
    player_create(circle=circle, name="Eve")

    response = member.get(url(session))

    assert response.status_code == 200
    assert [line.name for line in response.context["seated"]] == ["Alice", "Ben", "Cara", "Dev"]
    assert [player.name for player in response.context["bench"]] == ["Eve"]
    assert response.context["started"] is False
    assert "Who plays deal 1, in seat order." in response.text


def test_the_tap_screen_menu_links_to_the_players_page(member, table):
    session, _players = table

    response = member.get(url(session, "tap"))

    assert f'href="{url(session)}"' in response.text


def test_moving_a_player_up_a_seat(member, table):
    session, players = table

    response = seat(member, session, up=players["Cara"].pk)

    assert response.status_code == 302
    assert response.url == url(session)
    assert seating(session) == ["Alice", "Cara", "Ben", "Dev"]


def test_moving_a_player_down_a_seat_keeps_the_leader(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)  # Alice won: she leads deal 2, Dev deals

    seat(member, session, down=players["Alice"].pk)

    assert seating(session) == ["Ben", "Alice", "Cara", "Dev"]
    deal = open_deal(session)
    assert (deal.leader.name, deal.dealer.name) == ("Alice", "Dev")


def test_a_player_sits_out_and_the_lowest_card_leads_again(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    response = seat(member, session, drop=players["Dev"].pk)

    assert response.status_code == 302
    assert seating(session) == ["Alice", "Ben", "Cara"]
    deal = open_deal(session)
    assert (deal.leader, deal.dealer) == (None, None)
    page = member.get(url(session, "tap"))
    assert "The table picks the dealer · 3♠ leads" in page.text


def test_a_circle_player_sits_down_at_the_end(member, table, circle):
    session, _players = table
    eve = player_create(circle=circle, name="Eve")

    seat(member, session, add=eve.pk)

    assert seating(session) == ["Alice", "Ben", "Cara", "Dev", "Eve"]


def test_a_new_player_joins_the_circle_and_sits_down(member, table, circle):
    session, _players = table

    seat(member, session, name="  Fay  ")

    assert seating(session) == ["Alice", "Ben", "Cara", "Dev", "Fay"]
    assert circle.players.filter(name="Fay").count() == 1


def test_htmx_gets_the_fragment_with_a_fresh_key(member, table):
    session, players = table

    response = member.post(
        url(session),
        {"deal": open_deal(session).pk, "key": "k1", "up": players["Dev"].pk},
        **htmx(),
    )

    assert response.status_code == 200
    assert response.text.startswith('<div id="players"')
    assert 'value="k1"' not in response.text
    assert seating(session) == ["Alice", "Ben", "Dev", "Cara"]


def test_a_retried_change_is_applied_once(member, table):
    session, players = table

    seat(member, session, key="same-render", up=players["Dev"].pk)
    seat(member, session, key="same-render", up=players["Dev"].pk)

    assert seating(session) == ["Alice", "Ben", "Dev", "Cara"]


def test_changing_players_mid_deal_is_refused_with_the_reason_and_changes_nothing(
    member, table, actor
):
    session, players = table
    deal_tap(deal_id=open_deal(session).pk, player_id=players["Alice"].pk, actor=actor)

    page = member.get(url(session))
    response = seat(member, session, drop=players["Dev"].pk)

    assert page.context["started"] is True
    assert "Deal 1 has started" in page.text
    assert response.status_code == 409
    assert (
        "Not saved: Players can change only between deals: finish or undo this deal first."
        in response.text
    )
    assert seating(session) == ["Alice", "Ben", "Cara", "Dev"]


def test_too_few_players_is_refused_and_changes_nothing(member, make_session):
    session, players = make_session(players=("Alice", "Ben"))

    response = seat(member, session, drop=players["Ben"].pk)

    assert response.status_code == 400
    assert "Not saved: A table has 2 to 8 players." in response.text
    assert seating(session) == ["Alice", "Ben"]


def test_a_name_already_in_the_circle_seats_that_player(member, table, circle):
    session, players = table
    seat(member, session, drop=players["Dev"].pk)

    seat(member, session, name="dev")

    assert seating(session) == ["Alice", "Ben", "Cara", "Dev"]
    assert Player.objects.filter(circle=circle).count() == 4


def test_one_change_at_a_time(member, table):
    session, players = table

    response = seat(member, session, up=players["Ben"].pk, drop=players["Dev"].pk)

    assert response.status_code == 400
    assert "Pick one change to make." in response.text
    assert seating(session) == ["Alice", "Ben", "Cara", "Dev"]


def test_after_the_session_ended_nothing_can_change(member, table):
    session, players = table
    deal = open_deal(session)
    member.post(url(session, "end"), {"deal": deal.pk})

    page = member.get(url(session))
    response = member.post(url(session), {"deal": deal.pk, "drop": players["Dev"].pk})

    assert "This session has ended." in page.text
    assert response.status_code == 409
    assert "Not saved: This session has ended." in response.text


def test_a_scorer_link_can_change_players(client, table, actor):
    session, players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    response = seat(client, session, path=f"/s/{link.token}/players/", drop=players["Dev"].pk)

    assert response.status_code == 302
    assert response.url == f"/s/{link.token}/players/"
    assert seating(session) == ["Alice", "Ben", "Cara"]


def test_a_viewer_link_neither_sees_nor_changes_players(client, table, actor):
    session, players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    page = client.get(f"/s/{link.token}/players/")
    response = seat(client, session, path=f"/s/{link.token}/players/", drop=players["Dev"].pk)
    standings = client.get(f"/s/{link.token}/standings/")

    assert page.status_code == 403
    assert response.status_code == 403
    assert "/players/" not in standings.text
    assert seating(session) == ["Alice", "Ben", "Cara", "Dev"]


def test_outsiders_get_nothing(stranger, client, table):
    session, players = table

    assert stranger.get(url(session)).status_code == 404
    assert seat(stranger, session, drop=players["Dev"].pk).status_code == 404
    stranger.logout()
    anonymous = client.get(url(session))
    assert anonymous.status_code == 302
    assert anonymous.url.startswith("/accounts/login/")
    assert seating(session) == ["Alice", "Ben", "Cara", "Dev"]
