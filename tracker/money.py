"""What the ledger and the payments add up to: nets, balances, what is still owed and the
transfers that settle it (`scoring.payments`), for the services and selectors alike."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import QuerySet, Sum

import scoring
import scoring.payments
from scoring.payments import MoneyPaid
from tracker.models import LedgerLine, Payment, Session, StandingTally
from tracker.rows import all_with

LEDGER_PLACES = Decimal("0.001")
# What a money column holds (20 digits, 3 of them after the point): an amount from here up
# is refused with a sentence before it is written, where PostgreSQL would refuse the row.
MOST_MONEY = Decimal(10) ** 17

# ISO 4217's codes (list one, current funds, 2025), what a session's currency may be
# (SPEC 8: "a 3-letter ISO code; anything else refused"). A list of codes, not logic:
# the libraries that carry it (pycountry, Babel) bring megabytes of country and locale data
# for this one set, which changes once in a few years.
ISO_CURRENCIES = frozenset(
    """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD
    BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP
    DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR
    IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD
    MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB
    PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD
    SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS
    VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA
    XXX YER ZAR ZMW ZWG ZWL
    """.split()  # noqa: SIM905 (a table, read as one)
)


def nets(lines: QuerySet[LedgerLine], group: str | None = None) -> dict[Any, dict[int, Decimal]]:
    """Net money per player over `lines` (received − paid), apart for each value of the
    field `group` (all together under None when there is none). Two queries, money in and
    money out, summed in the database."""
    fields = [group] if group else []
    totals: dict[Any, dict[int, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for side, sign in (("payee_id", 1), ("payer_id", -1)):
        for total in lines.values(*fields, side).annotate(amount=Sum("amount")):
            totals[total[group] if group else None][total[side]] += sign * total["amount"]
    # The same scale on every database (SQLite's sums drop trailing zeros).
    return {
        key: {player: net.quantize(LEDGER_PLACES) for player, net in by_player.items()}
        for key, by_player in totals.items()
    }


def money_text(amount: Decimal) -> str:
    """Money as the API and the CSV export write it: cents when they say it all, else the
    ledger's third decimal ("2.50", "0.375")."""
    cents = amount.quantize(Decimal("0.01"))
    shown = cents if cents == amount else amount.quantize(Decimal("0.001"))
    return f"{shown + 0:f}"  # + 0 turns -0.00 into 0.00


def balances(lines: QuerySet[LedgerLine]) -> dict[int, Decimal]:
    """Net money per player over `lines`: received − paid."""
    return nets(lines).get(None, {})


@dataclass
class TransferView:
    """A transfer of the settlement: still to pay (`amount` is what is left, `paid_so_far`
    what part payments took off it), or paid in full (`paid`, by payment `payment`)."""

    payer: int
    payee: int
    amount: Decimal
    paid: bool = False
    payment: int | None = None
    paid_so_far: Decimal = Decimal(0)


@dataclass
class Settlement:
    """A session's money: the ledger's balances, what is still owed after the payments,
    the transfers (open ones, and those paid in full, by payer and payee) and every
    payment, cancelled ones too, oldest first."""

    balances: dict[int, Decimal]
    transfers: list[TransferView] = field(default_factory=list)
    owed: dict[int, Decimal] = field(default_factory=dict)
    payments: list[Payment] = field(default_factory=list)
    settled: bool = True
    open_amount: Decimal = Decimal(0)

    @property
    def open_transfers(self) -> list[TransferView]:
        return [transfer for transfer in self.transfers if not transfer.paid]


def money_paid(payments: Iterable[Payment]) -> list[MoneyPaid]:
    """The payments that stand, as scoring reads them, oldest first."""
    standing = (payment for payment in payments if payment.cancelled_at is None)
    return [
        MoneyPaid(
            ref=payment.pk, payer=payment.payer_id, payee=payment.payee_id, amount=payment.amount
        )
        for payment in sorted(standing, key=lambda payment: (payment.paid_at, payment.pk))
    ]


def _settlement(balances: dict[int, Decimal], payments: list[Payment]) -> Settlement:
    result = scoring.payments.outstanding(balances, money_paid(payments))
    transfers = [
        TransferView(
            payer=transfer.payer,
            payee=transfer.payee,
            amount=transfer.amount,
            paid_so_far=transfer.paid,
        )
        for transfer in result.transfers
    ] + [
        TransferView(
            payer=transfer.payer,
            payee=transfer.payee,
            amount=transfer.amount,
            paid=True,
            payment=transfer.payments[-1],
        )
        for transfer in result.paid
    ]
    return Settlement(
        balances=balances,
        transfers=sorted(transfers, key=lambda t: (t.payer, t.payee, t.paid)),
        owed={player: owed.quantize(LEDGER_PLACES) for player, owed in result.owed.items()},
        payments=payments,
        settled=result.settled,
        open_amount=result.open_amount.quantize(LEDGER_PLACES),
    )


def tallied_balances(session_ids: Iterable[int]) -> dict[int, dict[int, Decimal]]:
    """Each session's balances (received − paid, per player) from its running totals: one
    query a row a player, however many deals. `StandingTally.net` moves in the same
    transaction as the ledger lines (an open deal and an empty ended one have neither, SPEC
    3.3), so it equals the ledger's sums, which the tests hold it to."""
    by_session: dict[int, dict[int, Decimal]] = defaultdict(dict)
    rows = StandingTally.objects.filter(session_id__in=list(session_ids)).exclude(net=0)
    for session_id, player_id, net in rows.values_list("session_id", "player_id", "net"):
        by_session[session_id][player_id] = net.quantize(LEDGER_PLACES)
    return by_session


def settlement_of(session: Session) -> Settlement:
    """Balances, what is still owed after the payments, and the fewest transfers that
    clear it (`scoring.payments`: paying a transfer never reshuffles the others; a
    correction after a payment shows the refund). Queries: the balances from the running
    totals, the payments with who recorded and cancelled them — two, however many deals."""
    # Both read by hand (`tracker.rows`): the first read after every change runs them, and
    # the ORM took longer to build them than to run them. The same rows as
    # `tallied_balances` and `select_related(...).order_by("paid_at", "pk")`.
    session_balances = {
        tally.player_id: tally.net.quantize(LEDGER_PLACES)
        for tally in all_with(StandingTally, (), "session", session.pk)
        if tally.net != 0
    }
    payments = all_with(Payment, _PAYMENT_BY, "session", session.pk, order=("paid_at", "pk"))
    return _settlement(session_balances, payments)


_PAYMENT_BY = ("recorded_by", "recorded_via", "cancelled_by", "cancelled_via")


def settlements_of(session_ids: Iterable[int]) -> dict[int, Settlement]:
    """The settlement of each session (for lists: which still have money open, and how
    much). Queries: the balances from the running totals, payments — two, however many
    sessions and deals."""
    ids = list(session_ids)
    by_session = tallied_balances(ids)
    payments: dict[int, list[Payment]] = defaultdict(list)
    for payment in Payment.objects.filter(session_id__in=ids).order_by("paid_at", "pk"):
        payments[payment.session_id].append(payment)
    return {
        session_id: _settlement(by_session.get(session_id, {}), payments[session_id])
        for session_id in ids
    }
