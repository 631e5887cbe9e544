"""Payments as money that moved (SPEC 5): recorded, listed, cancelled; what is still owed
after them; and the refund a correction after a payment makes due."""

from decimal import Decimal

import pytest

from tests.api.conftest import client_with, db_state
from tracker.models import Payment
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db


def two_of_us(start, losers=("Alice", "Ben", "Ben", "Ben", "Ben")):
    """Alice and Ben, loser pays 1.00: one deal a loser, in order. Alice wins 4 of 5 and
    loses 1 by default: Ben owes her 3.00."""
    table = start(players=("Alice", "Ben"))
    deals = []
    for loser in losers:
        winner = "Ben" if loser == "Alice" else "Alice"
        deals.append(table.deal)
        table.tap(deals[-1], winner, loser)
    return table, deals


def settlement(table):
    return table.api.get(f"/api/sessions/{table.id}/settlement/").json()


def shown(table, body):
    return [
        (table.name[t["from"]], table.name[t["to"]], t["amount"])
        for t in body["transfers"]
        if not t["paid"]
    ]


def test_a_correction_after_a_payment_shows_the_refund(start, api):
    """Ben pays Alice the 3.00 shown; then deal 5 is corrected so that Alice lost it: Ben
    owed only 1.00, so Alice owes him 2.00 back, and the 3.00 paid stays paid."""
    table, deals = two_of_us(start)
    alice, ben = table.p["Alice"], table.p["Ben"]
    assert shown(table, settlement(table)) == [("Ben", "Alice", "3.00")]
    paid = api.post(
        f"/api/sessions/{table.id}/settlement/paid/", {"from": ben, "to": alice, "amount": "3"}
    )
    assert paid.status_code == 201
    assert (paid.json()["settled"], shown(table, paid.json())) == (True, [])

    corrected = api.post(
        f"/api/deals/{deals[4]}/correction/", {"taps": [ben, alice], "reason": "Alice lost"}
    )
    assert corrected.status_code == 200, corrected.json()

    body = settlement(table)
    assert shown(table, body) == [("Alice", "Ben", "2.00")]
    assert body["balances"] == [
        {"player": alice, "net": "1.00", "owed": "-2.00"},
        {"player": ben, "net": "-1.00", "owed": "2.00"},
    ]
    assert (body["settled"], body["open"]) == (False, "2.00")
    assert [(p["from"], p["to"], p["amount"], p["cancelled"]) for p in body["payments"]] == [
        (ben, alice, "3.00", False)
    ]


def test_a_part_payment_shows_what_is_left(start, api, user):
    table, _ = two_of_us(start)
    alice, ben = table.p["Alice"], table.p["Ben"]

    response = api.post(
        f"/api/sessions/{table.id}/payments/", {"from": ben, "to": alice, "amount": "2.00"}
    )

    assert response.status_code == 201
    payment = Payment.objects.get()
    assert response.json() == {
        "id": payment.pk,
        "from": ben,
        "to": alice,
        "amount": "2.00",
        "paid_at": response.json()["paid_at"],
        "recorded_by": "host",
        "recorded_via": None,
        "cancelled": False,
        "cancelled_at": None,
        "cancelled_by": None,
        "cancelled_via": None,
    }
    assert payment.recorded_by == user
    transfers = settlement(table)["transfers"]
    assert transfers == [
        {
            "from": ben,
            "to": alice,
            "amount": "1.00",
            "paid": False,
            "payment": None,
            "paid_so_far": "2.00",
            "pay": None,
        }
    ]


def test_paying_what_is_left_in_full_settles_the_session(start, api):
    table, _ = two_of_us(start)
    alice, ben = table.p["Alice"], table.p["Ben"]
    api.post(f"/api/sessions/{table.id}/payments/", {"from": ben, "to": alice, "amount": "2"})

    response = api.post(
        f"/api/sessions/{table.id}/settlement/paid/",
        {"from": ben, "to": alice, "amount": "1.00"},
    )

    assert response.status_code == 201
    body = response.json()
    assert (body["settled"], body["open"]) == (True, "0.00")
    assert [(t["amount"], t["paid"]) for t in body["transfers"]] == [("3.00", True)]


def test_payments_list_and_who_recorded_them(start, api, circle, actor):
    table, _ = two_of_us(start)
    alice, ben = table.p["Alice"], table.p["Ben"]
    api.post(f"/api/sessions/{table.id}/payments/", {"from": ben, "to": alice, "amount": "1"})
    link = share_link_create(session_id=table.id, role="scorer", actor=actor)
    scorer = client_with(f"Share {link.token}")
    scorer.post(f"/api/sessions/{table.id}/payments/", {"from": ben, "to": alice, "amount": "1"})

    by_member = api.get(f"/api/sessions/{table.id}/payments/").json()
    by_link = scorer.get(f"/api/sessions/{table.id}/payments/").json()

    assert [(p["recorded_by"], p["recorded_via"]) for p in by_member] == [
        ("host", None),
        (None, link.pk),
    ]
    # A share link never learns an account's name.
    assert [(p["recorded_by"], p["recorded_via"]) for p in by_link] == [
        (None, None),
        (None, link.pk),
    ]


def test_cancelling_a_payment_keeps_its_row_and_who_cancelled_it(start, api, user):
    table, _ = two_of_us(start)
    alice, ben = table.p["Alice"], table.p["Ben"]
    made = api.post(
        f"/api/sessions/{table.id}/payments/", {"from": ben, "to": alice, "amount": "2"}
    ).json()

    response = api.post(f"/api/sessions/{table.id}/payments/{made['id']}/cancel/")

    assert response.status_code == 200
    assert (response.json()["cancelled"], response.json()["cancelled_by"]) == (True, "host")
    payment = Payment.objects.get()
    assert (payment.cancelled_by, payment.cancelled_at is not None) == (user, True)
    assert shown(table, settlement(table)) == [("Ben", "Alice", "3.00")]

    again = api.post(f"/api/sessions/{table.id}/payments/{made['id']}/cancel/")
    assert (again.status_code, again.json()["code"]) == (409, "already_cancelled")


def test_a_payment_of_another_session_cannot_be_cancelled_here(start, api):
    first, _ = two_of_us(start)
    second, _ = two_of_us(start)
    made = api.post(
        f"/api/sessions/{first.id}/payments/",
        {"from": first.p["Ben"], "to": first.p["Alice"], "amount": "1"},
    ).json()

    response = api.post(f"/api/sessions/{second.id}/payments/{made['id']}/cancel/")

    assert response.status_code == 404
    assert response.json() == {
        "code": "not_found",
        "detail": f"There is no payment {made['id']} in this session.",
    }
    assert Payment.objects.get().cancelled_at is None


@pytest.mark.parametrize(
    ("body", "code", "detail"),
    [
        (
            {"from": "Ben", "to": "Ben", "amount": "1.00"},
            "payment_to_self",
            "Ben cannot pay themselves: pick two different players.",
        ),
        (
            {"from": "Ben", "to": "Eve", "amount": "1.00"},
            "player_not_in_session",
            "Player {Eve} is not in this session.",
        ),
        (
            {"from": "Ben", "to": "Alice", "amount": "1.005"},
            "invalid_amount",
            "A payment has at most 2 decimal places, like 2.50.",
        ),
        (
            {"from": "Ben", "to": "Alice", "amount": "1.00", "currency": "EUR"},
            "currency_mismatch",
            "This session plays for USD; a payment in EUR cannot settle it.",
        ),
        ({"from": "Ben", "to": "Alice", "amount": "0"}, "invalid", None),
        ({"from": "Ben", "to": "Alice", "amount": "-2.00"}, "invalid", None),
        ({"from": "Ben", "to": "Alice", "amount": 1.5}, "invalid", None),
        ({"from": "Ben", "to": "Alice"}, "invalid", None),
    ],
    ids=[
        "to-oneself",
        "not-in-session",
        "three-decimals",
        "other-currency",
        "zero",
        "negative",
        "json-float",
        "no-amount",
    ],
)
def test_bad_payments_are_refused_and_save_nothing(start, api, circle, body, code, detail):
    table, _ = two_of_us(start)
    other = start(players=("Eve", "Finn"))  # Eve: a player of the circle, not of this session
    ids = {**table.p, "Eve": other.p["Eve"]}
    sent = {**body, **{key: ids[body[key]] for key in ("from", "to")}}
    before = db_state()

    response = api.post(f"/api/sessions/{table.id}/payments/", sent)

    assert response.status_code == 400
    assert response.json()["code"] == code
    if detail is not None:
        assert response.json()["detail"] == detail.replace("{Eve}", str(other.p["Eve"]))
    after = db_state()
    after.pop("IdempotencyKey")
    before.pop("IdempotencyKey")
    assert after == before


def test_the_currency_may_be_sent_when_it_is_the_sessions(start, api):
    table, _ = two_of_us(start)

    response = api.post(
        f"/api/sessions/{table.id}/payments/",
        {"from": table.p["Ben"], "to": table.p["Alice"], "amount": "3", "currency": "usd"},
    )

    assert response.status_code == 201
    assert Payment.objects.get().amount == Decimal("3")


@pytest.mark.parametrize("payments", [1, 30])
def test_settlement_and_payments_cost_the_same_however_many_payments(
    start, api, django_assert_num_queries, payments
):
    table, _ = two_of_us(start)
    for _ in range(payments):
        api.post(
            f"/api/sessions/{table.id}/payments/",
            {"from": table.p["Ben"], "to": table.p["Alice"], "amount": "0.01"},
        )

    # 1 the caller's glance, its token, account, session and circle with it (nothing kept
    # at this version yet: tracker.glance), 2 balances from the running totals,
    # 3 payments with who recorded and cancelled them, 4 the payees' payment details
    with django_assert_num_queries(4):
        body = settlement(table)
    # 1 token, 2 session in reach, 3 payments with who recorded and cancelled them
    with django_assert_num_queries(3):
        listed = api.get(f"/api/sessions/{table.id}/payments/").json()
    assert len(listed) == payments
    assert shown(table, body) == [("Ben", "Alice", f"{Decimal(3) - payments * Decimal('0.01')}")]


def test_the_session_list_says_which_sessions_still_have_money_open(start, api):
    owing, _ = two_of_us(start)
    api.post(
        f"/api/sessions/{owing.id}/payments/",
        {"from": owing.p["Ben"], "to": owing.p["Alice"], "amount": "2"},
    )
    paid_up, _ = two_of_us(start)
    api.post(
        f"/api/sessions/{paid_up.id}/settlement/paid/",
        {"from": paid_up.p["Ben"], "to": paid_up.p["Alice"], "amount": "3"},
    )
    no_money = start(stake_rule="none")

    listed = api.get("/api/sessions/").json()["results"]

    assert [(s["id"], s["settled"], s["open"]) for s in listed] == [
        (no_money.id, True, "0.00"),
        (paid_up.id, True, "0.00"),
        (owing.id, False, "1.00"),
    ]
    detail = api.get(f"/api/sessions/{owing.id}/").json()
    assert (detail["settled"], detail["open"]) == (False, "1.00")


@pytest.mark.parametrize("sessions", [1, 4])
def test_the_session_list_costs_the_same_however_many_sessions(
    start, api, django_assert_num_queries, sessions
):
    for _ in range(sessions):
        table, _ = two_of_us(start)
        api.post(
            f"/api/sessions/{table.id}/payments/",
            {"from": table.p["Ben"], "to": table.p["Alice"], "amount": "1"},
        )

    # 1 token, 2 count, 3 the page of sessions, 4 their seats, 5 their open deals,
    # 6 balances from the running totals, 7 payments
    with django_assert_num_queries(7):
        listed = api.get("/api/sessions/").json()["results"]
    assert [session["open"] for session in listed] == ["2.00"] * sessions
