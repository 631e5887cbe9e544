"""Instant wins as seed 000 has them: none with two packs (Double Deck 13), whatever the
session's options say. SPEC 4.4 and docs/rules.md "Instant wins"."""

import pytest

from scoring import (
    DealFacts,
    DealStatus,
    InstantWin,
    InstantWinKind,
    Options,
    Rules,
    ScoringError,
    Tap,
    allowed,
    check_rules,
    check_start,
    correct,
    play,
)

ALICE, BEN, CARA, DEV, EVE, FAY, GUS, HAL = 1, 2, 3, 4, 5, 6, 7, 8
EVERYONE = (ALICE, BEN, CARA, DEV, EVE, FAY, GUS, HAL)
TWO_PACKS = "With 5 to 8 players two packs are dealt, and two packs have no instant wins."
KINDS = tuple(InstantWinKind)


def rules(**options: bool) -> Rules:
    return Rules(options=Options(**options))


def facts(size: int, rule_set: Rules, *records) -> DealFacts:
    return DealFacts(players=EVERYONE[:size], rules=rule_set, records=records)


# --- Two packs, no instant wins ----------------------------------------------------------


@pytest.mark.parametrize("size", [5, 6, 7, 8])
@pytest.mark.parametrize("option", [True, False])
def test_instant_win_two_packs_claim_refused_whatever_the_option(size, option):
    claim = InstantWin(ALICE, InstantWinKind.FOUR_TWOS)

    with pytest.raises(ScoringError) as caught:
        play(facts(size, rules(instant_wins=option), claim))

    assert caught.value.message == TWO_PACKS


@pytest.mark.parametrize("size", [2, 3, 4])
def test_instant_win_one_pack_claim_files_the_deal(size):
    result = play(facts(size, rules(instant_wins=True), InstantWin(BEN, InstantWinKind.DRAGON)))

    assert (result.status, result.winner) == (DealStatus.FILED, BEN)


@pytest.mark.parametrize("size", [5, 8])
def test_instant_win_two_packs_not_offered_on_an_open_deal(size):
    offered = allowed(facts(size, rules(instant_wins=True)))

    assert (offered.instant_win, offered.instant_win_kinds) == ((), ())


def test_instant_win_two_packs_not_offered_to_a_correction():
    filed = facts(5, rules(instant_wins=True), *(Tap(p) for p in (ALICE, BEN, CARA, DEV)))

    assert allowed(filed).status is DealStatus.FILED
    assert allowed(filed).instant_win == ()
    with pytest.raises(ScoringError, match="two packs have no instant wins"):
        correct(filed, add=[InstantWin(EVE, InstantWinKind.SIX_PAIRS)])


def test_instant_win_four_players_still_offered():
    offered = allowed(facts(4, rules(instant_wins=True)))

    assert offered.instant_win == EVERYONE[:4]
    assert offered.instant_win_kinds == (
        InstantWinKind.SIX_PAIRS,
        InstantWinKind.THREE_TRIPLES,
        InstantWinKind.DRAGON,
        InstantWinKind.FOUR_TWOS,
    )


@pytest.mark.parametrize("size", [5, 8])
def test_check_start_two_packs_refuses_instant_wins(size):
    with pytest.raises(ScoringError) as caught:
        check_start(rules(instant_wins=True), size)

    assert caught.value.message == (
        "With 5 to 8 players two packs are dealt, and two packs have no instant wins: "
        "switch instant wins off, or seat 2 to 4 players."
    )


def test_check_start_one_pack_accepts_instant_wins():
    check_start(rules(instant_wins=True), 4)
    check_start(rules(), 8)


def test_check_rules_seating_a_fifth_player_keeps_instant_wins():
    # A change of seating is not refused over instant wins: they sleep at 5 to 8.
    check_rules(rules(instant_wins=True), 5)


# --- Alternate instant win hand: 5 consecutive pairs (seed 000), a session option ----------

FIVE_PAIRS = InstantWinKind.FIVE_CONSECUTIVE_PAIRS


def test_five_consecutive_pairs_offered_only_with_its_option():
    without = allowed(facts(4, rules(instant_wins=True)))
    with_it = allowed(facts(4, rules(instant_wins=True, five_consecutive_pairs=True)))

    assert FIVE_PAIRS not in without.instant_win_kinds
    assert with_it.instant_win_kinds == (
        InstantWinKind.SIX_PAIRS,
        FIVE_PAIRS,
        InstantWinKind.THREE_TRIPLES,
        InstantWinKind.DRAGON,
        InstantWinKind.FOUR_TWOS,
    )


def test_five_consecutive_pairs_claim_wins_outright_with_its_option():
    rule_set = rules(instant_wins=True, five_consecutive_pairs=True)

    result = play(facts(4, rule_set, InstantWin(CARA, FIVE_PAIRS)))

    assert (result.status, result.winner, result.points[CARA]) == (DealStatus.FILED, CARA, 3)
    assert [(line.payer, line.payee, line.amount) for line in result.ledger] == [
        (ALICE, CARA, 1),
        (BEN, CARA, 1),
        (DEV, CARA, 1),
    ]


def test_five_consecutive_pairs_claim_refused_without_its_option():
    with pytest.raises(ScoringError) as caught:
        play(facts(4, rules(instant_wins=True), InstantWin(CARA, FIVE_PAIRS)))

    assert caught.value.message == (
        "5 consecutive pairs is not an instant win at this session: its option is off."
    )


def test_five_consecutive_pairs_option_needs_instant_wins():
    with pytest.raises(ScoringError) as caught:
        check_rules(rules(five_consecutive_pairs=True), 4)

    assert caught.value.message == (
        "5 consecutive pairs is an instant-win hand: switch on instant wins too."
    )
    check_rules(rules(instant_wins=True, five_consecutive_pairs=True), 4)
