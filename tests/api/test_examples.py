"""SPEC 10 worked examples, A to G, driven end to end through HTTP with a token."""

import pytest

pytestmark = pytest.mark.django_db


def test_example_a_seed_deal_files_on_the_third_tap(start):
    table = start()
    deal = table.deal

    first = table.tap(deal, "Alice")
    assert (first["status"], first["next_deal"]) == ("open", None)
    body = table.tap(deal, "Cara", "Ben")

    assert body["status"] == "filed"
    assert table.named(body["points"]) == {"Alice": 3, "Ben": 1, "Cara": 2, "Dev": 0}
    assert [(table.name[tap["player"]], tap["place"]) for tap in body["taps"]] == [
        ("Alice", 1),
        ("Cara", 2),
        ("Ben", 3),
    ]
    assert table.ledger(body) == [
        ("Dev", "Alice", "1.00", "loser_pays"),
        ("Dev", "Ben", "1.00", "loser_pays"),
        ("Dev", "Cara", "1.00", "loser_pays"),
    ]
    following = table.api.get(f"/api/deals/{body['next_deal']}/").json()
    assert (following["number"], following["status"]) == (2, "open")
    assert (following["leader"], following["dealer"]) == (table.p["Alice"], table.p["Dev"])
    assert table.api.get(f"/api/sessions/{table.id}/").json()["current_deal"] == {
        "id": body["next_deal"],
        "number": 2,
    }


def test_example_b_three_players_the_losers_tap_files(start):
    table = start(players=("X", "Y", "Z"))
    deal = table.deal

    assert table.tap(deal, "X", "Y")["status"] == "open"
    body = table.tap(deal, "Z")

    assert body["status"] == "filed"
    assert table.named(body["points"]) == {"X": 3, "Y": 2, "Z": 1}
    assert table.ledger(body) == [
        ("Z", "X", "1.00", "loser_pays"),
        ("Z", "Y", "1.00", "loser_pays"),
    ]


def test_example_c_two_players_the_second_tap_files(start):
    table = start(players=("X", "Y"))
    deal = table.deal

    body = table.tap(deal, "X", "Y")

    assert body["status"] == "filed"
    assert table.named(body["points"]) == {"X": 3, "Y": 2}
    assert table.ledger(body) == [("Y", "X", "1.00", "loser_pays")]


def test_example_d_pay_by_the_card(start):
    table = start(format="winner_takes_all", stake_rule="per_card", stake="0.50")
    deal = table.deal

    table.tap(deal, "Alice")
    for name, cards in (("Ben", 5), ("Cara", 11)):
        body = table.event(deal, type="hand", player=table.p[name], cards=cards)
        assert body["status"] == "open"
    body = table.event(deal, type="hand", player=table.p["Dev"], cards=1)

    assert body["status"] == "filed"
    assert table.ledger(body) == [
        ("Ben", "Alice", "2.50", "cards_left"),
        ("Cara", "Alice", "5.50", "cards_left"),
        ("Dev", "Alice", "0.50", "cards_left"),
    ]


def test_example_e_pro_play(start):
    table = start(players=("A", "B", "C", "D"), format="winner_takes_all", stake_rule="pro_play")
    a, b, c, d = (table.p[name] for name in "ABCD")
    deal = table.deal

    body = table.event(deal, type="two_beaten", by=b, owner=a, **{"with": "cutup"}, red=1)
    assert table.ledger(body) == [("A", "B", "1.50", "two_beaten")]  # certain while open
    table.event(deal, type="cutup_beaten", by=c, owner=b)
    table.tap(deal, "D")
    table.event(deal, type="hand", player=a, cards=12, black_twos=1)
    table.event(deal, type="hand", player=b, cards=4, bombs=1)
    body = table.event(deal, type="hand", player=c, cards=7)

    assert body["status"] == "filed"
    settlement = table.api.get(f"/api/sessions/{table.id}/settlement/").json()
    nets = {table.name[row["player"]]: row["net"] for row in settlement["balances"]}
    assert nets == {"A": "-4.50", "B": "-5.50", "C": "2.00", "D": "8.00"}
    standings = table.api.get(f"/api/sessions/{table.id}/standings/").json()
    # Winner takes all: D's one point first, then by net.
    assert [(row["name"], row["points"], row["net"]) for row in standings["rows"]] == [
        ("D", 1, "8.00"),
        ("C", 0, "2.00"),
        ("A", 0, "-4.50"),
        ("B", 0, "-5.50"),
    ]


def test_example_f_guaransheed(start):
    table = start(players=("A", "B", "C", "D"), options={"guaransheed": True})
    deal = table.deal

    table.event(deal, type="guaransheed", player=table.p["A"], blind=False, approved=True)
    body = table.tap(deal, "A", "B", "D")

    assert body["status"] == "filed"
    assert table.ledger(body) == [
        ("C", "A", "1.00", "loser_pays"),
        ("C", "B", "1.00", "loser_pays"),
        ("C", "D", "1.00", "loser_pays"),
        ("B", "A", "1.00", "guaransheed_won"),
        ("C", "A", "1.00", "guaransheed_won"),
        ("D", "A", "1.00", "guaransheed_won"),
    ]


def test_example_g_settlement_in_two_transfers(start):
    """Balances A +5, B +3, C -3, D -5, from two deals paid by the card."""
    table = start(players=("A", "B", "C", "D"), format="winner_takes_all", stake_rule="per_card")
    for winner, hands in (("A", {"B": 0, "C": 3, "D": 2}), ("B", {"A": 0, "C": 0, "D": 3})):
        deal = table.deal
        table.tap(deal, winner)
        for name, cards in hands.items():
            table.event(deal, type="hand", player=table.p[name], cards=cards)

    settlement = table.api.get(f"/api/sessions/{table.id}/settlement/").json()

    assert table.named({row["player"]: row["net"] for row in settlement["balances"]}) == {
        "A": "5.00",
        "B": "3.00",
        "C": "-3.00",
        "D": "-5.00",
    }
    assert [
        (table.name[t["from"]], table.name[t["to"]], t["amount"], t["paid"])
        for t in settlement["transfers"]
    ] == [("C", "B", "3.00", False), ("D", "A", "5.00", False)]
    assert settlement["currency"] == "USD"
