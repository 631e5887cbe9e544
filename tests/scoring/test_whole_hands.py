"""A player who had not played a card when play ended holds the whole hand they were dealt
(seed 000: Got to Get In; Pro-Play's "over 10 cards pays 2x"). docs/rules.md "Hands"."""

from decimal import Decimal

import pytest

from scoring import (
    DealFacts,
    DealStatus,
    Format,
    Hand,
    LedgerLine,
    Options,
    Reason,
    Rules,
    ScoringError,
    StakeRule,
    Tap,
    allowed,
    correct,
    play,
)

ALICE, BEN, CARA, DEV = 1, 2, 3, 4
FOUR = (ALICE, BEN, CARA, DEV)
THREE = (ALICE, BEN, CARA)
NAMES = {ALICE: "Alice", BEN: "Ben", CARA: "Cara", DEV: "Dev"}


def rules(stake_rule=StakeRule.PRO_PLAY, hand_size=13, **options) -> Rules:
    needs_hands = stake_rule in (StakeRule.PER_CARD, StakeRule.PRO_PLAY)
    return Rules(
        format=Format.WINNER_TAKES_ALL if needs_hands else Format.PODIUM,
        stake_rule=stake_rule,
        options=Options(got_to_get_in=True, **options),
        hand_size=hand_size,
    )


def facts(players, rule_set, *records) -> DealFacts:
    return DealFacts(players=players, rules=rule_set, records=records, names=NAMES)


def refusal(players, rule_set, *records) -> str:
    with pytest.raises(ScoringError) as caught:
        play(facts(players, rule_set, *records))
    return caught.value.message


def line(payer, payee, amount, reason) -> LedgerLine:
    return LedgerLine(payer=payer, payee=payee, amount=Decimal(amount), reason=reason)


WON_WITH_BEN_UNPLAYED = Tap(ALICE, not_played=(BEN,))
BEN_HOLDS_ALL = "Ben had not played a card when play ended, so their hand holds all %s cards."


# --- Pro-Play -----------------------------------------------------------------------------


def test_whole_hand_pro_play_fewer_cards_refused():
    message = refusal(FOUR, rules(), WON_WITH_BEN_UNPLAYED, Hand(BEN, cards=5))

    assert message == BEN_HOLDS_ALL % 13


def test_whole_hand_pro_play_pays_double_and_got_to_get_in():
    result = play(
        facts(
            FOUR,
            rules(),
            WON_WITH_BEN_UNPLAYED,
            Hand(BEN, cards=13, red_twos=1),
            Hand(CARA, cards=4),
            Hand(DEV, cards=11),
        )
    )

    assert result.status is DealStatus.FILED
    assert result.ledger == (
        line(BEN, ALICE, "2", Reason.GOT_TO_GET_IN),
        line(BEN, ALICE, "2", Reason.PRO_PLAY_WIN),  # all 13 cards: over 10 pays 2x
        line(BEN, ALICE, "2", Reason.UNUSED_RED_TWO),
        line(CARA, ALICE, "1", Reason.PRO_PLAY_WIN),
        line(DEV, ALICE, "2", Reason.PRO_PLAY_WIN),
    )


def test_whole_hand_recorded_before_the_tap_that_marks_them_is_refused():
    message = refusal(FOUR, rules(), Hand(BEN, cards=5), WON_WITH_BEN_UNPLAYED)

    assert message == BEN_HOLDS_ALL % 13


def test_whole_hand_recorded_in_full_before_the_tap_is_accepted():
    result = play(facts(FOUR, rules(), Hand(BEN, cards=13), WON_WITH_BEN_UNPLAYED))

    assert result.status is DealStatus.OPEN  # Cara's and Dev's hands are still due


def test_whole_hand_follows_the_hand_size_dealt():
    rule_set = rules(StakeRule.PER_CARD, hand_size=17)

    assert refusal(THREE, rule_set, WON_WITH_BEN_UNPLAYED, Hand(BEN, cards=13)) == (
        BEN_HOLDS_ALL % 17
    )
    result = play(facts(THREE, rule_set, WON_WITH_BEN_UNPLAYED, Hand(BEN, 17), Hand(CARA, 2)))
    assert result.ledger[:2] == (
        line(BEN, ALICE, "2", Reason.GOT_TO_GET_IN),
        line(BEN, ALICE, "17", Reason.CARDS_LEFT),
    )


def test_whole_hand_allowed_names_who_must_hold_every_card():
    offered = allowed(facts(FOUR, rules(), WON_WITH_BEN_UNPLAYED))

    assert offered.hands_due == (BEN, CARA, DEV)
    assert offered.whole_hands == (BEN,)
    assert offered.most_cards == 13
    assert allowed(facts(FOUR, rules(), Tap(ALICE))).whole_hands == ()


def test_whole_hand_correction_adding_a_short_hand_is_refused():
    ended = facts(FOUR, rules(), WON_WITH_BEN_UNPLAYED, Hand(CARA, 2), Hand(DEV, 3))
    ended = DealFacts(players=FOUR, rules=rules(), records=ended.records, ended=True, names=NAMES)

    assert allowed(ended).whole_hands == (BEN,)
    with pytest.raises(ScoringError, match="their hand holds all 13 cards"):
        correct(ended, add=[Hand(BEN, cards=6)])
    assert correct(ended, add=[Hand(BEN, cards=13)])[1].status is DealStatus.FILED


# --- Loser pays: play goes on after a tap until the deal files ----------------------------


def test_whole_hand_loser_pays_marked_before_the_end_may_have_played_since():
    rule_set = rules(StakeRule.LOSER_PAYS, penalties=True)
    records = (Tap(ALICE, not_played=(DEV,)), Tap(BEN), Tap(CARA), Hand(DEV, cards=5))

    assert play(facts(FOUR, rule_set, *records)).status is DealStatus.FILED
    assert allowed(facts(FOUR, rule_set, *records[:3])).whole_hands == ()


def test_whole_hand_loser_pays_marked_on_the_filing_tap_holds_every_card():
    rule_set = rules(StakeRule.LOSER_PAYS, penalties=True)
    records = (Tap(ALICE), Tap(BEN), Tap(CARA, not_played=(DEV,)))

    assert allowed(facts(FOUR, rule_set, *records)).whole_hands == (DEV,)
    message = refusal(FOUR, rule_set, *records, Hand(DEV, cards=5))
    assert message == "Dev had not played a card when play ended, so their hand holds all 13 cards."
    assert play(facts(FOUR, rule_set, *records, Hand(DEV, cards=13))).status is DealStatus.FILED
