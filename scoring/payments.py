"""Payments (SPEC 5): money that moved to settle up, and what is still owed after it.

A payment is money paid from one player to another, any amount: a whole transfer of the
settlement, part of one ("Ben paid 2.00 of 3.00"), or something else entirely. Payments
never touch the ledger, so they stay paid whatever a correction later does to the deals.

What is still owed: a player's balance (received minus paid over the ledger) plus the
payments they made, minus the payments they received. It sums to zero, like the balances.

The transfers shown are the fewest that clear what is still owed, with one more promise:
paying a shown transfer does not reshuffle the others. Both hold by replaying the
payments, oldest first, against the plan they were made from:

1. The plan starts as `settle(balances)`: the fewest transfers for the ledger alone.
2. A payment that fits a transfer of the plan (same payer and payee, no more than is left
   on it) is taken off that transfer; the rest of the plan stays as it was.
   - Paid in full, the transfer leaves the plan. The plan is still the fewest: `m`
     transfers settled the balances before, so what is owed now takes at least `m - 1`
     (any shorter list plus this payment would have settled them in fewer than `m`).
   - Paid in part, what is left stays on the transfer, unless what is owed now settles
     in fewer transfers than the plan holds (a part payment can make two players even):
     then the plan is `settle(owed)`.
3. A payment that fits no transfer (more than the transfer, the other way round, between
   players the plan does not pair, or made against a plan a correction has since
   changed) makes the plan `settle(owed)`: refunds show where they are due.

So the same balances and the same payments, in the same order, give the same transfers.
Amounts are exact: additions and subtractions of Decimals in a context that never rounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, localcontext

from scoring.facts import PlayerId
from scoring.settlement import EXACT, EXACT_LIMIT, settle

ZERO = Decimal(0)


@dataclass(frozen=True)
class MoneyPaid:
    """A payment that stands (not cancelled): `ref` names it (the stored row's id)."""

    ref: int
    payer: PlayerId
    payee: PlayerId
    amount: Decimal


@dataclass(frozen=True)
class OpenTransfer:
    """A transfer still to pay: `amount` is what is left on it, `paid` what part payments
    already took off it."""

    payer: PlayerId
    payee: PlayerId
    amount: Decimal
    paid: Decimal = ZERO


@dataclass(frozen=True)
class PaidTransfer:
    """A transfer of the plan that payments cleared: `amount` paid in all, `payments` the
    refs that paid it (the last one cleared it)."""

    payer: PlayerId
    payee: PlayerId
    amount: Decimal
    payments: tuple[int, ...]


@dataclass(frozen=True)
class Outstanding:
    """A session's money after its payments."""

    balances: Mapping[PlayerId, Decimal]  # over the ledger: received minus paid
    owed: Mapping[PlayerId, Decimal]  # still: balance + payments made - payments received
    transfers: tuple[OpenTransfer, ...]  # the fewest that clear `owed`, by payer and payee
    paid: tuple[PaidTransfer, ...] = field(default=())  # in the order they were cleared

    @property
    def settled(self) -> bool:
        """Nothing is owed by anyone."""
        return all(amount == 0 for amount in self.owed.values())

    @property
    def open_amount(self) -> Decimal:
        """How much money still has to move: the sum of what is owed to players."""
        with localcontext(EXACT):
            return sum((amount for amount in self.owed.values() if amount > 0), ZERO)


@dataclass
class _Line:
    payer: PlayerId
    payee: PlayerId
    left: Decimal
    paid: Decimal = ZERO
    payments: list[int] = field(default_factory=list)


def _plan(owed: Mapping[PlayerId, Decimal]) -> list[_Line]:
    return [_Line(t.payer, t.payee, t.amount) for t in settle(owed)]


def _fits(plan: list[_Line], payment: MoneyPaid) -> _Line | None:
    """The transfer a payment is for: between the same two players, the same way, with
    at least as much left on it (one with exactly as much left first)."""
    lines = [
        line
        for line in plan
        if (line.payer, line.payee) == (payment.payer, payment.payee)
        and line.left >= payment.amount
    ]
    exact = [line for line in lines if line.left == payment.amount]
    return next(iter(exact or lines), None)


def _exact_count(owed: Mapping[PlayerId, Decimal]) -> bool:
    """Whether `settle` finds the fewest transfers for these balances (it does for up to
    EXACT_LIMIT non-zero balances left after pairing; beyond, it falls back to at most
    n - 1, which a kept plan may beat)."""
    return sum(1 for amount in owed.values() if amount != 0) <= EXACT_LIMIT


def outstanding(balances: Mapping[PlayerId, Decimal], payments: Iterable[MoneyPaid]) -> Outstanding:
    """What is still owed after `payments` (oldest first), and the transfers that clear
    it (see the module docstring). Raises `SettlementError` for balances that do not sum
    to zero; payments always do."""
    owed = dict(balances)
    plan = _plan(owed)
    paid: list[PaidTransfer] = []
    with localcontext(EXACT):
        for payment in payments:
            if payment.amount <= 0 or payment.payer == payment.payee:
                raise ValueError(f"Not a payment: {payment!r}")
            owed[payment.payer] = owed.get(payment.payer, ZERO) + payment.amount
            owed[payment.payee] = owed.get(payment.payee, ZERO) - payment.amount
            line = _fits(plan, payment)
            if line is None:
                plan = _plan(owed)
                continue
            line.left -= payment.amount
            line.paid += payment.amount
            line.payments.append(payment.ref)
            if line.left == 0:
                plan.remove(line)
                paid.append(PaidTransfer(line.payer, line.payee, line.paid, tuple(line.payments)))
            elif _exact_count(owed):
                fewest = settle(owed)
                if len(fewest) < len(plan):
                    plan = [_Line(t.payer, t.payee, t.amount) for t in fewest]
    transfers = tuple(
        OpenTransfer(line.payer, line.payee, line.left, line.paid)
        for line in sorted(plan, key=lambda line: (line.payer, line.payee, line.left))
    )
    return Outstanding(balances=dict(balances), owed=owed, transfers=transfers, paid=tuple(paid))
