"""What a phone scores on from offline (`scoring.ahead`): every order of taps, what each
files, and the next deal's opening — computed by the rules, to be looked up."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import (
    DealFacts,
    Format,
    InstantWin,
    InstantWinKind,
    Options,
    Rules,
    StakeRule,
    Tap,
    allowed,
    opening,
    play,
)
from scoring.ahead import MOST_ORDERS, fresh, next_deals_ahead, tap_key, taps_ahead

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


def test_an_instant_win_says_what_it_files_where_one_may_be_claimed():
    """An instant win is an event that files the deal: a phone that records one offline
    opens the next deal, as the server will."""
    table = facts(options=Options(instant_wins=True))
    ahead = taps_ahead(table)

    claims = ahead.orders[""]["instant"]
    won = play(replace(table, records=(InstantWin(CARA, InstantWinKind.DRAGON),)))
    assert claims["3"] == {
        "files": True,
        "points": {str(player): n for player, n in won.points.items()},
        "dealer": None,  # nobody lost: the table picks
        "leader": CARA,
    }
    assert sorted(claims) == ["1", "2", "3", "4"]
    assert "instant" not in ahead.orders["1"]  # claimed before play, not after a tap
    assert "instant" not in taps_ahead(facts()).orders[""]  # not played at this table


@pytest.mark.parametrize("stake_rule", [StakeRule.NONE, StakeRule.LOSER_PAYS])
@pytest.mark.parametrize("format", [Format.PODIUM, Format.WINNER_TAKES_ALL])
def test_every_table_of_five_is_planned_in_full(format, stake_rule):
    """A table of five winner takes all, loser pays has 406 orders: cut at 400, the phone
    missed some of them (the walk is depth first: whole branches) and could not file a
    deal offline that the docs say it files."""
    ahead = taps_ahead(facts((ALICE, BEN, CARA, DEV, EMI), format=format, stake_rule=stake_rule))

    assert ahead.complete is True


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


# --- What the phone looks up is what playing the taps through the rules gives ------------

RULE_SETS = st.builds(
    lambda stake_rule, podium, on: Rules(
        format=Format.WINNER_TAKES_ALL
        if stake_rule in (StakeRule.PER_CARD, StakeRule.PRO_PLAY) or not podium
        else Format.PODIUM,
        stake_rule=stake_rule,
        options=Options(**on),
    ),
    st.sampled_from(StakeRule),
    st.booleans(),
    st.fixed_dictionaries(
        {
            name: st.booleans()
            for name in ("guaransheed", "got_to_get_in", "penalties", "trading", "instant_wins")
        }
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    rule_set=RULE_SETS,
    size=st.integers(min_value=2, max_value=5),
    choices=st.lists(st.integers(min_value=0, max_value=99), min_size=6, max_size=6),
    split=st.integers(min_value=0, max_value=5),
)
def test_every_order_looked_up_is_what_playing_its_taps_gives(rule_set, size, choices, split):
    """Tap a deal out in an order the rules allow (chosen by `allowed`, not by the plan),
    and at every step compare the plan's entry, worked out from the empty deal and from
    part-way through, with `play`, `allowed` and `opening` on the taps so far."""
    players = (ALICE, BEN, CARA, DEV, EMI)[:size]
    empty = DealFacts(players=players, rules=rule_set)
    plans = [taps_ahead(empty)]
    records: tuple[Tap, ...] = ()
    for step, choice in enumerate(choices):
        now = DealFacts(players=players, rules=rule_set, records=records)
        if step == split:
            plans.append(taps_ahead(now))  # from where the deal stands, as a phone gets it
        key = ",".join(tap_key(record) for record in records)
        outcome = play(now)
        if outcome.closed:
            start = opening(
                rules=rule_set, players=players, previous_players=players, previous=outcome
            )
            expected = {
                "files": True,
                "points": {str(player): n for player, n in outcome.points.items()},
                "dealer": start.dealer,
                "leader": start.leader,
            }
        else:
            may = allowed(now)
            expected = {"tap": list(may.tap), "loser": list(may.loser)}
            if may.instant_win:
                expected["instant"] = {}
                for player in may.instant_win:
                    claim = InstantWin(player, may.instant_win_kinds[0])
                    won = play(replace(now, records=(*records, claim)))
                    start = opening(
                        rules=rule_set, players=players, previous_players=players, previous=won
                    )
                    expected["instant"][str(player)] = {
                        "files": True,
                        "points": {str(p): n for p, n in won.points.items()},
                        "dealer": start.dealer,
                        "leader": start.leader,
                    }
        for plan in plans:
            assert plan.complete is True  # every table of five fits
            assert plan.orders[key] == expected, (key, rule_set)
        if outcome.closed:
            break
        offered = [Tap(player) for player in expected["tap"]] + [
            Tap(player, loser=True) for player in expected["loser"]
        ]
        if not offered:
            break
        records = (*records, offered[choice % len(offered)])
