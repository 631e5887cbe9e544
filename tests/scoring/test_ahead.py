"""What a phone scores on from offline (`scoring.ahead`): every order of taps, what each
files, and the next deal's opening — computed by the rules, to be looked up."""

from scoring import DealFacts, Format, Options, Rules, StakeRule, Tap, play
from scoring.ahead import MOST_ORDERS, fresh, next_deals_ahead, taps_ahead

ALICE, BEN, CARA, DEV, EMI = 1, 2, 3, 4, 5


def facts(players=(ALICE, BEN, CARA, DEV), *records, **rules):
    return DealFacts(players=players, rules=Rules(**rules), records=tuple(records))


def test_four_players_file_on_the_third_tap_with_the_next_deals_opening():
    ahead = taps_ahead(facts())

    assert ahead.complete is True
    assert len(ahead.orders) == 1 + 4 + 12 + 24
    assert ahead.orders[""] == {"tap": [ALICE, BEN, CARA, DEV], "loser": []}
    assert ahead.orders["1,3"] == {"tap": [BEN, DEV], "loser": []}
    assert ahead.orders["1,3,2"] == {
        "files": True,
        "points": {"1": 3, "2": 1, "3": 2, "4": 0},
        "dealer": DEV,  # the one left holding cards deals
        "leader": ALICE,  # the winner leads
    }


def test_an_order_is_looked_up_from_where_the_deal_stands():
    ahead = taps_ahead(facts((ALICE, BEN, CARA, DEV), Tap(ALICE)))

    assert "" not in ahead.orders
    assert ahead.orders["1"] == {"tap": [BEN, CARA, DEV], "loser": []}
    assert ahead.orders["1,2,4"]["dealer"] == CARA


def test_every_filed_order_agrees_with_play():
    start = facts()
    for key, node in taps_ahead(start).orders.items():
        taps = tuple(Tap(int(player)) for player in key.split(",") if player)
        result = play(DealFacts(players=start.players, rules=start.rules, records=taps))
        assert result.closed is node.get("files", False), key
        if result.closed:
            assert node["points"] == {str(p): n for p, n in result.points.items()}


def test_five_players_loser_pays_offer_the_loser_once_the_podium_is_full():
    ahead = taps_ahead(facts((ALICE, BEN, CARA, DEV, EMI)))

    assert ahead.complete is True
    assert ahead.orders["1,2,3"] == {"tap": [DEV, EMI], "loser": [DEV, EMI]}
    assert ahead.orders["1,2,3,L5"]["dealer"] == EMI
    assert ahead.orders["1,2,3,4"]["dealer"] == EMI  # one left: the loser by elimination


def test_rules_that_need_every_hand_never_file_on_taps():
    ahead = taps_ahead(
        facts(format=Format.WINNER_TAKES_ALL, stake_rule=StakeRule.PER_CARD, options=Options())
    )

    assert ahead.orders[""]["tap"] == [ALICE, BEN, CARA, DEV]
    assert all(not node.get("files") for node in ahead.orders.values())


def test_a_long_table_stops_the_walk_and_says_so():
    ahead = taps_ahead(facts(tuple(range(1, 9))))

    assert ahead.complete is False
    assert len(ahead.orders) == MOST_ORDERS


def test_the_next_deal_starts_empty():
    assert fresh(facts((ALICE, BEN, CARA, DEV), Tap(ALICE))).records == ()


def test_the_next_deals_orders_are_those_of_an_empty_deal_of_the_same_table():
    started = facts((ALICE, BEN, CARA, DEV), Tap(ALICE))

    assert next_deals_ahead(started) == taps_ahead(fresh(started))
    assert next_deals_ahead(started) is next_deals_ahead(facts())  # worked out once
