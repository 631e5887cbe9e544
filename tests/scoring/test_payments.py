"""Payments (SPEC 5): what is still owed after money moved, and the transfers that clear it."""

from collections.abc import Mapping
from decimal import Decimal

from hypothesis import given, note, settings
from hypothesis import strategies as st

from scoring.facts import PlayerId
from scoring.payments import MoneyPaid, OpenTransfer, PaidTransfer, outstanding
from scoring.settlement import settle

A, B, C, D = 1, 2, 3, 4


def balances_of(*values: str) -> dict[PlayerId, Decimal]:
    return {player: Decimal(value) for player, value in enumerate(values, start=1)}


def paid(ref: int, payer: int, payee: int, amount: str) -> MoneyPaid:
    return MoneyPaid(ref=ref, payer=payer, payee=payee, amount=Decimal(amount))


def shown(result) -> list[tuple[int, int, Decimal]]:
    return [(t.payer, t.payee, t.amount) for t in result.transfers]


def test_without_payments_the_transfers_are_the_settlement():
    balances = balances_of("5", "3", "-3", "-5")

    result = outstanding(balances, [])

    assert shown(result) == [(C, B, Decimal(3)), (D, A, Decimal(5))]
    assert result.owed == balances
    assert (result.settled, result.open_amount) == (False, Decimal(8))


def test_a_correction_after_a_payment_shows_the_refund():
    """Ben paid Alice 3.00; a correction leaves Ben owing only 1.00: Alice → Ben 2.00."""
    alice, ben = A, B
    after_the_correction = {alice: Decimal("1.00"), ben: Decimal("-1.00")}

    result = outstanding(after_the_correction, [paid(7, ben, alice, "3.00")])

    assert shown(result) == [(alice, ben, Decimal("2.00"))]
    assert result.owed == {alice: Decimal("-2.00"), ben: Decimal("2.00")}
    assert result.paid == ()  # the 3.00 paid no transfer of the plan as it is now


def test_paying_a_shown_transfer_in_full_keeps_the_others():
    balances = balances_of("5", "3", "-3", "-5")

    result = outstanding(balances, [paid(1, C, B, "3")])

    assert shown(result) == [(D, A, Decimal(5))]
    assert result.paid == (PaidTransfer(payer=C, payee=B, amount=Decimal(3), payments=(1,)),)
    assert result.owed == balances_of("5", "0", "0", "-5")


def test_a_part_payment_shows_what_is_left_and_keeps_the_pairs():
    """Dev paid Alice 2 of 5: what is owed is now 3, 3, -3, -3, which `settle` alone would
    pair the other way round (Cara → Alice, Dev → Ben); the table keeps its pairs."""
    balances = balances_of("5", "3", "-3", "-5")

    result = outstanding(balances, [paid(1, D, A, "2")])

    assert result.transfers == (
        OpenTransfer(payer=C, payee=B, amount=Decimal(3)),
        OpenTransfer(payer=D, payee=A, amount=Decimal(3), paid=Decimal(2)),
    )
    assert [(t.payer, t.payee) for t in settle(result.owed)] == [(C, A), (D, B)]


def test_part_payments_that_finish_a_transfer_clear_it():
    balances = balances_of("5", "3", "-3", "-5")

    result = outstanding(balances, [paid(1, D, A, "2"), paid(2, D, A, "3")])

    assert shown(result) == [(C, B, Decimal(3))]
    assert result.paid == (PaidTransfer(payer=D, payee=A, amount=Decimal(5), payments=(1, 2)),)


def test_a_part_payment_that_makes_two_players_even_gives_fewer_transfers():
    """2.5, 2.5, -3, -2 takes three transfers; after Cara pays Alice 0.5 what is owed is
    2, 2.5, -2.5, -2, two pairs: two transfers, so the plan is drawn again."""
    balances = balances_of("2.5", "2.5", "-3", "-2")
    assert len(settle(balances)) == 3

    result = outstanding(balances, [paid(1, C, A, "0.5")])

    assert shown(result) == [(C, B, Decimal("2.5")), (D, A, Decimal(2))]


def test_paying_more_than_the_transfer_shows_the_change_due():
    balances = {A: Decimal(3), B: Decimal(-3)}

    result = outstanding(balances, [paid(1, B, A, "5")])

    assert shown(result) == [(A, B, Decimal(2))]


def test_payments_between_players_the_plan_does_not_pair_are_money_too():
    balances = balances_of("1", "1", "-2")  # Cara pays Alice 1 and Ben 1

    result = outstanding(balances, [paid(1, B, A, "1")])  # Ben hands Alice Cara's share

    assert result.owed == balances_of("0", "2", "-2")
    assert shown(result) == [(C, B, Decimal(2))]


def test_settled_when_nothing_is_owed():
    balances = balances_of("1", "-1")

    result = outstanding(balances, [paid(1, B, A, "1")])

    assert (result.transfers, result.settled, result.open_amount) == ((), True, Decimal(0))


# --- Properties -------------------------------------------------------------------------

CENTS = st.integers(min_value=-50_000, max_value=50_000)


@st.composite
def balances_and_payments(draw: st.DrawFn) -> tuple[dict[PlayerId, Decimal], list]:
    """Balances summing to zero (in cents or thousandths), and a list of moves: pay a
    shown transfer in full, pay part of one, or pay someone anything."""
    players = draw(st.integers(2, 9))
    scale = draw(st.sampled_from([Decimal("0.01"), Decimal("0.001")]))
    values = draw(st.lists(CENTS, min_size=players - 1, max_size=players - 1))
    balances = {
        player: Decimal(value) * scale
        for player, value in enumerate([*values, -sum(values)], start=1)
    }
    moves = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["full", "part", "any"]),
                st.integers(0, 50),
                st.integers(1, players),
                st.integers(1, players),
                st.integers(1, 20_000),
            ),
            max_size=8,
        )
    )
    return balances, moves


def owed_by_hand(balances: Mapping[int, Decimal], payments: list[MoneyPaid]) -> dict:
    owed = dict(balances)
    for payment in payments:
        owed[payment.payer] = owed.get(payment.payer, Decimal(0)) + payment.amount
        owed[payment.payee] = owed.get(payment.payee, Decimal(0)) - payment.amount
    return owed


@settings(max_examples=300, deadline=None)
@given(balances_and_payments())
def test_payments_keep_money_exact_and_the_transfers_fewest(case):
    balances, moves = case
    payments: list[MoneyPaid] = []
    result = outstanding(balances, payments)
    for ref, (kind, pick, payer, payee, cents) in enumerate(moves, start=1):
        chosen = None
        if kind in ("full", "part") and result.transfers:
            chosen = result.transfers[pick % len(result.transfers)]
            amount = chosen.amount
            if kind == "part":
                amount = min(amount, Decimal(cents) / 100)
            payment = MoneyPaid(ref, chosen.payer, chosen.payee, amount)
        elif payer != payee:
            payment = MoneyPaid(ref, payer, payee, Decimal(cents) / 100)
        else:
            continue
        before = result
        payments.append(payment)
        result = outstanding(balances, payments)
        note(f"{balances} {payments} -> {result}")

        # What is owed is the ledger's balance plus payments made, less those received.
        assert result.owed == owed_by_hand(balances, payments)
        assert sum(result.owed.values(), Decimal(0)) == 0
        # The transfers clear exactly what is owed, debtors paying creditors...
        cleared = dict(result.owed)
        for transfer in result.transfers:
            assert transfer.amount > 0
            assert result.owed[transfer.payer] < 0 < result.owed[transfer.payee]
            cleared[transfer.payer] += transfer.amount
            cleared[transfer.payee] -= transfer.amount
        assert set(cleared.values()) <= {Decimal(0)}
        # ...in as few as the exact solver needs.
        assert len(result.transfers) == len(settle(result.owed))
        assert result.settled == (result.transfers == ())
        # Paying a shown transfer in full never reshuffles the others.
        if chosen is not None and payment.amount == chosen.amount:
            others = list(before.transfers)
            others.remove(chosen)
            assert shown(result) == [(t.payer, t.payee, t.amount) for t in others]
