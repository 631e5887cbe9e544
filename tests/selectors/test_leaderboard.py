"""The circle leaderboard across sessions (SPEC 6)."""

import csv
import io
from decimal import Decimal

import pytest

from scoring.rating import finishing_ranks, rate
from tracker.models import Deal
from tracker.selectors import circle_leaderboard, leaderboard_csv
from tracker.services import deal_end, deal_tap

pytestmark = pytest.mark.django_db


def play(session, players, orders, actor):
    for order in orders:
        deal = session.deals.get(status=Deal.Status.OPEN)
        for name in order:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


def test_leaderboard_sums_sessions_and_rates_skill(make_session, circle, actor):
    first, p = make_session()
    play(first, p, [("Alice", "Cara", "Ben"), ("Alice", "Ben", "Cara")], actor)
    deal_end(deal_id=first.deals.get(status="open").pk, actor=actor)
    second, _ = make_session()
    play(second, p, [("Alice", "Dev", "Cara")], actor)

    board = circle_leaderboard(circle)

    assert [(row.name, row.points, row.deals, row.wins, row.net) for row in board.rows] == [
        ("Alice", 9, 3, 3, Decimal(3)),
        ("Cara", 4, 3, 0, Decimal(3)),
        ("Ben", 3, 3, 0, Decimal(-1)),
        ("Dev", 2, 3, 0, Decimal(-5)),
    ]
    assert board.rows[0].skill > board.rows[-1].skill
    alice, dev = p["Alice"].pk, p["Dev"].pk
    assert [
        (h.ahead, h.behind) for h in board.head_to_head if (h.player, h.opponent) == (alice, dev)
    ] == [(3, 0)]
    assert [entry[1:] for entry in board.series[alice]] == [
        (3, Decimal(1)),
        (6, Decimal(2)),
        (9, Decimal(3)),
    ]


def test_leaderboard_csv_has_a_row_per_player(make_session, circle, actor):
    session, p = make_session()
    play(session, p, [("Alice", "Cara", "Ben")], actor)

    text = leaderboard_csv(circle_leaderboard(circle))
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))

    assert [(row["name"], row["points"], row["net"]) for row in rows] == [
        ("Alice", "3", "1.00"),
        ("Cara", "2", "1.00"),
        ("Ben", "1", "1.00"),
        ("Dev", "0", "-3.00"),
    ]


def test_finishing_ranks_tie_everyone_never_tapped():
    assert finishing_ranks([1, 2, 3], {1: 1}) == [1, 2, 2]


def test_finishing_ranks_tie_every_place_beyond_the_podium():
    """SPEC 6: "places beyond the podium tie". Six players tapped out in order: 4th, 5th
    and the loser were ranked 4, 5, 6 (session 26's money review)."""
    six = [1, 2, 3, 4, 5, 6]

    assert finishing_ranks(six, {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}) == [1, 2, 3, 4, 4, 4]
    assert finishing_ranks(six, {1: 1, 2: 2, 3: 3, 6: 6}) == [1, 2, 3, 4, 4, 4]  # ended early
    assert finishing_ranks([1, 2, 3, 4], {2: 1, 1: 2, 4: 3, 3: 4}) == [2, 1, 4, 3]


def test_players_beyond_the_podium_rate_alike_and_are_never_ahead_of_each_other(
    circle, make_session, actor
):
    from tracker.selectors import circle_leaderboard
    from tracker.services import deal_tap

    session, players = make_session(players=("A", "B", "C", "D", "E", "F"))
    deal = session.deals.get()
    for name in ("A", "B", "C", "D", "E"):  # F is the loser
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    board = circle_leaderboard(circle)

    skill = {row.name: row.skill for row in board.rows}
    assert skill["D"] == skill["E"] == skill["F"] < skill["C"]
    beyond = {players[name].pk for name in "DEF"}
    assert not [h for h in board.head_to_head if {h.player, h.opponent} <= beyond]


def test_rating_favours_the_consistent_winner():
    deals = [([1, 2, 3], {1: 1, 2: 2, 3: 3})] * 5

    skills = rate(deals)

    assert skills[1].ordinal > skills[2].ordinal > skills[3].ordinal
