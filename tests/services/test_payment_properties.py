"""Money stays exact through random deals, corrections and payments (SPEC 5).

Each example plays a 4-player loser-pays table through the services: deals, corrections
that re-order a filed deal, payments of part of a transfer, of a whole one, of anything
between two players, and cancellations. After every step, what the settlement says is
owed sums to exactly zero, equals the ledger's net plus payments made less payments
received (counted here from the rows), and the transfers shown clear it exactly.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from tracker.errors import Refusal
from tracker.models import Deal, LedgerLine, Payment
from tracker.selectors import session_settlement
from tracker.services import (
    deal_correct,
    deal_tap,
    payment_cancel,
    payment_record,
    session_create,
    transfer_mark_paid,
)

pytestmark = pytest.mark.django_db

STEPS = st.lists(
    st.tuples(
        st.sampled_from(["deal", "deal", "correct", "part", "full", "any", "cancel"]),
        st.permutations(range(4)),
        st.integers(1, 9_999),
    ),
    min_size=1,
    max_size=14,
)


def owed_from_rows(session) -> dict[int, Decimal]:
    owed: dict[int, Decimal] = {}
    for line in LedgerLine.objects.filter(session=session):
        owed[line.payee_id] = owed.get(line.payee_id, Decimal(0)) + line.amount
        owed[line.payer_id] = owed.get(line.payer_id, Decimal(0)) - line.amount
    for payment in Payment.objects.filter(session=session, cancelled_at__isnull=True):
        owed[payment.payer_id] = owed.get(payment.payer_id, Decimal(0)) + payment.amount
        owed[payment.payee_id] = owed.get(payment.payee_id, Decimal(0)) - payment.amount
    return {player: amount for player, amount in owed.items()}


def check(session) -> None:
    settlement = session_settlement(session)
    by_hand = owed_from_rows(session)
    assert sum(settlement.owed.values(), Decimal(0)) == 0
    assert {p: a for p, a in settlement.owed.items() if a} == {
        p: a for p, a in by_hand.items() if a
    }
    cleared = dict(settlement.owed)
    for transfer in settlement.open_transfers:
        assert transfer.amount > 0
        cleared[transfer.payer] += transfer.amount
        cleared[transfer.payee] -= transfer.amount
    assert set(cleared.values()) <= {Decimal(0)}
    assert settlement.settled == (settlement.open_transfers == [])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(stake=st.sampled_from(["0.25", "1", "1.50", "7.77"]), steps=STEPS)
def test_owed_is_always_net_plus_payments_and_sums_to_zero(circle, actor, stake, steps):
    session = session_create(
        circle=circle,
        name="Fuzz",
        players=["Alice", "Ben", "Cara", "Dev"],
        stake=stake,
        actor=actor,
    )
    players = [seat.player_id for seat in session.seats.order_by("position")]
    for kind, order, number in steps:
        note(f"{kind} {order} {number}")
        filed = list(session.deals.filter(status=Deal.Status.FILED).order_by("number"))
        transfers = session_settlement(session).open_transfers
        try:
            if kind == "deal":
                deal = session.deals.get(status=Deal.Status.OPEN)
                for index in order[:3]:
                    deal_tap(deal_id=deal.pk, player_id=players[index], actor=actor)
            elif kind == "correct" and filed:
                deal = filed[number % len(filed)]
                taps = [players[index] for index in order[:3]]
                deal_correct(deal_id=deal.pk, taps=taps, reason="fuzz", actor=actor)
            elif kind in ("part", "full") and transfers:
                transfer = transfers[number % len(transfers)]
                if kind == "full":
                    transfer_mark_paid(
                        session_id=session.pk,
                        payer_id=transfer.payer,
                        payee_id=transfer.payee,
                        amount=transfer.amount,
                        actor=actor,
                    )
                else:
                    part = min(Decimal(number) / 100, transfer.amount).quantize(Decimal("0.01"))
                    if part > 0:
                        payment_record(
                            session_id=session.pk,
                            payer_id=transfer.payer,
                            payee_id=transfer.payee,
                            amount=part,
                            actor=actor,
                        )
            elif kind == "any":
                payment_record(
                    session_id=session.pk,
                    payer_id=players[order[0]],
                    payee_id=players[order[1]],
                    amount=Decimal(number) / 100,
                    actor=actor,
                )
            elif kind == "cancel":
                standing = list(session.payments.filter(cancelled_at__isnull=True))
                if standing:
                    payment = standing[number % len(standing)]
                    payment_cancel(session_id=session.pk, payment_id=payment.pk, actor=actor)
        except Refusal as refusal:
            note(f"refused: {refusal}")
        check(session)
