"""scoring.preview: the money a record would move, as the sheets' Save buttons name it."""

from decimal import Decimal

from scoring import (
    Beater,
    DealFacts,
    Guaransheed,
    Hand,
    Options,
    Reason,
    Rules,
    Tap,
    TwoBeaten,
    add_record,
    fewest_cards,
    preview,
)

ALICE, BEN, CARA, DEV = 1, 2, 3, 4
FOUR = (ALICE, BEN, CARA, DEV)
PENALTIES = Rules(stake=Decimal("2"), options=Options(penalties=True, guaransheed=True))


def moved(result):
    return [(line.payer, line.payee, line.amount, line.reason) for line in result.gained]


def deal(*records, rules=PENALTIES):
    facts = DealFacts(players=FOUR, rules=rules, names={ALICE: "Alice"})
    for record in records:
        facts, _result = add_record(facts, record)
    return facts


def test_a_red_2_chopped_by_a_cutup_moves_one_and_a_half_stakes():
    chop = TwoBeaten(by=BEN, owner=CARA, beaten_with=Beater.CUTUP, red=1)

    assert moved(preview(deal(), chop)) == [(CARA, BEN, Decimal("3.0"), Reason.TWO_BEATEN)]


def test_an_unused_2_moves_nothing_before_the_winner_is_out_and_pays_the_winner_after():
    hand = Hand(DEV, cards=1, red_twos=1)

    assert moved(preview(deal(), hand)) == []
    assert moved(preview(deal(Tap(ALICE)), hand)) == [
        (DEV, ALICE, Decimal("4"), Reason.UNUSED_RED_TWO)
    ]


def test_a_guaransheed_names_what_it_moves_once_first_place_is_known():
    declared = preview(deal(), Guaransheed(ALICE))

    assert (moved(declared), declared.refused) == ([], None)


def test_a_refused_record_says_why_and_moves_nothing():
    result = preview(deal(Tap(ALICE)), Guaransheed(BEN))

    assert moved(result) == []
    assert result.refused is not None
    assert str(result.refused) == "A Guaransheed is declared before the first player goes out."


def test_on_a_filed_deal_it_is_what_the_correction_changes():
    filed = deal(Tap(ALICE), Tap(BEN), Tap(CARA))  # Dev loses: pays 2 to each
    replaced = deal(Tap(ALICE), Tap(BEN), Tap(CARA), Hand(DEV, cards=4, black_twos=1))

    added = preview(filed, Hand(DEV, cards=4, black_twos=1))
    again = preview(replaced, Hand(DEV, cards=4))

    assert moved(added) == [(DEV, ALICE, Decimal("2"), Reason.UNUSED_BLACK_TWO)]
    assert (moved(again), [(line.payer, line.reason) for line in again.lost]) == (
        [],
        [(DEV, Reason.UNUSED_BLACK_TWO)],
    )


def test_fewest_cards_is_what_the_unused_cards_take():
    assert fewest_cards(black_twos=1, red_twos=1, cutups=0, bombs=0) == 2
    assert fewest_cards(black_twos=0, red_twos=0, cutups=1, bombs=1) == 6
    assert fewest_cards(black_twos=0, red_twos=0, cutups=0, bombs=0) == 0
