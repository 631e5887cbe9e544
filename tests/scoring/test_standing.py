"""What a deal adds to the running session totals."""

from decimal import Decimal

import pytest

from scoring import (
    COUNTED_STATUSES,
    DealFacts,
    DealStatus,
    Options,
    Rules,
    Tap,
    counts,
    end_match,
    play,
)
from scoring.facts import Guaransheed
from scoring.standing import Tally, change, contribution

ALICE, BEN, CARA, DEV = 1, 2, 3, 4
TABLE = (ALICE, BEN, CARA, DEV)


def test_filed_deal_contributes_points_places_and_money():
    facts = DealFacts(players=TABLE, rules=Rules(), records=(Tap(ALICE), Tap(CARA), Tap(BEN)))

    tallies = contribution(facts, play(facts))

    assert tallies[ALICE] == Tally(
        points=3, deals=1, wins=1, podiums=1, place_total=1, placed=1, net=Decimal(1)
    )
    assert tallies[DEV] == Tally(deals=1, losses=1, place_total=4, placed=1, net=Decimal(-3))


def test_open_deal_and_empty_ended_deal_contribute_nothing():
    open_facts = DealFacts(players=TABLE, rules=Rules(), records=(Tap(ALICE),))
    _, ended = end_match(DealFacts(players=TABLE, rules=Rules()))

    assert contribution(open_facts, play(open_facts)) == {}
    assert contribution(DealFacts(players=TABLE, rules=Rules(), ended=True), ended) == {}


def test_change_of_a_corrected_deal_is_the_difference():
    rules = Rules(options=Options(guaransheed=True))
    first = DealFacts(players=TABLE, rules=rules, records=(Tap(ALICE), Tap(CARA), Tap(BEN)))
    second = DealFacts(
        players=TABLE, rules=rules, records=(Guaransheed(BEN), Tap(BEN), Tap(CARA), Tap(DEV))
    )

    delta = change((first, play(first)), (second, play(second)))

    assert delta[ALICE].points == -3
    assert delta[BEN].points == 2
    assert (delta[BEN].guaransheeds_won, delta[BEN].wins) == (1, 1)
    assert CARA not in delta or delta[CARA].points == 0
    assert sum((tally.net for tally in delta.values()), Decimal(0)) == 0


@pytest.mark.parametrize(
    ("status", "winner", "expected"),
    [
        (DealStatus.OPEN, None, False),
        (DealStatus.OPEN, ALICE, False),
        (DealStatus.FILED, ALICE, True),
        (DealStatus.ENDED, ALICE, True),
        (DealStatus.ENDED, None, False),
    ],
)
def test_counts_filed_or_ended_with_a_winner(status, winner, expected):
    assert counts(status, winner) is expected


def test_counted_statuses_are_filed_and_ended():
    assert sorted(COUNTED_STATUSES) == [DealStatus.ENDED, DealStatus.FILED]


def test_counts_agrees_with_contribution_for_played_deals():
    filed = DealFacts(players=TABLE, rules=Rules(), records=(Tap(ALICE), Tap(CARA), Tap(BEN)))
    opened = DealFacts(players=TABLE, rules=Rules(), records=(Tap(ALICE),))
    ended_with_a_winner, _ = end_match(opened)
    ended_empty, _ = end_match(DealFacts(players=TABLE, rules=Rules()))

    for facts in (filed, opened, ended_with_a_winner, ended_empty):
        result = play(facts)
        assert counts(result.status, result.winner) is bool(contribution(facts, result))
