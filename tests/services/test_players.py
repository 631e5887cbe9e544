"""Seating the players between deals."""

import pytest

from tests.services.helpers import open_deal, tap_all
from tracker.errors import Conflict
from tracker.services import (
    players_seat,
)

pytestmark = pytest.mark.django_db


def test_players_change_between_deals(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)

    players_seat(session_id=session.pk, players=["Alice", "Ben", "Cara", "Dev", "Eve"], actor=actor)

    following = open_deal(session)
    assert following.deal_players.count() == 5
    assert following.leader is None  # a changed table: lowest card leads again
    assert following.dealer == p["Dev"]


def test_players_cannot_change_mid_deal(make_session, actor):
    session, p = make_session()
    tap_all(open_deal(session), p, ["Alice"], actor)
    with pytest.raises(Conflict, match="between deals"):
        players_seat(session_id=session.pk, players=["Alice", "Ben"], actor=actor)


def test_a_seating_names_who_made_it(make_session, actor, user):
    from tracker.access import Actor
    from tracker.services import share_link_create

    session, _p = make_session()
    assert {(seat.seated_by, seat.seated_via) for seat in session.seats.all()} == {(user, None)}
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    players_seat(session_id=session.pk, players=["Ben", "Alice", "Cara"], actor=Actor(link=link))

    seats = list(session.seats.order_by("position"))
    assert [seat.player.name for seat in seats] == ["Ben", "Alice", "Cara"]
    assert {(seat.seated_by, seat.seated_via) for seat in seats} == {(None, link)}
