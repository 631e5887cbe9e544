"""SPEC §10 worked examples through the services and the database."""

from decimal import Decimal

import pytest

import scoring
from tracker.models import Deal, LedgerLine
from tracker.selectors import session_settlement, session_standings
from tracker.services import deal_event_record, deal_tap

pytestmark = pytest.mark.django_db


def ledger_of(deal):
    return [
        (line.payer.name, line.payee.name, line.amount, line.reason)
        for line in LedgerLine.objects.filter(deal=deal).select_related("payer", "payee")
    ]


def open_deal(session):
    return session.deals.get(status=Deal.Status.OPEN)


def test_example_a_seed_deal(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)

    for name in ("Alice", "Cara", "Ben"):
        deal = deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor).deal

    deal.refresh_from_db()
    assert deal.status == "filed"
    points = {dp.player.name: dp.points for dp in deal.deal_players.select_related("player")}
    assert points == {"Alice": 3, "Ben": 1, "Cara": 2, "Dev": 0}
    assert ledger_of(deal) == [
        ("Dev", "Alice", Decimal("1.000"), "loser_pays"),
        ("Dev", "Ben", Decimal("1.000"), "loser_pays"),
        ("Dev", "Cara", Decimal("1.000"), "loser_pays"),
    ]
    following = open_deal(session)
    assert following.number == 2
    assert (following.leader, following.dealer) == (p["Alice"], p["Dev"])


def test_example_b_three_players(make_session, actor):
    session, p = make_session(players=("X", "Y", "Z"))
    deal = open_deal(session)
    for name in ("X", "Y", "Z"):
        deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)

    assert ledger_of(deal) == [
        ("Z", "X", Decimal("1.000"), "loser_pays"),
        ("Z", "Y", Decimal("1.000"), "loser_pays"),
    ]
    rows = {row.name: row.points for row in session_standings(session)}
    assert rows == {"X": 3, "Y": 2, "Z": 1}


def test_example_c_two_players(make_session, actor):
    session, p = make_session(players=("X", "Y"))
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=p["X"].pk, actor=actor)
    deal_tap(deal_id=deal.pk, player_id=p["Y"].pk, actor=actor)

    deal.refresh_from_db()
    assert deal.status == "filed"
    assert ledger_of(deal) == [("Y", "X", Decimal("1.000"), "loser_pays")]
    assert {row.name: row.points for row in session_standings(session)} == {"X": 3, "Y": 2}


def test_example_d_pay_by_the_card(make_session, actor):
    session, p = make_session(format="winner_takes_all", stake_rule="per_card", stake="0.50")
    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=p["Alice"].pk, actor=actor)
    for name, cards in (("Ben", 5), ("Cara", 11), ("Dev", 1)):
        deal_event_record(
            deal_id=deal.pk, event=scoring.Hand(player=p[name].pk, cards=cards), actor=actor
        )

    deal.refresh_from_db()
    assert deal.status == "filed"
    assert ledger_of(deal) == [
        ("Ben", "Alice", Decimal("2.500"), "cards_left"),
        ("Cara", "Alice", Decimal("5.500"), "cards_left"),
        ("Dev", "Alice", Decimal("0.500"), "cards_left"),
    ]


def test_example_e_pro_play(make_session, actor):
    session, p = make_session(
        players=("A", "B", "C", "D"), format="winner_takes_all", stake_rule="pro_play"
    )
    deal = open_deal(session)
    a, b, c, d = (p[name].pk for name in "ABCD")
    for event in (
        scoring.TwoBeaten(by=b, owner=a, beaten_with=scoring.Beater.CUTUP, red=1),
        scoring.CutupBeaten(by=c, owner=b),
    ):
        deal_event_record(deal_id=deal.pk, event=event, actor=actor)
    deal_tap(deal_id=deal.pk, player_id=d, actor=actor)
    for event in (
        scoring.Hand(player=a, cards=12, black_twos=1),
        scoring.Hand(player=b, cards=4, bombs=1),
        scoring.Hand(player=c, cards=7),
    ):
        deal_event_record(deal_id=deal.pk, event=event, actor=actor)

    nets = {row.name: row.net for row in session_standings(session)}
    assert nets == {
        "A": Decimal("-4.5"),
        "B": Decimal("-5.5"),
        "C": Decimal("2"),
        "D": Decimal("8"),
    }


def test_example_f_guaransheed(make_session, actor):
    session, p = make_session(
        players=("A", "B", "C", "D"), options=scoring.Options(guaransheed=True)
    )
    deal = open_deal(session)
    deal_event_record(deal_id=deal.pk, event=scoring.Guaransheed(player=p["A"].pk), actor=actor)
    for name in ("A", "B", "D"):
        deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)

    one = Decimal("1.000")
    assert ledger_of(deal) == [
        ("C", "A", one, "loser_pays"),
        ("C", "B", one, "loser_pays"),
        ("C", "D", one, "loser_pays"),
        ("B", "A", one, "guaransheed_won"),
        ("C", "A", one, "guaransheed_won"),
        ("D", "A", one, "guaransheed_won"),
    ]


def test_example_g_settlement_two_transfers(make_session, actor):
    """Balances A +5, B +3, C −3, D −5, built from two deals paid by the card."""
    session, p = make_session(
        players=("A", "B", "C", "D"), format="winner_takes_all", stake_rule="per_card"
    )
    deals = [("A", {"B": 0, "C": 3, "D": 2}), ("B", {"A": 0, "C": 0, "D": 3})]
    for winner, hands in deals:
        deal = open_deal(session)
        deal_tap(deal_id=deal.pk, player_id=p[winner].pk, actor=actor)
        for name, cards in hands.items():
            hand = scoring.Hand(player=p[name].pk, cards=cards)
            deal_event_record(deal_id=deal.pk, event=hand, actor=actor)

    settlement = session_settlement(session)

    names = {player.pk: name for name, player in p.items()}
    balances = {names[pk]: net for pk, net in settlement.balances.items()}
    assert balances == {"A": 5, "B": 3, "C": -3, "D": -5}
    transfers = [(names[t.payer], names[t.payee], t.amount) for t in settlement.transfers]
    assert transfers == [("C", "B", Decimal(3)), ("D", "A", Decimal(5))]
