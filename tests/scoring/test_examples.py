"""SPEC §10 worked examples, at the scoring level."""

from decimal import Decimal

from scoring import (
    Beater,
    CutupBeaten,
    DealFacts,
    DealStatus,
    Format,
    Guaransheed,
    Hand,
    LedgerLine,
    Options,
    Reason,
    Rules,
    StakeRule,
    Tap,
    TwoBeaten,
    opening,
    play,
)
from scoring.settlement import balances_from_ledger, settle

ALICE, BEN, CARA, DEV = 1, 2, 3, 4
X, Y, Z = 11, 12, 13
LOSER_PAYS = Rules(stake=Decimal("1"))


def line(payer, payee, amount, reason):
    return LedgerLine(payer=payer, payee=payee, amount=Decimal(amount), reason=reason)


def test_example_a_seed_deal_files_on_third_tap():
    table = (ALICE, BEN, CARA, DEV)
    facts = DealFacts(players=table, rules=LOSER_PAYS, records=(Tap(ALICE), Tap(CARA), Tap(BEN)))

    result = play(facts)

    assert result.status is DealStatus.FILED
    assert result.points == {ALICE: 3, BEN: 1, CARA: 2, DEV: 0}
    assert result.loser == DEV
    assert result.ledger == (
        line(DEV, ALICE, "1", Reason.LOSER_PAYS),
        line(DEV, BEN, "1", Reason.LOSER_PAYS),
        line(DEV, CARA, "1", Reason.LOSER_PAYS),
    )
    next_deal = opening(rules=LOSER_PAYS, players=table, previous_players=table, previous=result)
    assert (next_deal.leader, next_deal.dealer) == (ALICE, DEV)


def test_example_a_two_taps_leave_the_deal_open():
    facts = DealFacts(
        players=(ALICE, BEN, CARA, DEV), rules=LOSER_PAYS, records=(Tap(ALICE), Tap(CARA))
    )

    result = play(facts)

    assert result.status is DealStatus.OPEN
    assert result.points == {ALICE: 3, BEN: 0, CARA: 2, DEV: 0}
    assert result.ledger == ()


def test_example_b_three_players_loser_tap_files():
    facts = DealFacts(players=(X, Y, Z), rules=LOSER_PAYS, records=(Tap(X), Tap(Y)))
    assert play(facts).status is DealStatus.OPEN

    result = play(DealFacts(players=(X, Y, Z), rules=LOSER_PAYS, records=(Tap(X), Tap(Y), Tap(Z))))

    assert result.status is DealStatus.FILED
    assert result.points == {X: 3, Y: 2, Z: 1}
    assert result.loser == Z
    assert result.ledger == (
        line(Z, X, "1", Reason.LOSER_PAYS),
        line(Z, Y, "1", Reason.LOSER_PAYS),
    )


def test_example_c_two_players_second_tap_files():
    result = play(DealFacts(players=(X, Y), rules=LOSER_PAYS, records=(Tap(X), Tap(Y))))

    assert result.status is DealStatus.FILED
    assert result.points == {X: 3, Y: 2}
    assert result.ledger == (line(Y, X, "1", Reason.LOSER_PAYS),)


def test_example_d_pay_by_the_card():
    rules = Rules(
        format=Format.WINNER_TAKES_ALL, stake_rule=StakeRule.PER_CARD, stake=Decimal("0.50")
    )
    records = (Tap(ALICE), Hand(BEN, cards=5), Hand(CARA, cards=11))
    facts = DealFacts(players=(ALICE, BEN, CARA, DEV), rules=rules, records=records)
    assert play(facts).status is DealStatus.OPEN

    result = play(
        DealFacts(players=facts.players, rules=rules, records=(*records, Hand(DEV, cards=1)))
    )

    assert result.status is DealStatus.FILED
    assert result.ledger == (
        line(BEN, ALICE, "2.50", Reason.CARDS_LEFT),
        line(CARA, ALICE, "5.50", Reason.CARDS_LEFT),
        line(DEV, ALICE, "0.50", Reason.CARDS_LEFT),
    )


def test_example_e_pro_play():
    a, b, c, d = 1, 2, 3, 4
    rules = Rules(format=Format.WINNER_TAKES_ALL, stake_rule=StakeRule.PRO_PLAY, stake=Decimal("1"))
    records = (
        TwoBeaten(by=b, owner=a, beaten_with=Beater.CUTUP, red=1),
        CutupBeaten(by=c, owner=b),
        Tap(d),
        Hand(a, cards=12, black_twos=1),
        Hand(b, cards=4, bombs=1),
        Hand(c, cards=7),
    )

    result = play(DealFacts(players=(a, b, c, d), rules=rules, records=records))

    assert result.status is DealStatus.FILED
    assert result.ledger[:2] == (
        line(a, b, "1.5", Reason.TWO_BEATEN),
        line(b, c, "3", Reason.CUTUP_BEATEN),
    )
    assert balances_from_ledger(result.ledger) == {
        a: Decimal("-4.5"),
        b: Decimal("-5.5"),
        c: Decimal("2"),
        d: Decimal("8"),
    }


def test_example_f_guaransheed_won_with_loser_pays():
    a, b, c, d = 1, 2, 3, 4
    rules = Rules(stake=Decimal("1"), options=Options(guaransheed=True))
    records = (Guaransheed(a), Tap(a), Tap(b), Tap(d))

    result = play(DealFacts(players=(a, b, c, d), rules=rules, records=records))

    assert result.status is DealStatus.FILED
    assert result.loser == c
    assert result.ledger == (
        line(c, a, "1", Reason.LOSER_PAYS),
        line(c, b, "1", Reason.LOSER_PAYS),
        line(c, d, "1", Reason.LOSER_PAYS),
        line(b, a, "1", Reason.GUARANSHEED_WON),
        line(c, a, "1", Reason.GUARANSHEED_WON),
        line(d, a, "1", Reason.GUARANSHEED_WON),
    )


def test_example_g_settlement_takes_two_transfers():
    a, b, c, d = 1, 2, 3, 4
    balances = {a: Decimal(5), b: Decimal(3), c: Decimal(-3), d: Decimal(-5)}

    transfers = settle(balances)

    assert [(t.payer, t.payee, t.amount) for t in transfers] == [
        (c, b, Decimal(3)),
        (d, a, Decimal(5)),
    ]
