"""Correcting a closed deal (scoring.correct, SPEC 3.4): the records are rebuilt from a new
tap order, a loser and events added or taken out, then replayed."""

from decimal import Decimal

import pytest

from scoring import (
    Beater,
    DealFacts,
    DealStatus,
    Format,
    Guaransheed,
    Hand,
    InstantWin,
    InstantWinKind,
    LedgerLine,
    Options,
    Reason,
    Record,
    Rules,
    ScoringError,
    StakeRule,
    Tap,
    TwoBeaten,
    add_record,
    allowed,
    correct,
    end_match,
    play,
)
from scoring.text import Text

ALICE, BEN, CARA, DEV, EVE = 1, 2, 3, 4, 5
THREE = (ALICE, BEN, CARA)
FOUR = (ALICE, BEN, CARA, DEV)
FIVE = (ALICE, BEN, CARA, DEV, EVE)
NAMES = {ALICE: "Alice", BEN: "Ben", CARA: "Cara", DEV: "Dev", EVE: "Eve"}


def rules(**on: bool) -> Rules:
    return Rules(options=Options(**on))


def facts(players: tuple[int, ...], rule_set: Rules, *records: Record) -> DealFacts:
    return DealFacts(players=players, rules=rule_set, records=records, names=NAMES)


def taps(*players: int) -> tuple[Tap, ...]:
    return tuple(Tap(player) for player in players)


def refusal(deal: DealFacts, **change: object) -> ScoringError:
    with pytest.raises(ScoringError) as caught:
        correct(deal, **change)
    return caught.value


def line(payer: int, payee: int, amount: str, reason: Reason) -> LedgerLine:
    return LedgerLine(payer=payer, payee=payee, amount=Decimal(amount), reason=reason)


TWO_BEATEN = TwoBeaten(BEN, ALICE, Beater.CUTUP, black=1)


# --- Tap order ------------------------------------------------------------------------


def test_order_new_tap_order_replaces_the_taps():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA, BEN))

    corrected, result = correct(deal, order=[BEN, ALICE, DEV])

    assert corrected.records == taps(BEN, ALICE, DEV)
    assert result == play(corrected)
    assert result.places == {BEN: 1, ALICE: 2, DEV: 3, CARA: 4}
    assert result.loser == CARA


def test_order_none_keeps_the_taps_as_they_are():
    deal = facts(FIVE, rules(), *taps(EVE, ALICE, CARA), Tap(BEN, loser=True))

    corrected, result = correct(deal, add=[TWO_BEATEN])

    assert corrected.records == (TWO_BEATEN, *deal.records)
    assert result.loser == BEN


def test_order_keeps_players_rules_names_and_ended():
    deal = end_match(facts(FIVE, rules(), *taps(EVE, ALICE)))[0]

    corrected, result = correct(deal, order=[ALICE, EVE])

    assert (corrected.players, corrected.rules, corrected.names) == (FIVE, deal.rules, NAMES)
    assert corrected.ended is True
    assert result.status is DealStatus.ENDED
    assert result.winner == ALICE


def test_order_player_twice_is_refused():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA, BEN))

    error = refusal(deal, order=[ALICE, BEN, ALICE])

    assert error.message == "A player appears twice in the tap order."
    assert error.conflict is False


def test_order_not_played_marks_stay_with_the_player():
    rule_set = rules(got_to_get_in=True)
    deal = facts(FOUR, rule_set, Tap(ALICE, not_played=(DEV,)), *taps(BEN, CARA))

    corrected, result = correct(deal, order=[BEN, ALICE, CARA])

    assert corrected.records == (Tap(BEN), Tap(ALICE, not_played=(DEV,)), Tap(CARA))
    assert line(DEV, ALICE, "2", Reason.GOT_TO_GET_IN) in result.ledger


def test_order_new_player_in_the_order_has_no_marks():
    rule_set = rules(got_to_get_in=True)
    deal = facts(FOUR, rule_set, Tap(ALICE, not_played=(DEV,)), *taps(BEN, CARA))

    corrected, _ = correct(deal, order=[DEV, BEN, CARA])

    assert corrected.records == taps(DEV, BEN, CARA)


# --- The loser ------------------------------------------------------------------------


def test_a_loser_alone_changes_the_loser_and_keeps_the_places():
    deal = facts(FIVE, rules(), *taps(EVE, ALICE, CARA), Tap(BEN, loser=True))

    corrected, result = correct(deal, loser=DEV)

    assert corrected.records == (*taps(EVE, ALICE, CARA), Tap(DEV, loser=True))
    assert result.loser == DEV
    assert result.points == play(deal).points


def test_a_loser_alone_who_cannot_be_the_loser_is_refused():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA, BEN))  # Dev, untapped, lost

    error = refusal(deal, loser=BEN)

    assert error.message.startswith("That correction does not add up")


def test_loser_not_in_the_order_is_appended_as_a_loser_tap():
    deal = facts(FIVE, rules(), *taps(EVE, ALICE, CARA), Tap(BEN, loser=True))

    corrected, result = correct(deal, order=[ALICE, EVE, CARA], loser=DEV)

    assert corrected.records == (*taps(ALICE, EVE, CARA), Tap(DEV, loser=True))
    assert result.status is DealStatus.FILED
    assert result.loser == DEV
    assert result.places[DEV] == 5


def test_loser_last_in_the_order_is_an_ordinary_tap():
    deal = facts(THREE, rules(), *taps(ALICE, BEN, CARA))

    corrected, result = correct(deal, order=[BEN, ALICE, CARA], loser=CARA)

    assert corrected.records == taps(BEN, ALICE, CARA)
    assert result.loser == CARA


def test_loser_in_the_order_but_not_last_is_refused():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA, BEN))

    error = refusal(deal, order=[ALICE, DEV, BEN], loser=DEV)

    assert error.message == "The loser is the last player in the tap order."


# --- Events ---------------------------------------------------------------------------


def test_add_records_are_sorted_by_phase():
    rule_set = rules(guaransheed=True, penalties=True)
    deal = facts(FOUR, rule_set, TWO_BEATEN, *taps(ALICE, CARA, BEN), Hand(DEV, cards=5))
    later_two = TwoBeaten(CARA, DEV, Beater.BOMB, red=1)

    corrected, result = correct(
        deal, remove=[4], add=[Hand(DEV, cards=2), later_two, Guaransheed(BEN)]
    )

    # Declarations first, then play in the order recorded, then taps, then hands.
    assert corrected.records == (
        Guaransheed(BEN),
        TWO_BEATEN,
        later_two,
        *taps(ALICE, CARA, BEN),
        Hand(DEV, cards=2),
    )
    assert result.status is DealStatus.FILED
    assert line(BEN, DEV, "2", Reason.GUARANSHEED_LOST) in result.ledger


def test_add_guaransheed_after_the_taps_is_decided_at_filing():
    deal = facts(FOUR, rules(guaransheed=True), *taps(ALICE, CARA, BEN))

    _, result = correct(deal, add=[Guaransheed(ALICE)])

    assert line(BEN, ALICE, "1", Reason.GUARANSHEED_WON) in result.ledger


def test_add_instant_win_drops_the_taps():
    deal = facts(FOUR, rules(instant_wins=True), *taps(ALICE, CARA, BEN))
    claim = InstantWin(DEV, InstantWinKind.DRAGON)

    corrected, result = correct(deal, add=[claim])

    assert corrected.records == (claim,)
    assert result.places == {DEV: 1}
    assert result.winner == DEV


def test_add_instant_win_drops_a_new_order_too():
    deal = facts(FOUR, rules(instant_wins=True), *taps(ALICE, CARA, BEN))
    claim = InstantWin(DEV, InstantWinKind.FOUR_TWOS)

    corrected, _ = correct(deal, order=[BEN, CARA, ALICE], add=[claim])

    assert corrected.records == (claim,)


def test_remove_takes_out_the_event_at_that_index():
    deal = facts(FOUR, rules(penalties=True), TWO_BEATEN, *taps(ALICE, CARA, BEN))

    corrected, result = correct(deal, remove={0})

    assert corrected.records == taps(ALICE, CARA, BEN)
    assert all(entry.reason is not Reason.TWO_BEATEN for entry in result.ledger)


def test_remove_then_add_replaces_a_hand():
    deal = facts(FOUR, rules(penalties=True), *taps(ALICE, CARA, BEN), Hand(DEV, cards=5))

    corrected, result = correct(deal, remove=[3], add=[Hand(DEV, cards=6, bombs=1)])

    assert corrected.records == (*taps(ALICE, CARA, BEN), Hand(DEV, cards=6, bombs=1))
    assert line(DEV, ALICE, "3", Reason.UNUSED_BOMB) in result.ledger


@pytest.mark.parametrize("index", [1, 4, 5, -1])
def test_remove_index_of_no_event_is_refused(index):
    deal = facts(FOUR, rules(penalties=True), TWO_BEATEN, *taps(ALICE, CARA, BEN))

    error = refusal(deal, remove=[index])

    assert error.message == "There is no such event on this deal."


# --- Refusals -------------------------------------------------------------------------


def test_open_deal_is_refused_as_a_conflict():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA))

    error = refusal(deal, order=[CARA, ALICE])

    assert error.message == "This deal is still open: use undo, or record what is missing."
    assert error.conflict is True


def test_replay_refusal_is_wrapped_with_its_reason():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA, BEN))

    error = refusal(deal, add=[TwoBeaten(BEN, BEN, Beater.BOMB, black=1)])

    assert error.text == Text(
        "That correction does not add up: %(reason)s",
        {"reason": Text("A player cannot beat their own cards.")},
    )
    assert error.message == (
        "That correction does not add up: A player cannot beat their own cards."
    )
    assert error.conflict is False


def test_replay_refusal_keeps_the_reason_values():
    deal = facts(FOUR, rules(), *taps(ALICE, CARA, BEN))

    error = refusal(deal, order=[ALICE, 99, BEN])

    assert error.message == "That correction does not add up: Player 99 is not playing this deal."


def test_filed_deal_left_unfinished_is_refused():
    deal = facts(FIVE, rules(), *taps(EVE, ALICE, CARA, BEN))

    error = refusal(deal, order=[EVE, ALICE, CARA])

    assert error.text == Text(
        "That correction leaves the deal unfinished: %(reason)s",
        {"reason": Text("Waiting for the loser.")},
    )
    assert error.message == "That correction leaves the deal unfinished: Waiting for the loser."


def test_ended_deal_may_stay_unfinished():
    deal = end_match(facts(FIVE, rules(), *taps(EVE, ALICE, CARA)))[0]

    _, result = correct(deal, order=[EVE, CARA])

    assert result.status is DealStatus.ENDED


def test_winner_takes_all_hands_corrected_after_filing():
    rule_set = Rules(format=Format.WINNER_TAKES_ALL, stake_rule=StakeRule.PER_CARD)
    deal = facts(THREE, rule_set, Tap(BEN), Hand(ALICE, cards=3), Hand(CARA, cards=4))

    _, result = correct(deal, remove=[2], add=[Hand(CARA, cards=1)])

    assert result.ledger == (
        line(ALICE, BEN, "3", Reason.CARDS_LEFT),
        line(CARA, BEN, "1", Reason.CARDS_LEFT),
    )


def filed_with_an_empty_hand_before_its_tap() -> DealFacts:
    """Loser pays with penalties: Alice's hand is noted (no cards left) while she still
    holds cards, then she goes out first; the deal files at the third tap."""
    deal = facts(FOUR, rules(penalties=True))
    assert ALICE in allowed(deal).hands
    deal, _result = add_record(deal, Hand(ALICE, cards=0))
    for player in (ALICE, BEN, CARA):
        deal, result = add_record(deal, Tap(player))
    assert result.status is DealStatus.FILED
    return deal


def test_a_hand_noted_before_its_player_went_out_replays_before_the_tap():
    deal = filed_with_an_empty_hand_before_its_tap()

    same, unchanged = correct(deal, order=[ALICE, BEN, CARA])
    reordered, after = correct(deal, order=[BEN, ALICE, CARA])

    assert unchanged == play(deal)
    assert same.records == deal.records
    assert reordered.records == (Tap(BEN), Hand(ALICE, cards=0), Tap(ALICE), Tap(CARA))
    assert after.places == {BEN: 1, ALICE: 2, CARA: 3, DEV: 4}


def test_what_allowed_offers_a_filed_deal_with_such_a_hand_is_accepted():
    deal = filed_with_an_empty_hand_before_its_tap()
    offered = allowed(deal)

    assert offered.two_beaten is True
    _facts, after = correct(deal, add=[TwoBeaten(BEN, CARA, Beater.BOMB, black=1)])
    assert after.status is DealStatus.FILED
    assert offered.hands == (DEV,)
    _facts, after = correct(deal, add=[Hand(DEV, cards=3, black_twos=1)])
    assert (DEV, ALICE, Decimal("1"), Reason.UNUSED_BLACK_TWO) in [
        (line.payer, line.payee, line.amount, line.reason) for line in after.ledger
    ]
