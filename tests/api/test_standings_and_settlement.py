"""Standings, settlement, and marking transfers paid or unpaid."""

from decimal import Decimal

import pytest

from tracker.models import Payment

pytestmark = pytest.mark.django_db


def test_standings_rows_in_standings_order_with_every_column(start, api):
    table = start(options={"guaransheed": True, "penalties": True})
    a, b, c, d = (table.p[name] for name in ("Alice", "Ben", "Cara", "Dev"))
    deal = table.deal
    table.event(deal, type="guaransheed", player=b, approved=True)
    table.event(deal, type="two_beaten", by=a, owner=c, **{"with": "bomb"}, red=1)
    table.tap(deal, "Alice", "Cara", "Ben")
    table.tap(table.deal, "Cara")  # the open deal counts nowhere

    response = api.get(f"/api/sessions/{table.id}/standings/")

    assert response.status_code == 200
    rows = response.json()["rows"]
    assert [row["name"] for row in rows] == ["Alice", "Cara", "Ben", "Dev"]
    assert rows[0] == {
        "player": a,
        "name": "Alice",
        "points": 3,
        "deals": 1,
        "wins": 1,
        "podiums": 1,
        "losses": 0,
        "average_place": "1.00",
        "net": "6.00",  # 1 loser pays + 3 for the red 2 bombed + 2 from Ben's Guaransheed
        "twos_beaten_made": 1,
        "twos_beaten_suffered": 0,
        "guaransheeds_won": 0,
        "guaransheeds_lost": 0,
    }
    assert {row["name"]: row["net"] for row in rows} == {
        "Alice": "6.00",
        "Cara": "0.00",
        "Ben": "-5.00",
        "Dev": "-1.00",
    }
    assert (rows[1]["twos_beaten_suffered"], rows[2]["guaransheeds_lost"]) == (1, 1)
    assert (rows[3]["losses"], rows[3]["average_place"]) == (1, "4.00")
    assert b and d


def test_settlement_answers_balances_and_transfers(start, api):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")

    response = api.get(f"/api/sessions/{table.id}/settlement/")

    assert response.status_code == 200
    a, b, c, d = (table.p[name] for name in ("Alice", "Ben", "Cara", "Dev"))
    unpaid = {"paid": False, "payment": None, "paid_so_far": "0.00", "pay": None}
    assert response.json() == {
        "currency": "USD",
        "settled": False,
        "open": "3.00",
        "balances": [
            {"player": a, "net": "1.00", "owed": "1.00"},
            {"player": b, "net": "1.00", "owed": "1.00"},
            {"player": c, "net": "1.00", "owed": "1.00"},
            {"player": d, "net": "-3.00", "owed": "-3.00"},
        ],
        "transfers": [
            {"from": d, "to": a, "amount": "1.00", **unpaid},
            {"from": d, "to": b, "amount": "1.00", **unpaid},
            {"from": d, "to": c, "amount": "1.00", **unpaid},
        ],
        "payments": [],
    }


def test_money_keeps_a_third_decimal_only_when_it_needs_one(start, api):
    table = start(options={"penalties": True}, stake="0.25")
    deal = table.deal
    table.event(
        deal,
        type="two_beaten",
        by=table.p["Ben"],
        owner=table.p["Cara"],
        **{"with": "cutup"},
        red=1,
    )
    body = table.tap(deal, "Alice", "Cara", "Ben")

    assert [line["amount"] for line in body["ledger"]] == ["0.375", "0.25", "0.25", "0.25"]


def test_mark_paid_then_unpaid_keeps_the_payment_row(start, api, user):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")
    d, a = table.p["Dev"], table.p["Alice"]

    paid = api.post(
        f"/api/sessions/{table.id}/settlement/paid/", {"from": d, "to": a, "amount": "1"}
    )

    assert paid.status_code == 201
    payment = Payment.objects.get()
    assert (payment.payer_id, payment.payee_id, payment.amount, payment.recorded_by) == (
        d,
        a,
        Decimal("1.000"),
        user,
    )
    transfers = paid.json()["transfers"]
    assert [(t["to"], t["paid"], t["payment"]) for t in transfers] == [
        (a, True, payment.pk),
        (table.p["Ben"], False, None),
        (table.p["Cara"], False, None),
    ]

    unpaid = api.post(
        f"/api/sessions/{table.id}/settlement/unpaid/", {"from": d, "to": a, "amount": "1.00"}
    )

    assert unpaid.status_code == 200
    assert [t["paid"] for t in unpaid.json()["transfers"]] == [False, False, False]
    payment.refresh_from_db()
    assert payment.cancelled_at is not None
    assert Payment.objects.count() == 1


def test_mark_paid_twice_is_a_conflict(start, api):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")
    transfer = {"from": table.p["Dev"], "to": table.p["Ben"], "amount": "1.00"}
    api.post(f"/api/sessions/{table.id}/settlement/paid/", transfer)

    response = api.post(f"/api/sessions/{table.id}/settlement/paid/", transfer)

    assert response.status_code == 409
    assert response.json() == {
        "code": "already_paid",
        "detail": "That transfer is already marked paid.",
    }
    assert Payment.objects.count() == 1


def test_mark_paid_of_a_transfer_not_in_the_settlement_is_refused(start, api):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")

    response = api.post(
        f"/api/sessions/{table.id}/settlement/paid/",
        {"from": table.p["Alice"], "to": table.p["Dev"], "amount": "1.00"},
    )

    assert response.status_code == 400
    assert response.json() == {
        "code": "no_such_transfer",
        "detail": "There is no transfer from Alice to Dev of 1.00 in this session's settlement.",
    }
    assert Payment.objects.count() == 0


def test_mark_unpaid_of_an_unpaid_transfer_is_a_conflict(start, api):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")

    response = api.post(
        f"/api/sessions/{table.id}/settlement/unpaid/",
        {"from": table.p["Dev"], "to": table.p["Alice"], "amount": "1.00"},
    )

    assert response.status_code == 409
    assert response.json() == {
        "code": "not_paid",
        "detail": "The transfer from Dev to Alice of 1.00 is not marked paid.",
    }
