"""The next deal's opening — dealer, leader, trading reminders — follows the table as it
now stands: after filing, after a change of players and after a correction it is what
`scoring.opening` gives for the deal before it and the players now seated."""

import pytest

import scoring
from tests.services.helpers import open_deal, tap_all
from tracker.records import deal_facts
from tracker.services import deal_correct, players_change, players_seat

pytestmark = pytest.mark.django_db


def reminders(deal):
    """The stored reminders as (giver, receiver, cards) by name."""
    deal.refresh_from_db()
    names = {dp.player_id: dp.player.name for dp in deal.deal_players.select_related("player")}
    names |= {p.pk: p.name for p in deal.session.circle.players.all()}
    return [(names[r["giver"]], names[r["receiver"]], r["cards"]) for r in deal.trading]


def expected_opening(deal):
    """What scoring says for `deal` (open) after the deal before it."""
    deal.refresh_from_db()
    previous = deal.session.deals.get(number=deal.number - 1)
    facts = deal_facts(previous)
    return scoring.opening(
        rules=deal.session.rules,
        players=list(deal.deal_players.order_by("seat").values_list("player_id", flat=True)),
        previous_players=list(facts.players),
        previous=scoring.play(facts),
    )


def stored_opening(deal):
    deal.refresh_from_db()
    return scoring.Opening(
        dealer=deal.dealer_id,
        leader=deal.leader_id,
        trading=tuple(scoring.TradingReminder(**reminder) for reminder in deal.trading),
    )


@pytest.fixture
def filed(make_session, actor):
    """Alice 1st, Cara 2nd, Ben 3rd, Dev lost; trading on."""
    session, p = make_session(options=scoring.Options(trading=True))
    tap_all(open_deal(session), p, ["Alice", "Cara", "Ben"], actor)
    return session, p


def test_opening_after_filing_owes_the_two_trades(filed):
    session, _p = filed

    assert reminders(open_deal(session)) == [("Dev", "Alice", 2), ("Ben", "Cara", 1)]


def test_opening_player_leaving_drops_the_reminders_they_are_in(filed, actor):
    session, _p = filed

    players_seat(session_id=session.pk, players=["Alice", "Cara", "Dev", "Eve"], actor=actor)

    following = open_deal(session)
    assert reminders(following) == [("Dev", "Alice", 2)]
    assert stored_opening(following) == expected_opening(following)


def test_opening_receiver_leaving_drops_the_reminder(filed, actor):
    session, p = filed
    deal = open_deal(session)

    players_change(
        session_id=session.pk, deal_id=deal.pk, change="drop", target=p["Alice"].pk, actor=actor
    )

    assert reminders(deal) == [("Ben", "Cara", 1)]
    assert stored_opening(deal) == expected_opening(deal)


def test_opening_player_back_at_the_table_owes_again(filed, actor):
    session, p = filed
    deal = open_deal(session)
    players_seat(session_id=session.pk, players=["Alice", "Cara", "Dev"], actor=actor)

    players_seat(session_id=session.pk, players=["Alice", "Ben", "Cara", "Dev"], actor=actor)

    assert reminders(deal) == [("Dev", "Alice", 2), ("Ben", "Cara", 1)]
    deal.refresh_from_db()
    # Exactly the players of the last deal again: its winner leads, its loser deals.
    assert (deal.leader, deal.dealer) == (p["Alice"], p["Dev"])


def test_opening_seat_order_change_keeps_everything(filed, actor):
    session, p = filed
    deal = open_deal(session)

    players_change(
        session_id=session.pk, deal_id=deal.pk, change="up", target=p["Dev"].pk, actor=actor
    )

    assert reminders(deal) == [("Dev", "Alice", 2), ("Ben", "Cara", 1)]
    assert stored_opening(deal) == expected_opening(deal)


def test_opening_correction_changing_the_order_refreshes_the_reminders(filed, actor):
    session, p = filed
    filed_deal = session.deals.get(number=1)
    following = open_deal(session)

    deal_correct(
        deal_id=filed_deal.pk,
        taps=[p["Ben"].pk, p["Dev"].pk, p["Alice"].pk],
        reason="Ben went out first",
        actor=actor,
    )

    assert reminders(following) == [("Cara", "Ben", 2), ("Alice", "Dev", 1)]
    assert stored_opening(following) == expected_opening(following)
    following.refresh_from_db()
    assert (following.leader, following.dealer) == (p["Ben"], p["Cara"])


def test_opening_correction_after_a_player_left_leaves_them_out(filed, actor):
    session, p = filed
    players_seat(session_id=session.pk, players=["Alice", "Ben", "Dev", "Eve"], actor=actor)
    following = open_deal(session)

    deal_correct(
        deal_id=session.deals.get(number=1).pk,
        taps=[p["Ben"].pk, p["Dev"].pk, p["Alice"].pk],
        actor=actor,
    )

    # Cara lost the corrected deal but has left: her trade is dropped; Alice still owes Dev.
    assert reminders(following) == [("Alice", "Dev", 1)]
    assert stored_opening(following) == expected_opening(following)
