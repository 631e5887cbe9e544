"""Starting a session: the rules checked before anything is stored."""

import pytest

import scoring
from tracker.errors import Invalid
from tracker.models import Session
from tracker.services import (
    session_create,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"stake": "0"}, "more than 0"),
        ({"stake": "1.234"}, "2 decimal places"),
        ({"stake": "1000000.01"}, "at most 1,000,000"),
        ({"stake": "abc"}, "a number"),
        ({"currency": "US"}, "3-letter code"),
        ({"format": "podium", "stake_rule": "per_card"}, "winner takes all"),
        ({"stake_rule": "none", "options": scoring.Options(penalties=True)}, "no money moves"),
        ({"options": scoring.Options(instant_wins=True, trading=True)}, "cannot be on together"),
        (
            {"players": ["A", "B", "C", "D", "E"], "options": scoring.Options(instant_wins=True)},
            "two packs have no instant wins",
        ),
        ({"players": ["Alice"]}, "2 to 8 players"),
        ({"players": ["Alice", "alice"]}, "seated twice"),
        ({"hand_size": 17}, "13 cards"),
    ],
)
def test_session_create_refuses_bad_rules(circle, actor, overrides, message):
    arguments = {"players": ["Alice", "Ben", "Cara", "Dev"], **overrides}

    with pytest.raises(Invalid, match=message):
        session_create(circle=circle, name="Bad", actor=actor, **arguments)

    assert Session.objects.count() == 0


def test_session_seating_a_fifth_player_keeps_instant_wins_asleep(make_session, actor):
    """A fifth player may join a session with instant wins on: two packs are dealt, so the
    deal offers no instant win and refuses a claim, whatever the option says."""
    from tracker.errors import Invalid
    from tracker.services import deal_event_record, players_seat

    session, p = make_session(options=scoring.Options(instant_wins=True))
    players_seat(session_id=session.pk, players=["Alice", "Ben", "Cara", "Dev", "Eve"], actor=actor)
    deal = session.deals.get(status="open")

    claim = scoring.InstantWin(player=p["Alice"].pk, kind=scoring.InstantWinKind.FOUR_TWOS)
    with pytest.raises(Invalid, match="two packs have no instant wins"):
        deal_event_record(deal_id=deal.pk, event=claim, actor=actor)

    # Back at 2 to 4 players, the option holds again.
    players_seat(session_id=session.pk, players=["Alice", "Ben", "Cara", "Dev"], actor=actor)
    state = deal_event_record(deal_id=deal.pk, event=claim, actor=actor)
    assert (state.result.status, state.result.winner) == (scoring.DealStatus.FILED, p["Alice"].pk)
