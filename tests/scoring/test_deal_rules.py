"""The deal engine rule by rule (SPEC 3 and 4): filing, points, ledgers, refusals, and
the opening of the next deal. SPEC 10's worked examples live in test_examples.py."""

from decimal import Decimal

import pytest

from scoring import (
    Beater,
    CutupBeaten,
    DealFacts,
    DealResult,
    DealStatus,
    Format,
    Guaransheed,
    Hand,
    InstantWin,
    InstantWinKind,
    LedgerLine,
    Opening,
    Options,
    Reason,
    Record,
    Rules,
    ScoringError,
    StakeRule,
    Tap,
    TradingReminder,
    TwoBeaten,
    add_record,
    check_rules,
    check_stake,
    decks_for,
    end_match,
    max_hand_size,
    opening,
    play,
    podium_size,
)

ALICE, BEN, CARA, DEV, EVE, FAY, GUS, HAL = 1, 2, 3, 4, 5, 6, 7, 8
EVERYONE = (ALICE, BEN, CARA, DEV, EVE, FAY, GUS, HAL)
FOUR = (ALICE, BEN, CARA, DEV)
THREE = (ALICE, BEN, CARA)
TWO = (ALICE, BEN)
FIVE = (ALICE, BEN, CARA, DEV, EVE)
NAMES = {
    ALICE: "Alice",
    BEN: "Ben",
    CARA: "Cara",
    DEV: "Dev",
    EVE: "Eve",
    FAY: "Fay",
    GUS: "Gus",
    HAL: "Hal",
}
STRANGER = 99

PODIUM, WTA = Format.PODIUM, Format.WINNER_TAKES_ALL
NONE, LOSER_PAYS = StakeRule.NONE, StakeRule.LOSER_PAYS
PER_CARD, PRO_PLAY = StakeRule.PER_CARD, StakeRule.PRO_PLAY
CUTUP, BOMB = Beater.CUTUP, Beater.BOMB


def rules(
    stake_rule: StakeRule = LOSER_PAYS,
    format: Format | None = None,
    stake: str = "1",
    hand_size: int = 13,
    **options: bool,
) -> Rules:
    """A rule set; per_card and pro_play default to winner takes all, as they must."""
    if format is None:
        format = WTA if stake_rule in (PER_CARD, PRO_PLAY) else PODIUM
    return Rules(
        format=format,
        stake_rule=stake_rule,
        stake=Decimal(stake),
        options=Options(**options),
        hand_size=hand_size,
    )


def facts(players: tuple[int, ...], rule_set: Rules, *records: Record) -> DealFacts:
    return DealFacts(players=players, rules=rule_set, records=records, names=NAMES)


def deal(players: tuple[int, ...], rule_set: Rules, *records: Record) -> DealResult:
    return play(facts(players, rule_set, *records))


def ended(players: tuple[int, ...], rule_set: Rules, *records: Record) -> DealResult:
    return end_match(facts(players, rule_set, *records))[1]


def refusal(players: tuple[int, ...], rule_set: Rules, *records: Record) -> ScoringError:
    with pytest.raises(ScoringError) as caught:
        deal(players, rule_set, *records)
    return caught.value


def line(payer: int, payee: int, amount: str, reason: Reason) -> LedgerLine:
    return LedgerLine(payer=payer, payee=payee, amount=Decimal(amount), reason=reason)


def taps(*players: int) -> tuple[Tap, ...]:
    return tuple(Tap(player) for player in players)


def loser_pays_lines(table: tuple[int, ...], loser: int, amount: str = "1") -> list[LedgerLine]:
    return [line(loser, p, amount, Reason.LOSER_PAYS) for p in table if p != loser]


# --- Table rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "decks", "most_cards"),
    [(2, 1, 13), (3, 1, 17), (4, 1, 13), (5, 2, 20), (6, 2, 17), (7, 2, 14), (8, 2, 13)],
)
def test_table_size_sets_decks_and_largest_hand(players, decks, most_cards):
    assert (decks_for(players), max_hand_size(players)) == (decks, most_cards)


@pytest.mark.parametrize(
    ("players", "podium", "winner_takes_all"),
    [(2, 2, 1), (3, 3, 1), (4, 3, 1), (5, 3, 1), (8, 3, 1)],
)
def test_podium_size_is_three_at_most_and_one_for_winner_takes_all(
    players, podium, winner_takes_all
):
    assert podium_size(rules(), players) == podium
    assert podium_size(rules(format=WTA), players) == winner_takes_all


# --- Podium filing (SPEC 3.1, 3.2a) ---------------------------------------------------

# (players, stake rule, the tap that files when players are tapped in seat order)
PODIUM_FILING = [
    (2, NONE, 2),
    (3, NONE, 3),
    (4, NONE, 3),
    (5, NONE, 3),
    (6, NONE, 3),
    (7, NONE, 3),
    (8, NONE, 3),
    (2, LOSER_PAYS, 2),
    (3, LOSER_PAYS, 3),
    (4, LOSER_PAYS, 3),
    # Two decks and loser_pays: the deal waits until one player is left.
    (5, LOSER_PAYS, 4),
    (6, LOSER_PAYS, 5),
    (7, LOSER_PAYS, 6),
    (8, LOSER_PAYS, 7),
]


@pytest.mark.parametrize(("size", "stake_rule", "filing_tap"), PODIUM_FILING)
def test_podium_files_on_the_tap_that_fills_the_last_needed_place(size, stake_rule, filing_tap):
    table = EVERYONE[:size]
    rule_set = rules(stake_rule)

    statuses = [
        deal(table, rule_set, *taps(*table[:count])).status for count in range(filing_tap + 1)
    ]

    assert statuses == [DealStatus.OPEN] * filing_tap + [DealStatus.FILED]


@pytest.mark.parametrize(("size", "stake_rule", "filing_tap"), PODIUM_FILING)
def test_podium_tap_after_filing_is_a_conflict(size, stake_rule, filing_tap):
    table = EVERYONE[:size]
    filed = facts(table, rules(stake_rule), *taps(*table[:filing_tap]))
    if filing_tap == size:
        extra: Record = TwoBeaten(by=ALICE, owner=BEN, beaten_with=CUTUP, black=1)
    else:
        extra = Tap(table[filing_tap])

    with pytest.raises(ScoringError) as caught:
        add_record(filed, extra)

    assert (caught.value.message, caught.value.conflict) == ("This deal is already filed.", True)


@pytest.mark.parametrize(
    ("size", "stake_rule", "places", "points", "loser"),
    [
        (2, NONE, {ALICE: 1, BEN: 2}, {ALICE: 3, BEN: 2}, BEN),
        (3, NONE, {ALICE: 1, BEN: 2, CARA: 3}, {ALICE: 3, BEN: 2, CARA: 1}, CARA),
        (
            4,
            NONE,
            {ALICE: 1, BEN: 2, CARA: 3, DEV: 4},
            {ALICE: 3, BEN: 2, CARA: 1, DEV: 0},
            DEV,
        ),
        # 5-8 without loser_pays: filed at the 3rd tap, the loser is never known.
        (
            5,
            NONE,
            {ALICE: 1, BEN: 2, CARA: 3},
            {ALICE: 3, BEN: 2, CARA: 1, DEV: 0, EVE: 0},
            None,
        ),
        (
            4,
            LOSER_PAYS,
            {ALICE: 1, BEN: 2, CARA: 3, DEV: 4},
            {ALICE: 3, BEN: 2, CARA: 1, DEV: 0},
            DEV,
        ),
        (
            6,
            LOSER_PAYS,
            {ALICE: 1, BEN: 2, CARA: 3, DEV: 4, EVE: 5, FAY: 6},
            {ALICE: 3, BEN: 2, CARA: 1, DEV: 0, EVE: 0, FAY: 0},
            FAY,
        ),
    ],
)
def test_podium_filed_deal_scores_3_2_1_and_reads_the_rest_out(
    size, stake_rule, places, points, loser
):
    table = EVERYONE[:size]
    filing_tap = {2: 2, 3: 3}.get(size, 3 if stake_rule is NONE else size - 1)

    result = deal(table, rules(stake_rule), *taps(*table[:filing_tap]))

    assert (result.status, result.places, result.points) == (DealStatus.FILED, places, points)
    assert (result.winner, result.loser) == (ALICE, loser)


@pytest.mark.parametrize("size", range(2, 9))
def test_loser_pays_the_stake_to_every_other_player(size):
    table = EVERYONE[:size]
    loser = table[-1]
    filing_tap = max(min(3, size), size - 1)

    result = deal(table, rules(stake="2.50"), *taps(*table[:filing_tap]))

    assert result.loser == loser
    assert result.ledger == tuple(loser_pays_lines(table, loser, "2.50"))


def test_podium_taps_out_of_seat_order_score_by_tap_order():
    result = deal(FOUR, rules(), Tap(DEV), Tap(BEN), Tap(ALICE))

    assert str(result.why) == "The scoring places are filled and the loser is known."

    assert result == DealResult(
        status=DealStatus.FILED,
        why=result.why,
        places={DEV: 1, BEN: 2, ALICE: 3, CARA: 4},
        points={ALICE: 1, BEN: 2, CARA: 0, DEV: 3},
        winner=DEV,
        loser=CARA,
        ledger=(
            line(CARA, ALICE, "1", Reason.LOSER_PAYS),
            line(CARA, BEN, "1", Reason.LOSER_PAYS),
            line(CARA, DEV, "1", Reason.LOSER_PAYS),
        ),
    )


def test_podium_open_deal_shows_provisional_points_and_no_ledger():
    result = deal(FOUR, rules(), Tap(CARA))

    assert str(result.why) == "Waiting for 2nd place."

    assert result == DealResult(
        status=DealStatus.OPEN,
        why=result.why,
        places={CARA: 1},
        points={ALICE: 0, BEN: 0, CARA: 3, DEV: 0},
        winner=CARA,
        loser=None,
        ledger=(),
    )


@pytest.mark.parametrize(
    ("table", "records", "places", "points"),
    [
        # The untapped last player is the loser, but a podium place is filled by a tap.
        (THREE, taps(ALICE, BEN), {ALICE: 1, BEN: 2}, {ALICE: 3, BEN: 2, CARA: 0}),
        (TWO, taps(ALICE), {ALICE: 1}, {ALICE: 3, BEN: 0}),
    ],
)
def test_podium_untapped_loser_scores_nothing_until_tapped(table, records, places, points):
    result = deal(table, rules(), *records)

    assert (result.status, result.places, result.points) == (DealStatus.OPEN, places, points)
    assert result.loser == table[-1]
    assert result.ledger == ()


@pytest.mark.parametrize("size", range(5, 9))
def test_loser_tap_files_a_two_deck_deal_with_the_loser_last(size):
    table = EVERYONE[:size]
    loser = table[3]
    records = (*taps(ALICE, BEN, CARA), Tap(loser, loser=True))

    result = deal(table, rules(), *records)

    assert result.status is DealStatus.FILED
    assert result.places == {ALICE: 1, BEN: 2, CARA: 3, loser: size}
    assert result.points == {player: {ALICE: 3, BEN: 2, CARA: 1}.get(player, 0) for player in table}
    assert result.loser == loser
    assert result.ledger == tuple(loser_pays_lines(table, loser))


def test_loser_tap_is_refused_before_the_scoring_places_are_filled():
    error = refusal(FIVE, rules(), *taps(ALICE, BEN), Tap(EVE, loser=True))

    assert (error.message, error.conflict) == (
        "Tap the loser once the scoring places are filled.",
        False,
    )


def test_loser_tap_is_refused_once_the_deal_has_filed():
    error = refusal(FIVE, rules(), *taps(ALICE, BEN, CARA, DEV), Tap(EVE, loser=True))

    assert (error.message, error.conflict) == ("This deal is already filed.", True)


def test_loser_tap_with_not_played_is_refused():
    rule_set = rules(got_to_get_in=True)

    error = refusal(FIVE, rule_set, *taps(ALICE, BEN, CARA), Tap(EVE, (DEV,), loser=True))

    assert error.message == "The loser did not go out, so nobody pays Got to Get In."


def test_loser_tap_after_filing_under_no_stakes_is_a_conflict():
    error = refusal(FIVE, rules(NONE), *taps(ALICE, BEN, CARA), Tap(EVE, loser=True))

    assert error.conflict is True


# --- Winner takes all (SPEC 3.2, 3.2a) ------------------------------------------------


@pytest.mark.parametrize("size", range(2, 9))
def test_winner_takes_all_without_stakes_files_on_the_first_tap(size):
    table = EVERYONE[:size]

    result = deal(table, rules(NONE, WTA), Tap(BEN))

    assert result.status is DealStatus.FILED
    assert result.points == {player: int(player == BEN) for player in table}
    assert result.winner == BEN
    assert result.ledger == ()


def test_winner_takes_all_with_two_players_knows_the_loser_at_once():
    result = deal(TWO, rules(NONE, WTA), Tap(BEN))

    assert (result.places, result.points, result.loser) == (
        {BEN: 1, ALICE: 2},
        {ALICE: 0, BEN: 1},
        ALICE,
    )


@pytest.mark.parametrize(("size", "filing_tap"), [(2, 1), (3, 2), (4, 3), (5, 4), (8, 7)])
def test_winner_takes_all_with_loser_pays_waits_for_the_loser(size, filing_tap):
    table = EVERYONE[:size]
    rule_set = rules(LOSER_PAYS, WTA)

    statuses = [
        deal(table, rule_set, *taps(*table[:count])).status for count in range(1, filing_tap + 1)
    ]
    result = deal(table, rule_set, *taps(*table[:filing_tap]))

    assert statuses == [DealStatus.OPEN] * (filing_tap - 1) + [DealStatus.FILED]
    assert result.points == {player: int(player == ALICE) for player in table}
    assert result.places[table[-1]] == size
    assert result.ledger == tuple(loser_pays_lines(table, table[-1]))


def test_winner_takes_all_with_loser_pays_accepts_a_loser_tap_after_the_winner():
    result = deal(FOUR, rules(LOSER_PAYS, WTA), Tap(CARA), Tap(ALICE, loser=True))

    assert str(result.why) == "The scoring places are filled and the loser is known."

    assert result == DealResult(
        status=DealStatus.FILED,
        why=result.why,
        places={CARA: 1, ALICE: 4},
        points={ALICE: 0, BEN: 0, CARA: 1, DEV: 0},
        winner=CARA,
        loser=ALICE,
        ledger=tuple(loser_pays_lines(FOUR, ALICE)),
    )


def test_winner_takes_all_open_deal_says_it_waits_for_the_loser():
    result = deal(FIVE, rules(LOSER_PAYS, WTA), Tap(CARA))

    assert (result.status, str(result.why), result.points[CARA]) == (
        DealStatus.OPEN,
        "Waiting for the loser.",
        1,
    )


# --- Pay by the card and Pro-Play (SPEC 4, 4.1) ---------------------------------------


@pytest.mark.parametrize("stake_rule", [PER_CARD, PRO_PLAY])
def test_check_rules_refuses_a_podium_with_per_card_or_pro_play(stake_rule):
    with pytest.raises(ScoringError) as caught:
        check_rules(rules(stake_rule, PODIUM), 4)

    assert caught.value.message == (
        "Pay by the card and Pro-Play end the deal at the first player out, "
        "so they go with winner takes all, not a podium."
    )


PER_CARD_HANDS = (Hand(BEN, cards=5), Hand(CARA, cards=11), Hand(DEV, cards=1))


@pytest.mark.parametrize("tap_at", range(4))
def test_per_card_files_when_the_winner_is_out_and_every_hand_is_in(tap_at):
    records = list(PER_CARD_HANDS)
    records.insert(tap_at, Tap(ALICE))
    rule_set = rules(PER_CARD, stake="0.50")

    statuses = [deal(FOUR, rule_set, *records[:count]).status for count in range(1, 5)]
    result = deal(FOUR, rule_set, *records)

    assert statuses == [DealStatus.OPEN] * 3 + [DealStatus.FILED]
    assert str(result.why) == "The winner is out and every other hand is recorded."
    assert result == DealResult(
        status=DealStatus.FILED,
        why=result.why,
        places={ALICE: 1},
        points={ALICE: 1, BEN: 0, CARA: 0, DEV: 0},
        winner=ALICE,
        loser=None,
        ledger=(
            line(BEN, ALICE, "2.50", Reason.CARDS_LEFT),
            line(CARA, ALICE, "5.50", Reason.CARDS_LEFT),
            line(DEV, ALICE, "0.50", Reason.CARDS_LEFT),
        ),
    )


def test_per_card_open_deal_names_the_missing_hands():
    result = deal(FOUR, rules(PER_CARD), Tap(ALICE), Hand(CARA, cards=3))

    assert (result.status, str(result.why)) == (
        DealStatus.OPEN,
        "Waiting for the hands of Ben, Dev.",
    )


@pytest.mark.parametrize("stake_rule", [PER_CARD, PRO_PLAY])
def test_needs_hands_refuses_a_second_tap(stake_rule):
    error = refusal(FOUR, rules(stake_rule), Tap(ALICE), Tap(BEN))

    assert (error.message, error.conflict) == (
        "Play ended when the first player went out: record the other hands instead.",
        False,
    )


@pytest.mark.parametrize("stake_rule", [PER_CARD, PRO_PLAY])
def test_needs_hands_refuses_a_hand_for_the_winner(stake_rule):
    error = refusal(FOUR, rules(stake_rule), Tap(ALICE), Hand(ALICE, cards=0))

    assert error.message == "Alice went out and holds no cards."


@pytest.mark.parametrize("stake_rule", [PER_CARD, PRO_PLAY])
def test_needs_hands_refuses_any_record_once_filed(stake_rule):
    filed = facts(TWO, rules(stake_rule), Tap(ALICE), Hand(BEN, cards=4))
    assert play(filed).status is DealStatus.FILED

    for record in (Hand(BEN, cards=4), Tap(BEN), CutupBeaten(by=ALICE, owner=BEN)):
        with pytest.raises(ScoringError) as caught:
            add_record(filed, record)
        assert (caught.value.message, caught.value.conflict) == (
            "This deal is already filed.",
            True,
        )


def test_per_card_hand_with_no_cards_pays_nothing():
    result = deal(THREE, rules(PER_CARD), Tap(ALICE), Hand(BEN, cards=0), Hand(CARA, cards=2))

    assert result.ledger == (line(CARA, ALICE, "2", Reason.CARDS_LEFT),)


def test_per_card_with_seventeen_cards_each_for_three_players():
    rule_set = rules(PER_CARD, hand_size=17)

    result = deal(THREE, rule_set, Tap(ALICE), Hand(BEN, cards=17), Hand(CARA, cards=16))

    assert result.ledger == (
        line(BEN, ALICE, "17", Reason.CARDS_LEFT),
        line(CARA, ALICE, "16", Reason.CARDS_LEFT),
    )


@pytest.mark.parametrize(("cards", "amount"), [(0, "1"), (1, "1"), (10, "1"), (11, "2"), (13, "2")])
def test_pro_play_pays_double_for_more_than_ten_cards(cards, amount):
    result = deal(TWO, rules(PRO_PLAY), Tap(ALICE), Hand(BEN, cards=cards))

    assert result.ledger == (line(BEN, ALICE, amount, Reason.PRO_PLAY_WIN),)


def test_pro_play_unused_twos_cutups_and_bombs_pay_the_winner():
    hand = Hand(BEN, cards=13, black_twos=2, red_twos=2, cutups=1, bombs=2)

    result = deal(TWO, rules(PRO_PLAY, stake="0.50"), Tap(ALICE), hand)

    assert result.ledger == (
        line(BEN, ALICE, "1.00", Reason.PRO_PLAY_WIN),
        line(BEN, ALICE, "1.00", Reason.UNUSED_BLACK_TWO),
        line(BEN, ALICE, "2.00", Reason.UNUSED_RED_TWO),
        line(BEN, ALICE, "0.75", Reason.UNUSED_CUTUP),
        line(BEN, ALICE, "3.00", Reason.UNUSED_BOMB),
    )


@pytest.mark.parametrize(
    ("hand", "reason", "amount", "win"),
    [
        (Hand(BEN, cards=3, black_twos=1), Reason.UNUSED_BLACK_TWO, "1", "1"),
        (Hand(BEN, cards=3, red_twos=1), Reason.UNUSED_RED_TWO, "2", "1"),
        (Hand(BEN, cards=6, cutups=1), Reason.UNUSED_CUTUP, "1.5", "1"),
        (Hand(BEN, cards=4, bombs=1), Reason.UNUSED_BOMB, "3", "1"),
        (Hand(BEN, cards=12, cutups=2), Reason.UNUSED_CUTUP, "3", "2"),
        (Hand(BEN, cards=13, bombs=3), Reason.UNUSED_BOMB, "9", "2"),
    ],
)
def test_pro_play_each_unused_kind_has_its_rate(hand, reason, amount, win):
    result = deal(TWO, rules(PRO_PLAY), Tap(ALICE), hand)

    assert result.ledger == (
        line(BEN, ALICE, win, Reason.PRO_PLAY_WIN),
        line(BEN, ALICE, amount, reason),
    )


@pytest.mark.parametrize(
    ("penalties", "ledger"),
    [
        (False, (line(BEN, ALICE, "8", Reason.CARDS_LEFT),)),
        (
            True,
            (
                line(BEN, ALICE, "8", Reason.CARDS_LEFT),
                line(BEN, ALICE, "1", Reason.UNUSED_BLACK_TWO),
                line(BEN, ALICE, "2", Reason.UNUSED_RED_TWO),
                line(BEN, ALICE, "1.5", Reason.UNUSED_CUTUP),
            ),
        ),
    ],
)
def test_per_card_charges_unused_cards_only_with_penalties(penalties, ledger):
    hand = Hand(BEN, cards=8, black_twos=1, red_twos=1, cutups=1)

    result = deal(TWO, rules(PER_CARD, penalties=penalties), Tap(ALICE), hand)

    assert result.ledger == ledger


@pytest.mark.parametrize(
    ("penalties", "extra"),
    [
        (False, ()),
        (
            True,
            (
                line(DEV, ALICE, "2", Reason.UNUSED_RED_TWO),
                line(DEV, ALICE, "3", Reason.UNUSED_BOMB),
            ),
        ),
    ],
)
def test_loser_pays_hand_after_filing_adds_its_penalties(penalties, extra):
    rule_set = rules(penalties=penalties)
    filed = facts(FOUR, rule_set, *taps(ALICE, BEN, CARA))

    _, result = add_record(filed, Hand(DEV, cards=9, red_twos=1, bombs=1))

    assert result.status is DealStatus.FILED
    assert result.ledger == (*loser_pays_lines(FOUR, DEV), *extra)


def test_loser_pays_hand_before_filing_counts_once_the_deal_files():
    rule_set = rules(penalties=True)
    records = (Hand(DEV, cards=5, black_twos=2), *taps(ALICE, BEN))
    assert deal(FOUR, rule_set, *records).ledger == ()

    result = deal(FOUR, rule_set, *records, Tap(CARA))

    assert result.ledger == (
        *loser_pays_lines(FOUR, DEV),
        line(DEV, ALICE, "2", Reason.UNUSED_BLACK_TWO),
    )


def test_no_stakes_accepts_a_hand_after_filing_and_moves_no_money():
    filed = facts(FOUR, rules(NONE), *taps(ALICE, BEN, CARA))

    _, result = add_record(filed, Hand(DEV, cards=9, red_twos=1))

    assert (result.status, result.ledger) == (DealStatus.FILED, ())


# --- No stakes (SPEC 4) ---------------------------------------------------------------


@pytest.mark.parametrize("option", ["penalties", "guaransheed", "got_to_get_in"])
def test_check_rules_refuses_money_options_without_stakes(option):
    with pytest.raises(ScoringError) as caught:
        check_rules(rules(NONE, **{option: True}), 4)

    assert caught.value.message == (
        "With no stakes no money moves: switch off penalties, Guaransheed and "
        "Got to Get In, or pick a stake rule."
    )


def test_no_stakes_moves_no_money_whatever_happens():
    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=BOMB, red=1),
        *taps(ALICE, BEN, CARA),
        Hand(DEV, cards=4, black_twos=1),
    )

    result = deal(FOUR, rules(NONE), *records)

    assert (result.status, result.points, result.ledger) == (
        DealStatus.FILED,
        {ALICE: 3, BEN: 2, CARA: 1, DEV: 0},
        (),
    )


# --- Twos beaten (SPEC 4.1) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("beaten_with", "black", "red", "amount"),
    [
        (CUTUP, 1, 0, "1"),
        (CUTUP, 0, 1, "1.5"),
        (CUTUP, 2, 0, "2"),
        (CUTUP, 1, 1, "2.5"),
        (CUTUP, 1, 2, "4"),
        (CUTUP, 0, 2, "3"),
        (BOMB, 1, 0, "2"),
        (BOMB, 0, 1, "3"),
        (BOMB, 2, 1, "7"),
        (BOMB, 1, 2, "8"),
    ],
)
def test_two_beaten_pays_its_rate_at_once(beaten_with, black, red, amount):
    event = TwoBeaten(by=CARA, owner=ALICE, beaten_with=beaten_with, black=black, red=red)

    result = deal(FOUR, rules(PRO_PLAY), event)

    assert result.status is DealStatus.OPEN
    assert result.ledger == (line(ALICE, CARA, amount, Reason.TWO_BEATEN),)


def test_two_beaten_recorded_late_for_a_player_already_out_is_accepted():
    records = (Tap(ALICE), TwoBeaten(by=ALICE, owner=BEN, beaten_with=BOMB, red=1))

    result = deal(FOUR, rules(PRO_PLAY), *records)

    assert result.ledger == (line(BEN, ALICE, "3", Reason.TWO_BEATEN),)


def test_two_beaten_with_a_two_decimal_stake_needs_three_decimals():
    event = TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1)

    result = deal(TWO, rules(PRO_PLAY, stake="0.01"), event)

    assert result.ledger == (line(ALICE, BEN, "0.015", Reason.TWO_BEATEN),)


@pytest.mark.parametrize(
    ("rule_set", "paid"),
    [
        (rules(PRO_PLAY), True),
        (rules(LOSER_PAYS, penalties=True), True),
        (rules(PER_CARD, penalties=True), True),
        (rules(LOSER_PAYS), False),
        (rules(PER_CARD), False),
        (rules(NONE), False),
    ],
)
def test_two_beaten_pays_only_when_penalties_are_on(rule_set, paid):
    result = deal(FOUR, rule_set, TwoBeaten(by=BEN, owner=ALICE, beaten_with=BOMB, black=1))

    assert result.ledger == ((line(ALICE, BEN, "2", Reason.TWO_BEATEN),) if paid else ())


@pytest.mark.parametrize(
    ("table", "event", "message"),
    [
        (
            FOUR,
            TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP),
            "One play beats 1 to 3 twos (four 2s cannot be beaten).",
        ),
        (
            FOUR,
            TwoBeaten(by=BEN, owner=ALICE, beaten_with=BOMB, black=2, red=2),
            "One play beats 1 to 3 twos (four 2s cannot be beaten).",
        ),
        (
            FIVE,
            TwoBeaten(by=BEN, owner=ALICE, beaten_with=BOMB, black=4),
            "One play beats 1 to 3 twos (four 2s cannot be beaten).",
        ),
        (
            FOUR,
            TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, black=-1, red=2),
            "Counts of 2s cannot be negative.",
        ),
        (
            FOUR,
            TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, black=3),
            "The deck holds only 2 twos of each colour.",
        ),
        (
            FOUR,
            TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=3),
            "The deck holds only 2 twos of each colour.",
        ),
        (
            FOUR,
            TwoBeaten(by=ALICE, owner=ALICE, beaten_with=CUTUP, red=1),
            "A player cannot beat their own cards.",
        ),
        (
            FOUR,
            TwoBeaten(by=STRANGER, owner=ALICE, beaten_with=CUTUP, red=1),
            "Player 99 is not playing this deal.",
        ),
        (
            FOUR,
            TwoBeaten(by=ALICE, owner=EVE, beaten_with=CUTUP, red=1),
            "Eve is not playing this deal.",
        ),
    ],
)
def test_two_beaten_refusals(table, event, message):
    error = refusal(table, rules(PRO_PLAY), event)

    assert (error.message, error.conflict) == (message, False)


@pytest.mark.parametrize("colour", ["black", "red"])
def test_two_beaten_two_decks_allow_three_of_a_colour(colour):
    event = TwoBeaten(by=BEN, owner=ALICE, beaten_with=BOMB, **{colour: 3})

    result = deal(FIVE, rules(PRO_PLAY), event)

    amount = "6" if colour == "black" else "9"
    assert result.ledger == (line(ALICE, BEN, amount, Reason.TWO_BEATEN),)


def test_two_beaten_counts_add_up_over_the_deal_against_the_deck():
    first = TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, black=2)
    second = TwoBeaten(by=CARA, owner=DEV, beaten_with=BOMB, black=1)

    error = refusal(FOUR, rules(PRO_PLAY), first, second)

    assert error.message == (
        "The deck holds only 2 twos of each colour, and this deal already has "
        "2 black and 0 red beaten or left in a hand."
    )


def test_two_beaten_and_unused_twos_share_the_deck():
    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
        Tap(ALICE),
        Hand(BEN, cards=5, red_twos=1),
        Hand(CARA, cards=5, black_twos=2),
    )
    assert deal(FOUR, rules(PRO_PLAY), *records).status is DealStatus.OPEN

    error = refusal(FOUR, rules(PRO_PLAY), *records, Hand(DEV, cards=5, red_twos=1))

    assert error.message == (
        "The deck holds only 2 twos of each colour, and this deal already has "
        "2 black and 2 red beaten or left in a hand."
    )


def test_two_beaten_with_two_decks_allows_four_of_a_colour_in_the_deal():
    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=3),
        TwoBeaten(by=CARA, owner=DEV, beaten_with=BOMB, red=1),
    )
    assert len(deal(FIVE, rules(PRO_PLAY), *records).ledger) == 2

    error = refusal(
        FIVE, rules(PRO_PLAY), *records, TwoBeaten(by=EVE, owner=DEV, beaten_with=BOMB, red=1)
    )

    assert error.message.startswith("The deck holds only 4 twos of each colour")


# --- Cutups beaten (SPEC 4.1) ---------------------------------------------------------


def test_cutup_chain_doubles_each_time():
    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
        CutupBeaten(by=CARA, owner=BEN),
        CutupBeaten(by=DEV, owner=CARA),
        CutupBeaten(by=ALICE, owner=DEV),
    )

    result = deal(FOUR, rules(PRO_PLAY), *records)

    assert result.ledger == (
        line(ALICE, BEN, "1.5", Reason.TWO_BEATEN),
        line(BEN, CARA, "3", Reason.CUTUP_BEATEN),
        line(CARA, DEV, "6", Reason.CUTUP_BEATEN),
        line(DEV, ALICE, "12", Reason.CUTUP_BEATEN),
    )


def test_cutup_beaten_doubles_what_a_two_colour_cutup_earned():
    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, black=1, red=1),
        CutupBeaten(by=CARA, owner=BEN),
    )

    result = deal(THREE, rules(LOSER_PAYS, penalties=True, stake="2"), *records)

    assert result.ledger == (
        line(ALICE, BEN, "5", Reason.TWO_BEATEN),
        line(BEN, CARA, "10", Reason.CUTUP_BEATEN),
    )


@pytest.mark.parametrize(
    "records",
    [
        pytest.param((), id="no cutup at all"),
        pytest.param(
            (
                TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
                CutupBeaten(by=CARA, owner=BEN),
            ),
            id="the cutup was already beaten",
        ),
        pytest.param(
            (TwoBeaten(by=ALICE, owner=BEN, beaten_with=CUTUP, red=1),),
            id="the earning cutup is someone else's",
        ),
    ],
)
def test_cutup_beaten_without_an_earning_cutup_is_refused(records):
    error = refusal(FOUR, rules(PRO_PLAY), *records, CutupBeaten(by=DEV, owner=BEN))

    assert (error.message, error.conflict) == (
        "Ben has no cutup that beat a 2 in this deal: there is nothing to double.",
        False,
    )


@pytest.mark.parametrize(
    "records",
    [
        pytest.param(
            (TwoBeaten(by=BEN, owner=ALICE, beaten_with=BOMB, red=1),), id="the 2 was bombed"
        ),
        pytest.param(
            (
                TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
                TwoBeaten(by=BEN, owner=CARA, beaten_with=BOMB, black=1),
            ),
            id="the owner bombed a 2 since",
        ),
    ],
)
def test_cutup_beaten_when_the_owner_last_bombed_is_refused(records):
    error = refusal(FOUR, rules(PRO_PLAY), *records, CutupBeaten(by=DEV, owner=BEN))

    assert (error.message, error.conflict) == (
        "Ben's last play that earned was a bomb, and beating a bomb earns nothing more.",
        False,
    )


def test_cutup_beaten_owner_earns_again_with_a_new_cutup():
    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, black=1),
        CutupBeaten(by=CARA, owner=BEN),
        TwoBeaten(by=BEN, owner=DEV, beaten_with=CUTUP, black=1),
        CutupBeaten(by=ALICE, owner=BEN),
    )

    result = deal(FOUR, rules(PRO_PLAY), *records)

    assert result.ledger == (
        line(ALICE, BEN, "1", Reason.TWO_BEATEN),
        line(BEN, CARA, "2", Reason.CUTUP_BEATEN),
        line(DEV, BEN, "1", Reason.TWO_BEATEN),
        line(BEN, ALICE, "2", Reason.CUTUP_BEATEN),
    )


def test_cutup_chain_is_checked_even_when_no_money_moves():
    error = refusal(FOUR, rules(LOSER_PAYS), CutupBeaten(by=CARA, owner=BEN))
    assert error.message.startswith("Ben has no cutup")

    records = (
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
        CutupBeaten(by=CARA, owner=BEN),
    )
    assert deal(FOUR, rules(LOSER_PAYS), *records).ledger == ()


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (CutupBeaten(by=BEN, owner=BEN), "A player cannot beat their own cards."),
        (CutupBeaten(by=STRANGER, owner=BEN), "Player 99 is not playing this deal."),
    ],
)
def test_cutup_beaten_refuses_bad_players(event, message):
    first = TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1)

    error = refusal(FOUR, rules(PRO_PLAY), first, event)

    assert error.message == message


# --- Guaransheed (SPEC 4.2) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("declarer", "blind", "extra"),
    [
        (
            ALICE,
            False,
            [line(p, ALICE, "1", Reason.GUARANSHEED_WON) for p in (BEN, CARA, DEV)],
        ),
        (
            ALICE,
            True,
            [line(p, ALICE, "2", Reason.GUARANSHEED_WON) for p in (BEN, CARA, DEV)],
        ),
        (
            BEN,
            False,
            [line(BEN, p, "2", Reason.GUARANSHEED_LOST) for p in (ALICE, CARA, DEV)],
        ),
        (
            DEV,
            True,
            [line(DEV, p, "2", Reason.GUARANSHEED_LOST) for p in (ALICE, BEN, CARA)],
        ),
    ],
)
def test_guaransheed_is_decided_at_filing(declarer, blind, extra):
    rule_set = rules(guaransheed=True)
    records = (Guaransheed(declarer, blind=blind), *taps(ALICE, BEN, CARA))

    result = deal(FOUR, rule_set, *records)

    assert result.ledger == (*loser_pays_lines(FOUR, DEV), *extra)


def test_guaransheed_is_not_charged_while_the_deal_is_open():
    result = deal(FOUR, rules(guaransheed=True), Guaransheed(ALICE), Tap(ALICE))

    assert (result.status, result.ledger) == (DealStatus.OPEN, ())


def test_guaransheed_under_pay_by_the_card():
    records = (
        Guaransheed(BEN, blind=True),
        Tap(BEN),
        Hand(ALICE, cards=3),
        Hand(CARA, cards=0),
    )

    result = deal(THREE, rules(PER_CARD, guaransheed=True), *records)

    assert result.ledger == (
        line(ALICE, BEN, "3", Reason.CARDS_LEFT),
        line(ALICE, BEN, "2", Reason.GUARANSHEED_WON),
        line(CARA, BEN, "2", Reason.GUARANSHEED_WON),
    )


@pytest.mark.parametrize(
    ("rule_set", "records", "message"),
    [
        (rules(), (Guaransheed(ALICE),), "Guaransheed is off for this session."),
        (
            rules(guaransheed=True),
            (Tap(BEN), Guaransheed(ALICE)),
            "A Guaransheed is declared before the first player goes out.",
        ),
        (
            rules(guaransheed=True),
            (Guaransheed(ALICE), Guaransheed(BEN)),
            "A Guaransheed is already declared on this deal.",
        ),
        (
            rules(guaransheed=True),
            (Guaransheed(ALICE), Guaransheed(ALICE, blind=True)),
            "A Guaransheed is already declared on this deal.",
        ),
        (
            rules(guaransheed=True),
            (Guaransheed(STRANGER),),
            "Player 99 is not playing this deal.",
        ),
    ],
)
def test_guaransheed_refusals(rule_set, records, message):
    error = refusal(FOUR, rule_set, *records)

    assert (error.message, error.conflict) == (message, False)


def test_guaransheed_after_a_two_beaten_but_before_the_first_tap_is_accepted():
    records = (
        TwoBeaten(by=BEN, owner=CARA, beaten_with=CUTUP, black=1),
        Guaransheed(ALICE),
        *taps(ALICE, BEN, CARA),
    )

    result = deal(FOUR, rules(guaransheed=True), *records)

    assert result.ledger == (
        *loser_pays_lines(FOUR, DEV),
        *(line(p, ALICE, "1", Reason.GUARANSHEED_WON) for p in (BEN, CARA, DEV)),
    )


def test_guaransheed_after_filing_is_a_conflict():
    error = refusal(TWO, rules(guaransheed=True), *taps(ALICE, BEN), Guaransheed(ALICE))

    assert error.conflict is True


# --- Got to Get In (SPEC 4.3) ---------------------------------------------------------


def test_got_to_get_in_charges_2x_at_each_tap_before_the_loser_pays():
    records = (Tap(ALICE, not_played=(CARA, DEV)), Tap(BEN, not_played=(DEV,)), Tap(CARA))

    result = deal(FOUR, rules(got_to_get_in=True, stake="0.50"), *records)

    assert result.ledger == (
        line(CARA, ALICE, "1", Reason.GOT_TO_GET_IN),
        line(DEV, ALICE, "1", Reason.GOT_TO_GET_IN),
        line(DEV, BEN, "1", Reason.GOT_TO_GET_IN),
        *loser_pays_lines(FOUR, DEV, "0.50"),
    )


def test_got_to_get_in_is_charged_at_once_on_an_open_deal():
    result = deal(FOUR, rules(PER_CARD, got_to_get_in=True), Tap(BEN, not_played=(ALICE,)))

    assert (result.status, result.ledger) == (
        DealStatus.OPEN,
        (line(ALICE, BEN, "2", Reason.GOT_TO_GET_IN),),
    )


@pytest.mark.parametrize(
    ("rule_set", "records", "message"),
    [
        (rules(), (Tap(ALICE, not_played=(BEN,)),), "Got to Get In is off for this session."),
        (
            rules(got_to_get_in=True),
            (Tap(ALICE), Tap(BEN, not_played=(ALICE,))),
            "Alice is already out, so they have played.",
        ),
        (
            rules(got_to_get_in=True),
            (Tap(ALICE, not_played=(ALICE,)),),
            "The player going out has played their cards.",
        ),
        (
            rules(got_to_get_in=True),
            (Tap(ALICE, not_played=(BEN, BEN)),),
            "A player is marked as not yet played twice.",
        ),
        (
            rules(got_to_get_in=True),
            (Tap(ALICE, not_played=(STRANGER,)),),
            "Player 99 is not playing this deal.",
        ),
    ],
)
def test_got_to_get_in_refusals(rule_set, records, message):
    error = refusal(FOUR, rule_set, *records)

    assert (error.message, error.conflict) == (message, False)


# --- Instant wins (SPEC 4.4) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("rule_set", "points", "paid"),
    [
        (rules(LOSER_PAYS, PODIUM, stake="2", instant_wins=True), 3, True),
        (rules(LOSER_PAYS, WTA, stake="2", instant_wins=True), 1, True),
        (rules(NONE, PODIUM, stake="2", instant_wins=True), 3, False),
        (rules(NONE, WTA, stake="2", instant_wins=True), 1, False),
        (rules(PER_CARD, stake="2", instant_wins=True), 1, True),
        (rules(PRO_PLAY, stake="2", instant_wins=True), 1, True),
    ],
)
def test_instant_win_files_the_deal_with_the_claimant_alone_placed(rule_set, points, paid):
    result = deal(FOUR, rule_set, InstantWin(CARA, InstantWinKind.DRAGON))

    assert str(result.why) == "Cara won outright."

    assert result == DealResult(
        status=DealStatus.FILED,
        why=result.why,
        places={CARA: 1},
        points={ALICE: 0, BEN: 0, CARA: points, DEV: 0},
        winner=CARA,
        loser=None,
        ledger=(
            tuple(line(p, CARA, "2", Reason.INSTANT_WIN) for p in (ALICE, BEN, DEV)) if paid else ()
        ),
    )


@pytest.mark.parametrize("size", [2, 3, 4])
def test_instant_win_collects_the_stake_from_every_other_player(size):
    table = EVERYONE[:size]

    result = deal(table, rules(instant_wins=True), InstantWin(ALICE, InstantWinKind.SIX_PAIRS))

    assert result.ledger == tuple(line(p, ALICE, "1", Reason.INSTANT_WIN) for p in table[1:])


@pytest.mark.parametrize(
    "first",
    [
        Tap(ALICE),
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
        Guaransheed(BEN),
        Hand(BEN, cards=3),
    ],
)
def test_instant_win_is_refused_once_anything_is_recorded(first):
    rule_set = rules(instant_wins=True, guaransheed=True, penalties=True)

    error = refusal(FOUR, rule_set, first, InstantWin(CARA, InstantWinKind.FOUR_TWOS))

    assert (error.message, error.conflict) == (
        "An instant win is claimed before anything else is recorded on the deal.",
        False,
    )


def test_instant_win_is_refused_when_the_option_is_off():
    error = refusal(FOUR, rules(), InstantWin(CARA, InstantWinKind.FOUR_TWOS))

    assert error.message == "Instant wins are off for this session."


def test_instant_win_claimant_must_play_the_deal():
    error = refusal(FOUR, rules(instant_wins=True), InstantWin(EVE, InstantWinKind.FOUR_TWOS))

    assert error.message == "Eve is not playing this deal."


@pytest.mark.parametrize(
    "record",
    [
        Tap(ALICE),
        Hand(ALICE, cards=3),
        TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1),
        Guaransheed(ALICE),
        InstantWin(BEN, InstantWinKind.FOUR_TWOS),
    ],
)
def test_instant_win_refuses_every_later_record_as_a_conflict(record):
    rule_set = rules(instant_wins=True, guaransheed=True)
    won = facts(FOUR, rule_set, InstantWin(CARA, InstantWinKind.THREE_TRIPLES))

    with pytest.raises(ScoringError) as caught:
        add_record(won, record)

    assert (caught.value.message, caught.value.conflict) == ("This deal is already filed.", True)


# --- End match (SPEC 3.3) -------------------------------------------------------------


def test_end_match_with_two_of_four_taps_charges_only_what_is_certain():
    rule_set = rules(penalties=True, guaransheed=True, got_to_get_in=True)
    records = (
        Guaransheed(ALICE),
        TwoBeaten(by=BEN, owner=CARA, beaten_with=BOMB, black=1),
        Tap(ALICE, not_played=(DEV,)),
        Hand(DEV, cards=7, red_twos=1),
        Tap(BEN),
    )

    result = ended(FOUR, rule_set, *records)

    assert str(result.why) == "Ended by End match."

    assert result == DealResult(
        status=DealStatus.ENDED,
        why=result.why,
        places={ALICE: 1, BEN: 2},
        points={ALICE: 3, BEN: 2, CARA: 0, DEV: 0},
        winner=ALICE,
        loser=None,
        ledger=(
            line(CARA, BEN, "2", Reason.TWO_BEATEN),
            line(DEV, ALICE, "2", Reason.GOT_TO_GET_IN),
            line(DEV, ALICE, "2", Reason.UNUSED_RED_TWO),
            line(BEN, ALICE, "1", Reason.GUARANSHEED_WON),
            line(CARA, ALICE, "1", Reason.GUARANSHEED_WON),
            line(DEV, ALICE, "1", Reason.GUARANSHEED_WON),
        ),
    )


def test_end_match_with_three_players_and_two_taps_charges_the_untapped_loser():
    result = ended(THREE, rules(), *taps(BEN, ALICE))

    assert (result.status, result.places, result.points, result.loser) == (
        DealStatus.ENDED,
        {BEN: 1, ALICE: 2},
        {ALICE: 2, BEN: 3, CARA: 0},
        CARA,
    )
    assert result.ledger == tuple(loser_pays_lines(THREE, CARA))


def test_end_match_with_two_players_and_one_tap_charges_the_untapped_loser():
    result = ended(TWO, rules(), Tap(BEN))

    assert (result.places, result.points, result.ledger) == (
        {BEN: 1},
        {ALICE: 0, BEN: 3},
        (line(ALICE, BEN, "1", Reason.LOSER_PAYS),),
    )


def test_end_match_with_an_unknown_loser_charges_no_loser():
    result = ended(FIVE, rules(), *taps(ALICE, BEN, CARA))

    assert (result.status, result.loser, result.ledger) == (DealStatus.ENDED, None, ())
    assert result.points == {ALICE: 3, BEN: 2, CARA: 1, DEV: 0, EVE: 0}


def test_end_match_without_a_first_place_charges_no_guaransheed():
    result = ended(FOUR, rules(guaransheed=True), Guaransheed(ALICE))

    assert (result.status, result.winner, result.ledger) == (DealStatus.ENDED, None, ())


def test_end_match_under_per_card_charges_the_hands_already_recorded():
    result = ended(FOUR, rules(PER_CARD), Tap(DEV), Hand(ALICE, cards=6))

    assert (result.status, result.ledger) == (
        DealStatus.ENDED,
        (line(ALICE, DEV, "6", Reason.CARDS_LEFT),),
    )


def test_end_match_before_any_tap_charges_no_hands():
    result = ended(FOUR, rules(PER_CARD), Hand(ALICE, cards=6))

    assert result.ledger == ()


def test_end_match_with_no_records_has_no_points_and_no_ledger():
    result = ended(FOUR, rules())

    assert str(result.why) == "Ended by End match."

    assert result == DealResult(
        status=DealStatus.ENDED,
        why=result.why,
        places={},
        points={ALICE: 0, BEN: 0, CARA: 0, DEV: 0},
        winner=None,
        loser=None,
        ledger=(),
    )


def test_end_match_marks_the_facts_ended():
    ended_facts, _ = end_match(facts(FOUR, rules(), Tap(ALICE)))

    assert ended_facts == DealFacts(players=FOUR, rules=rules(), records=(Tap(ALICE),), ended=True)


@pytest.mark.parametrize(
    ("deal_facts", "message"),
    [
        (facts(TWO, rules(), *taps(ALICE, BEN)), "This deal is already filed."),
        (
            DealFacts(players=TWO, rules=rules(), records=(Tap(ALICE),), ended=True),
            "This deal was already ended with End match.",
        ),
    ],
)
def test_end_match_on_a_closed_deal_is_a_conflict(deal_facts, message):
    with pytest.raises(ScoringError) as caught:
        end_match(deal_facts)

    assert (caught.value.message, caught.value.conflict) == (message, True)


@pytest.mark.parametrize("record", [Tap(BEN), Hand(BEN, cards=3), Guaransheed(ALICE)])
def test_an_ended_deal_refuses_every_record_as_a_conflict(record):
    ended_facts, _ = end_match(facts(FOUR, rules(guaransheed=True), Tap(ALICE)))

    with pytest.raises(ScoringError) as caught:
        add_record(ended_facts, record)

    assert (caught.value.message, caught.value.conflict) == (
        "This deal was ended with End match.",
        True,
    )


# --- Tap errors (SPEC 8) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ((Tap(STRANGER),), "Player 99 is not playing this deal."),
        ((Tap(EVE),), "Eve is not playing this deal."),
        ((Tap(ALICE), Tap(ALICE)), "Alice is already out (1st)."),
        ((Tap(ALICE), Tap(CARA), Tap(CARA)), "Cara is already out (2nd)."),
    ],
)
def test_tap_refusals_are_not_conflicts(records, message):
    error = refusal(FOUR, rules(), *records)

    assert (error.message, error.conflict) == (message, False)


def test_tap_already_out_names_the_third_place():
    error = refusal(FIVE, rules(), *taps(ALICE, BEN, CARA), Tap(CARA))

    assert error.message == "Cara is already out (3rd)."


@pytest.mark.parametrize("player", [DEV, ALICE, STRANGER])
def test_tap_on_a_filed_deal_is_a_conflict(player):
    filed = facts(FOUR, rules(), *taps(ALICE, BEN, CARA))

    with pytest.raises(ScoringError) as caught:
        add_record(filed, Tap(player))

    assert (caught.value.message, caught.value.conflict) == ("This deal is already filed.", True)


def test_error_names_a_player_without_a_name_by_id():
    deal_facts = DealFacts(players=FOUR, rules=rules(), records=(Tap(ALICE), Tap(ALICE)))

    with pytest.raises(ScoringError) as caught:
        play(deal_facts)

    assert caught.value.message == "Player 1 is already out (1st)."


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ((ALICE,), "A deal has 2 to 8 players."),
        ((*EVERYONE, 9), "A deal has 2 to 8 players."),
        ((ALICE, BEN, ALICE), "A player is seated twice in this deal."),
    ],
)
def test_play_refuses_a_bad_table(players, message):
    with pytest.raises(ScoringError) as caught:
        play(DealFacts(players=players, rules=rules()))

    assert caught.value.message == message


# --- Hands (SPEC 4, 8) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "hand_size", "cards", "accepted"),
    [
        (FOUR, 13, 0, True),
        (FOUR, 13, 13, True),
        (FOUR, 13, 14, False),
        (FOUR, 13, -1, False),
        (TWO, 13, 13, True),
        (TWO, 13, 14, False),
        (THREE, 13, 14, False),
        (THREE, 17, 17, True),
        (THREE, 17, 18, False),
        (FIVE, 20, 20, True),
        (FIVE, 20, 21, False),
        (FIVE, 13, 14, False),
        (EVERYONE, 13, 13, True),
        (EVERYONE, 13, 14, False),
    ],
)
def test_hand_cards_run_from_zero_to_the_hand_size(table, hand_size, cards, accepted):
    rule_set = rules(PER_CARD, hand_size=hand_size)
    records = (Tap(ALICE), Hand(BEN, cards=cards))

    if accepted:
        filed = len(table) == 2
        assert deal(table, rule_set, *records).status is (
            DealStatus.FILED if filed else DealStatus.OPEN
        )
    else:
        assert refusal(table, rule_set, *records).message == (
            f"Cards left must be 0 to {hand_size}."
        )


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        (Hand(BEN, cards=1, black_twos=1, red_twos=1), "do not fit"),
        (Hand(BEN, cards=5, cutups=1), "do not fit"),
        (Hand(BEN, cards=11, cutups=2), "do not fit"),
        (Hand(BEN, cards=3, bombs=1), "do not fit"),
        (Hand(BEN, cards=7, bombs=2), "do not fit"),
        (Hand(BEN, cards=4, black_twos=3), "deck"),
        (Hand(BEN, cards=4, black_twos=-1), "negative"),
        (Hand(BEN, cards=4, bombs=-1), "negative"),
    ],
)
def test_hand_unused_cards_must_fit(hand, message):
    messages = {
        "do not fit": "The unused 2s, cutups and bombs do not fit in the cards left.",
        "deck": "The deck holds only 2 twos of each colour.",
        "negative": "Counts of unused cards cannot be negative.",
    }

    error = refusal(FOUR, rules(PRO_PLAY), Tap(ALICE), hand)

    assert error.message == messages[message]


def test_hand_with_everything_that_fits_is_accepted():
    hand = Hand(BEN, cards=6, black_twos=2, red_twos=2, cutups=1, bombs=1)

    result = deal(TWO, rules(PRO_PLAY), Tap(ALICE), hand)

    assert result.ledger == (
        line(BEN, ALICE, "1", Reason.PRO_PLAY_WIN),
        line(BEN, ALICE, "2", Reason.UNUSED_BLACK_TWO),
        line(BEN, ALICE, "4", Reason.UNUSED_RED_TWO),
        line(BEN, ALICE, "1.5", Reason.UNUSED_CUTUP),
        line(BEN, ALICE, "3", Reason.UNUSED_BOMB),
    )


@pytest.mark.parametrize(
    ("table", "records", "player"),
    [
        (FOUR, taps(ALICE), ALICE),
        (FOUR, taps(ALICE, BEN), BEN),
        (FOUR, taps(ALICE, BEN, CARA), CARA),
        (FIVE, taps(ALICE, BEN, CARA, DEV), DEV),
    ],
)
def test_hand_of_a_player_who_went_out_is_refused(table, records, player):
    error = refusal(table, rules(penalties=True), *records, Hand(player, cards=0))

    assert error.message == f"{NAMES[player]} went out and holds no cards."


@pytest.mark.parametrize(
    ("table", "records", "loser"),
    [
        (TWO, taps(ALICE, BEN), BEN),
        (THREE, taps(ALICE, BEN, CARA), CARA),
        (FOUR, taps(ALICE, BEN, CARA), DEV),
        (FIVE, (*taps(ALICE, BEN, CARA), Tap(DEV, loser=True)), DEV),
        (FIVE, taps(ALICE, BEN, CARA, DEV), EVE),
    ],
)
def test_hand_of_the_loser_is_accepted_after_filing(table, records, loser):
    result = deal(table, rules(penalties=True), *records, Hand(loser, cards=2, black_twos=1))

    assert result.ledger == (
        *loser_pays_lines(table, loser),
        line(loser, ALICE, "1", Reason.UNUSED_BLACK_TWO),
    )


def test_hand_is_recorded_once():
    error = refusal(FOUR, rules(PER_CARD), Hand(BEN, cards=3), Hand(BEN, cards=2))

    assert error.message == "Ben's hand is already recorded."


def test_hand_of_a_stranger_is_refused():
    error = refusal(FOUR, rules(PER_CARD), Tap(ALICE), Hand(STRANGER, cards=2))

    assert error.message == "Player 99 is not playing this deal."


def test_tap_of_a_player_recorded_with_cards_is_refused():
    error = refusal(FOUR, rules(), Hand(BEN, cards=3), Tap(BEN))

    assert error.message == "Ben's hand is recorded with cards left; undo it first."


@pytest.mark.parametrize(
    ("table", "records"),
    [
        # The last one tapped is the loser, who holds cards.
        (THREE, (Hand(CARA, cards=3), *taps(ALICE, BEN, CARA))),
        # A loser tap, likewise.
        (FIVE, (Hand(DEV, cards=3), *taps(ALICE, BEN, CARA), Tap(DEV, loser=True))),
        # A hand with no cards left goes out normally.
        (FOUR, (Hand(BEN, cards=0), *taps(BEN, ALICE, CARA))),
    ],
)
def test_tap_of_a_player_recorded_with_a_hand_is_accepted_when_it_fits(table, records):
    assert deal(table, rules(), *records).status is DealStatus.FILED


# --- check_rules and check_stake (SPEC 8) ---------------------------------------------


@pytest.mark.parametrize("players", range(2, 9))
def test_check_rules_accepts_every_table_size(players):
    check_rules(rules(), players)


@pytest.mark.parametrize("players", [0, 1, 9])
def test_check_rules_refuses_a_table_of_the_wrong_size(players):
    with pytest.raises(ScoringError) as caught:
        check_rules(rules(), players)

    assert caught.value.message == "A table has 2 to 8 players."


@pytest.mark.parametrize("stake", ["0.01", "1", "2.5", "999999.99", "1000000", "1000000.00"])
def test_check_stake_accepts_a_positive_stake_with_two_decimals_at_most(stake):
    check_stake(Decimal(stake))
    check_rules(rules(stake=stake), 4)


@pytest.mark.parametrize(
    ("stake", "message"),
    [
        ("0", "The stake must be more than 0."),
        ("-1", "The stake must be more than 0."),
        ("-0.00", "The stake must be more than 0."),
        ("NaN", "The stake must be more than 0."),
        ("Infinity", "The stake must be more than 0."),
        ("1000000.01", "The stake can be at most 1,000,000."),
        ("0.001", "The stake can have at most 2 decimal places."),
        ("1.255", "The stake can have at most 2 decimal places."),
    ],
)
def test_check_stake_refusals(stake, message):
    with pytest.raises(ScoringError) as caught:
        check_stake(Decimal(stake))

    assert caught.value.message == message


@pytest.mark.parametrize(
    ("players", "hand_size", "message"),
    [
        (2, 13, None),
        (2, 17, "With 2 players each is dealt 13 cards."),
        (3, 13, None),
        (3, 17, None),
        (3, 12, "With 3 players the hand size is 13 to 17 cards."),
        (3, 18, "With 3 players the hand size is 13 to 17 cards."),
        (4, 13, None),
        (4, 14, "With 4 players each is dealt 13 cards."),
        (5, 20, None),
        (5, 21, "With 5 players the hand size is 13 to 20 cards."),
        (6, 17, None),
        (7, 14, None),
        (7, 15, "With 7 players the hand size is 13 to 14 cards."),
        (8, 13, None),
        (8, 14, "With 8 players each is dealt 13 cards."),
    ],
)
def test_check_rules_hand_size_fits_the_table(players, hand_size, message):
    if message is None:
        check_rules(rules(hand_size=hand_size), players)
        return
    with pytest.raises(ScoringError) as caught:
        check_rules(rules(hand_size=hand_size), players)

    assert caught.value.message == message


def test_check_rules_refuses_instant_wins_with_trading():
    with pytest.raises(ScoringError) as caught:
        check_rules(rules(instant_wins=True, trading=True), 4)

    assert caught.value.message == (
        "Instant wins and trading cannot be on together: traded cards would make "
        "an instant-win hand."
    )


@pytest.mark.parametrize(
    "rule_set",
    [
        rules(NONE, PODIUM, instant_wins=True),
        rules(NONE, WTA, trading=True),
        rules(LOSER_PAYS, WTA, penalties=True, guaransheed=True, got_to_get_in=True),
        rules(PER_CARD, penalties=True, instant_wins=True),
        rules(PRO_PLAY, guaransheed=True, got_to_get_in=True, trading=True),
    ],
)
def test_check_rules_accepts_valid_combinations(rule_set):
    check_rules(rule_set, 4)


# --- The next deal's opening (SPEC 3.1, 3.5, 4.5) -------------------------------------


def test_opening_loser_deals_and_winner_leads():
    previous = deal(FOUR, rules(), *taps(BEN, ALICE, CARA))

    result = opening(rules=rules(), players=FOUR, previous_players=FOUR, previous=previous)

    assert result == Opening(dealer=DEV, leader=BEN, trading=())


def test_opening_of_the_first_deal_leaves_both_to_the_table():
    assert opening(rules=rules(), players=FOUR) == Opening(dealer=None, leader=None)


def test_opening_after_an_open_deal_leaves_both_to_the_table():
    previous = deal(FOUR, rules(), Tap(ALICE))

    result = opening(rules=rules(), players=FOUR, previous_players=FOUR, previous=previous)

    assert result == Opening(dealer=None, leader=None)


def test_opening_after_players_change_lets_the_lowest_card_lead():
    previous = deal(FOUR, rules(), *taps(BEN, ALICE, CARA))
    table = (ALICE, BEN, CARA, DEV, EVE)

    result = opening(rules=rules(), players=table, previous_players=FOUR, previous=previous)

    assert result == Opening(dealer=DEV, leader=None)


def test_opening_when_the_loser_left_lets_the_table_pick_a_dealer():
    previous = deal(FOUR, rules(), *taps(BEN, ALICE, CARA))

    result = opening(rules=rules(), players=THREE, previous_players=FOUR, previous=previous)

    assert result == Opening(dealer=None, leader=None)


@pytest.mark.parametrize(
    ("table", "rule_set", "records", "leader"),
    [
        (FOUR, rules(PER_CARD), (Tap(CARA), *(Hand(p, cards=1) for p in (ALICE, BEN, DEV))), CARA),
        (FOUR, rules(PRO_PLAY), (Tap(CARA), *(Hand(p, cards=1) for p in (ALICE, BEN, DEV))), CARA),
        (FOUR, rules(instant_wins=True), (InstantWin(BEN, InstantWinKind.DRAGON),), BEN),
        (FIVE, rules(NONE), taps(CARA, ALICE, BEN), CARA),
        (FIVE, rules(NONE, WTA), taps(CARA), CARA),
    ],
)
def test_opening_with_no_known_loser_lets_the_table_pick_a_dealer(table, rule_set, records, leader):
    previous = deal(table, rule_set, *records)

    result = opening(rules=rule_set, players=table, previous_players=table, previous=previous)

    assert (previous.status, result) == (DealStatus.FILED, Opening(dealer=None, leader=leader))


@pytest.mark.parametrize(
    ("table", "records", "reminders"),
    [
        (
            FOUR,
            taps(BEN, ALICE, CARA),
            (
                TradingReminder(giver=DEV, receiver=BEN, cards=2, returns=2),
                TradingReminder(giver=CARA, receiver=ALICE, cards=1, returns=1),
            ),
        ),
        (
            THREE,
            taps(CARA, BEN, ALICE),
            (TradingReminder(giver=ALICE, receiver=CARA, cards=2, returns=2),),
        ),
        (
            TWO,
            taps(BEN, ALICE),
            (TradingReminder(giver=ALICE, receiver=BEN, cards=2, returns=2),),
        ),
        (
            FIVE,
            taps(EVE, DEV, CARA, BEN),
            (
                TradingReminder(giver=ALICE, receiver=EVE, cards=2, returns=2),
                TradingReminder(giver=BEN, receiver=DEV, cards=1, returns=1),
            ),
        ),
        # The loser tapped directly: the second-to-last place is unknown.
        (
            FIVE,
            (*taps(EVE, DEV, CARA), Tap(ALICE, loser=True)),
            (TradingReminder(giver=ALICE, receiver=EVE, cards=2, returns=2),),
        ),
    ],
)
def test_opening_trading_reminders(table, records, reminders):
    rule_set = rules(trading=True)
    previous = deal(table, rule_set, *records)

    result = opening(rules=rule_set, players=table, previous_players=table, previous=previous)

    assert result.trading == reminders


def test_opening_trading_off_gives_no_reminders():
    previous = deal(FOUR, rules(), *taps(BEN, ALICE, CARA))

    result = opening(rules=rules(), players=FOUR, previous_players=FOUR, previous=previous)

    assert result.trading == ()


def test_opening_trading_leaves_out_players_who_left():
    rule_set = rules(trading=True)
    previous = deal(FOUR, rule_set, *taps(BEN, ALICE, CARA))
    table = (ALICE, BEN, CARA)

    result = opening(rules=rule_set, players=table, previous_players=FOUR, previous=previous)

    assert result == Opening(
        dealer=None,
        leader=None,
        trading=(TradingReminder(giver=CARA, receiver=ALICE, cards=1, returns=1),),
    )


# --- Ledger order ---------------------------------------------------------------------


def test_ledger_lists_play_lines_then_loser_hands_and_guaransheed():
    rule_set = rules(penalties=True, guaransheed=True, got_to_get_in=True)
    records = (
        Guaransheed(BEN),
        TwoBeaten(by=CARA, owner=ALICE, beaten_with=CUTUP, black=1),
        Tap(ALICE, not_played=(DEV,)),
        CutupBeaten(by=BEN, owner=CARA),
        Hand(DEV, cards=8, bombs=1, cutups=1),
        Tap(BEN),
        Tap(CARA),
    )

    result = deal(FOUR, rule_set, *records)

    assert result.ledger == (
        line(ALICE, CARA, "1", Reason.TWO_BEATEN),
        line(DEV, ALICE, "2", Reason.GOT_TO_GET_IN),
        line(CARA, BEN, "2", Reason.CUTUP_BEATEN),
        *loser_pays_lines(FOUR, DEV),
        line(DEV, ALICE, "1.5", Reason.UNUSED_CUTUP),
        line(DEV, ALICE, "3", Reason.UNUSED_BOMB),
        line(BEN, ALICE, "2", Reason.GUARANSHEED_LOST),
        line(BEN, CARA, "2", Reason.GUARANSHEED_LOST),
        line(BEN, DEV, "2", Reason.GUARANSHEED_LOST),
    )


def test_add_record_returns_the_extended_facts_and_their_result():
    start = facts(FOUR, rules(), Tap(ALICE))

    extended, result = add_record(start, Tap(BEN))

    assert extended == facts(FOUR, rules(), Tap(ALICE), Tap(BEN))
    assert result == play(extended)


def test_end_match_with_no_taps_charges_nothing_even_for_twos_beaten():
    rules = Rules(stake=Decimal("1"), options=Options(penalties=True))
    two = TwoBeaten(by=BEN, owner=CARA, beaten_with=Beater.BOMB, red=1)
    facts = DealFacts(players=(ALICE, BEN, CARA, DEV), rules=rules, records=(two,))

    _, result = end_match(facts)

    assert (result.status, result.winner, result.ledger) == (DealStatus.ENDED, None, ())
